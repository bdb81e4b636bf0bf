#!/usr/bin/env python3
"""Runs the gallery of engine verifiers (examples/gallery/) through tevsuite.adapters and writes
docs/gallery.md, or checks that the verdicts it publishes still hold.

    PYTHONPATH=build/python python3 scripts/gallery.py --write docs/gallery.md   # every row
    PYTHONPATH=build/python python3 scripts/gallery.py --write docs/gallery.md --only medusa_evaluate_posterior
    PYTHONPATH=build/python python3 scripts/gallery.py --write docs/gallery.md --only sglang_tree_speculative_sampling_target_only \
        --run "engine batch"                                                     # one row, merged
    PYTHONPATH=build/python python3 scripts/gallery.py --check docs/gallery.md   # the CI budget
    PYTHONPATH=build/python python3 scripts/gallery.py --render docs/gallery.md  # from the kept results

The full budget runs every routine's runs: fixed-tree cases (default or engine-shaped) at 40,000
samples a case (the sparse case four times as many, over V = 1,000), model cases at check_model's
40,000, batches of requests at 2 batches of 4, 40,000 rounds. Engine-shaped runs pass the
routine's engine_order: a case its engine does not offer is left out, the others are judged in
the order its engine's sampler applies (examples/gallery/offers.py). Each row's sampled results
are kept in the document's .json beside it; --only and --run regenerate the rows they name and
merge them with the kept ones, and the document is written from them all, with the exact TVs
(computed from the routines, not sampled) recomputed. The CI budget runs one run per routine on
its first cases (CI_PLAN), the verdicts the document's CI table publishes; --check fails (exit 1)
where one differs. Progress goes to stderr.
"""
import argparse
import importlib
import json
import os
import platform
import re
import subprocess
import sys
import time
from types import SimpleNamespace

SKIPPED = 77  # the exit status ctest reads as "skipped" (SKIP_RETURN_CODE)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GALLERY = os.path.join(ROOT, "examples", "gallery")

TREE = dict(samples=40_000, large_vocab=1_000, large_vocab_factor=4)
FULL = dict(tree=dict(cases=8, **TREE), model=dict(cases=8), batch=dict(batches=2, rounds=40_000))
# CI: per routine one run and how many of its first cases (the first that shows a not-exact
# verdict, where the routine has one); 40,000 samples a fixed-tree case, 40,000 a model case.
CI_PLAN = {
    "vllm_rejection_sample": ("model (draft probs)", 2),
    "vllm_rejection_sampler_forward": ("engine (target-only)", 2),
    "flashinfer_chain_speculative_sampling": ("model (draft probs)", 2),
    "hf_speculative_sampling": ("model (draft probs)", 1),
    "llamacpp_sample_and_accept_n": ("default (target-only)", 1),
    "sglang_tree_speculative_sampling_target_only": ("default", 1),
    "eagle_evaluate_posterior": ("default", 1),
    "medusa_evaluate_posterior": ("default", 1),
    "trtllm_accept_draft_tokens_by_ids_with_paths": ("default (typicalAcceptanceSampling)", 1),
    "vllm_tree_rejection_sampler": ("default", 1),
    "sglang_verify_tree_greedy": ("default", 1),
    "medusa_nucleus_posterior": ("default", 1),
    "llamacpp_speculative_example": ("model (one draft sequence)", 1),
    "eagle_batched_evaluate_posterior": ("model (draft probs)", 1),
}


def log(message):
    print(message, file=sys.stderr, flush=True)


def modules():
    if GALLERY not in sys.path:
        sys.path.insert(0, GALLERY)
    names = sorted(f[:-3] for f in os.listdir(GALLERY) if f.endswith(".py") and not f.startswith("test_"))
    return [(name, importlib.import_module(name)) for name in names if hasattr(importlib.import_module(name), "runs")]


def ci_budget(cases):
    return dict(tree=dict(TREE, cases=cases), model=dict(cases=cases), batch=dict(batches=1, requests=cases + 1, rounds=40_000))


def run_all(plan):
    """plan: [(module name, module, run name, budget)] -> rows of results (the document's .json)."""
    rows = []
    commit, _ = stamp()
    for name, module, run, budget in plan:
        log(f"{name}: {run} ...")
        start = time.monotonic()
        report = module.runs()[run](budget)
        seconds = time.monotonic() - start
        log(f"{name}: {run}: {report.verdict_text} ({seconds:.0f} s)")
        rows.append(dict(name=name, run=run, verdict=report.verdict_text, kind=exact_kind(report), seconds=round(seconds), commit=commit,
                         cases=len(report.cases), failing=[failing_case(c) for c in failing(report)], report=report))
    return rows


def failing_case(c):
    return dict(id=c.id, label=c.label, p_holm=c.p_holm, samples=c.samples, impossible=c.impossible, detectable_tv=c.detectable_tv)


def shape(run):
    """A run's kind of case from its name: "batch", "model" or "tree"; and whether engine-shaped."""
    kind = "batch" if "batch" in run else "model" if "model" in run else "tree"
    return kind, run.startswith("engine")


STATED = {}  # stated_cases' results by (kind, engine): the document is written from one budget


def stated_cases(kind, engine, budget):
    """The run's cases as emitted, {id: case} ("batch/request" ids for batches), and each batch's
    requests {batch id: [case]}."""
    if (kind, engine) not in STATED:
        STATED[kind, engine] = recorded_cases(kind, engine, budget)
    return STATED[kind, engine]


def recorded_cases(kind, engine, budget):
    """stated_cases' answer, recorded by checks of 1 sample (round) a case."""
    import numpy as np
    import tevsuite
    cases, batches = {}, {}

    def record(case, n, rng):
        cases[case.id] = case
        return np.full((n, 1), -1), np.zeros(n, dtype=np.int64)

    def record_batch(requests, rng):
        batch = f"k{len(batches)}"
        batches[batch] = list(requests)
        cases.update({f"{batch}/{r.id}": r for r in requests})
        return np.full((len(requests), 1), -1), np.zeros(len(requests), dtype=np.int64)

    if kind == "tree":
        tevsuite.check_tree(verify_batch=record, engine_inputs=engine, **dict(budget["tree"], samples=1, large_vocab_factor=1))
    elif kind == "batch":
        tevsuite.check_batch(verify_requests=record_batch, engine_inputs=engine, **dict(budget["batch"], rounds=1))
    return cases, batches


def offer(module, kind, budget):
    """An engine-shaped run's cases as its engine takes them: {id: (case, order or None, why not)}."""
    import offers
    cases, batches = stated_cases(kind, True, budget)
    together = {f"{b}/{r.id}": [q.sampling for q in requests] for b, requests in batches.items() for r in requests}
    taken = {}
    for case_id, case in cases.items():
        order = module.engine_order(case.sampling, together.get(case_id, [case.sampling]))
        taken[case_id] = (case, order, None if order else offers.not_offered(case.sampling, module.FILTERS, module.ORDERS))
    return taken


def exact_tv(module, run, budget, case_id):
    """(exact TV, how it was computed) of a failing case, or None where the routine has no drawing
    form of its law on it (a test of independence, a model case of a routine without exact_tv)."""
    import offers
    kind, engine = shape(run)
    if " x " in case_id:
        return None
    if kind == "model":
        if engine or not hasattr(module, "exact_tv"):
            return None
        return model_exact_tvs(module, budget)[case_id], "its block law completed to D + 1 tokens, by its file's exact_tv"
    if engine and hasattr(module, "target_rows"):
        case, order, _ = offer(module, kind, budget)[case_id]
        if order is None:  # a row kept from before the engine's offer was stated
            return None
        restated = SimpleNamespace(**{k: getattr(case, k) for k in ("parents", "tokens", "logits", "nodes")}, sampling=dict(case.sampling, order=order))
        return (offers.walk_tv(case, module.target_rows(restated), offers.reference_rows(restated, order)),
                f"tevsuite.exact_law of the walk over the routine's rows, against {order}")
    if engine:
        return None
    cases, _ = stated_cases(kind, False, budget)
    if hasattr(module, "exact_tv"):
        return module.exact_tv(cases[case_id]), "its one block, by its file's exact_tv"
    if hasattr(module, "target_rows"):
        case = cases[case_id]
        return (offers.walk_tv(case, module.target_rows(case), case.probs),
                "tevsuite.exact_law of the walk over the rows it draws target tokens from")
    return None


MODEL_TVS = {}  # model_exact_tvs' results by routine


def model_exact_tvs(module, budget):
    """{case id: exact TV} of a routine's model cases, computed by its exact_tv while each case is
    live (a model case cannot be read after the call that received it), in a check of one sample
    a case."""
    import numpy as np
    import tevsuite
    if module.__name__ not in MODEL_TVS:
        tvs = {}

        def record(case, n, rng):
            tvs.setdefault(case.id, module.exact_tv(case))
            return np.full((n, 1), -1), np.zeros(n, dtype=np.int64)

        tevsuite.check_model(verify_batch=record, **dict(budget["model"], samples=1))
        MODEL_TVS[module.__name__] = tvs
    return MODEL_TVS[module.__name__]


def exact_kind(report):
    from tevsuite import Verdict
    return {Verdict.EXACT_SATURATED: "exact", Verdict.EXACT_NOT_SATURATED: "exact",
            Verdict.EXACT_SATURATION_INCONCLUSIVE: "exact", Verdict.NOT_EXACT: "not exact"}.get(report.verdict, "inconclusive")


def failing(report):
    """The cases that are not exact, in the check's order."""
    from tevsuite import Verdict
    return [c for c in report.cases if c.verdict == Verdict.NOT_EXACT]


def stamp():
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip() or "unknown"
    release = ""
    if os.path.exists("/etc/os-release"):
        fields = dict(line.rstrip().split("=", 1) for line in open("/etc/os-release") if "=" in line)
        release = fields.get("PRETTY_NAME", "").strip('"').replace(" GNU/Linux", "")
    return commit, f"{os.cpu_count()}-core {release or platform.system()} machine"


def case_line(c, exact):
    if exact is not None:
        tv = f", exact TV {exact[0]:.4f} ({exact[1]})"
    else:
        tv = f", TV ≥ {c['impossible'] / c['samples']:.3f} from impossible blocks alone" if c["impossible"] else ""
    return (f"`{c['id']}` ({c['label']}): Holm-adjusted p {c['p_holm']:.3g}, {c['samples']:,} samples, {c['impossible']:,} impossible "
            f"blocks{tv}; the test detects TV {c['detectable_tv']:.3f} with 99% power")


def causes(module, run, budget, cases):
    """{cause key: [case ids]} of a row's failing cases: the key module.cause gives the request (a
    test of independence: the request its label names not exact), the routine's one cause where
    it has no other."""
    if not hasattr(module, "CAUSES"):
        return {}
    kind, engine = shape(run)
    taken = offer(module, kind, budget) if engine and kind != "model" and hasattr(module, "cause") else {}
    found = {}
    for c in cases:
        request = c["id"]
        if " x " in request:
            named = re.search(r"request (\S+) is not exact", c["label"])
            request = f"{request.split('/')[0]}/{named.group(1)}" if named else None
        key = module.cause(taken[request][0].sampling, taken[request][1]) if request in taken else next(iter(module.CAUSES))
        found.setdefault(key, []).append(c["id"])
    return found


def smallest_case(ids, run):
    """The failing case of fewest cells (nodes x V) among ids, as text; None for model cases."""
    kind, engine = shape(run)
    cases, _ = stated_cases(kind, engine, FULL)
    sized = [(cases[i].nodes * cases[i].vocab, i) for i in ids if i in cases]
    if not sized:
        return None
    case_id = min(sized)[1]
    return f"`{case_id}` ({cases[case_id].nodes} nodes, V = {cases[case_id].vocab})"


def routine_section(m, runs, budget):
    """A routine's offer: what its engine takes, and per engine-shaped run what was left out or
    judged in another order than stated."""
    import offers
    lines = [f"### {m.ENGINE} `{m.ROUTINE}`", "", f"Offers: {m.OFFERS}", ""]
    for run in runs:
        kind, engine = shape(run)
        if not engine or kind == "model":
            continue
        taken = offer(m, kind, budget)
        out = [f"`{i}` ({why})" for i, (_, order, why) in taken.items() if order is None]
        moved = [f"`{i}` in {order} (stated {c.sampling['order']})" for i, (c, order, _) in taken.items()
                 if order is not None and not offers.same_rows(c.sampling, order, c.sampling["order"])]
        modes = ""
        if kind == "batch" and hasattr(m, "sampler_mode"):
            _, batches = stated_cases(kind, True, budget)
            modes = "; " + "; ".join(f"`{b}`: {m.sampler_mode([r.sampling for r in requests], [r.id for r in requests])}"
                                     for b, requests in batches.items())
        lines.append(f"- {run}: {len(taken) - len(out)} of {len(taken)} requests run; not offered: {', '.join(out) or 'none'}{modes}"
                     + (f"; judged in the order the engine's sampler applies to them, which changes their rows: {', '.join(moved)}" if moved else "")
                     + ".")
    return lines + [""]


def write(path, rows, ci):
    commit, machine = stamp()
    modules_by_name = dict(modules())
    by_routine = {}
    for row in rows:
        by_routine.setdefault(row["name"], []).append(row)
    lines = ["# The gallery: engines' verifiers, judged", "",
             f"Generated by `scripts/gallery.py --write docs/gallery.md` on a {machine}; each row's tevsuite commit is in its `at` "
             "column (rows are regenerated one at a time: `--only`, `--run`). Every routine is written from the algorithm of the cited "
             "commit (`examples/gallery/`, one file each, the engine's signature), called through `tevsuite.adapters` in its engine's "
             f"tensor layout. Budget: fixed-tree cases at {TREE['samples']:,} samples a case (the sparse case {TREE['large_vocab_factor']}x "
             f"over V = {TREE['large_vocab']:,}), model cases at 40,000, batches of requests 2 x 4 at 40,000 rounds; family alpha 1e-3 "
             "per run, the default seed. `time` is a row's wall time when it was generated, on a machine other work may have "
             "shared: not comparable across rows.", "",
             "**The reference is the engine's own sampler.** Engine-shaped cases carry sampling parameters and a filter order "
             "([protocol](protocol.md#engine-shaped-cases-format_version-3-and-4)). Each routine states which parameters and orders "
             "its engine's sampler offers (below, with the source); a case that uses a parameter or an order the engine does not "
             "offer is not run (\"not offered\"), and the others are judged against their rows processed in the order the engine's "
             "sampler applies to them, which for SGLang depends on the batch (`engine_order`, docs/python.md).", "",
             "**Exact TV**, for each not-exact case where the routine has a drawing form: a routine that is exact against its own "
             "rows (its default run says so) samples the walk over them, whose exact law tevsuite's enumeration (`tevsuite.exact_law`) "
             "compares with the reference's canonical law; a routine whose law is not such a walk computes it in its file's "
             "`exact_tv` (Medusa's typical acceptance: one block a case; its nucleus acceptance: independent draws per path; "
             "vLLM's tree sampler: the argmax path and a drawn bonus; llama.cpp's speculative example on model cases: its block "
             "law completed with p to D + 1 tokens, as tevsuite completes model cases), with the same completion. Tests of "
             "independence, and model cases of routines without such a file function, have none.", ""]
    exact = [n for n, rs in by_routine.items() if all(r["kind"] == "exact" for r in rs)]
    not_exact = [n for n, rs in by_routine.items() if any(r["kind"] == "not exact" for r in rs)]
    other = [n for n in by_routine if n not in exact and n not in not_exact]
    label = lambda n: f"{modules_by_name[n].ENGINE} `{modules_by_name[n].ROUTINE}`"  # noqa: E731
    lines += [f"**Exact on every run:** {', '.join(label(n) for n in exact) or 'none'}.", "",
              f"**Not exact on at least one run:** {', '.join(label(n) for n in not_exact) or 'none'}.", ""]
    if other:
        lines += [f"**Inconclusive (no verdict):** {', '.join(label(n) for n in other)}.", ""]
    lines += ["| engine | routine | commit | stated | run | verdict | exact TV | time | at |", "|---|---|---|---|---|---|---|---|---|"]
    for name, rs in by_routine.items():
        m = modules_by_name[name]
        for r in rs:
            tvs = {c["id"]: exact_tv(m, r["run"], FULL, c["id"]) for c in r["failing"]}
            if r["run"] == "default" and hasattr(m, "exact_tv"):
                cases, _ = stated_cases("tree", False, FULL)
                every = {i: m.exact_tv(c) for i, c in cases.items()}
                worst = max(every, key=every.get)
                column = f"{min(every.values()):.4f} to {every[worst]:.4f} ({worst}), computed"
            elif any(tvs.values()):
                known = {i: tv[0] for i, tv in tvs.items() if tv}
                worst = max(known, key=known.get)
                column = f"up to {known[worst]:.4f} ({worst}), enumerated"
            else:
                column = "no case not exact" if r["kind"] != "not exact" else "none: no drawing form of these cases"
            r["exact_tvs"] = tvs
            lines.append(f"| {m.ENGINE} | `{m.ROUTINE}` | {m.COMMIT} | {m.STATED} | {r['run']} | {r['verdict']} | {column} | "
                         f"{r['seconds']} s | {r['commit']} |")
    not_run = [f"- {modules_by_name[n].ENGINE} `{modules_by_name[n].ROUTINE}`: {modules_by_name[n].NOT_RUN}"
               for n in by_routine if getattr(modules_by_name[n], "NOT_RUN", None)]
    if not_run:
        lines += ["", "Not run:", ""] + not_run
    lines += ["", "## What each engine offers", ""]
    for name, rs in by_routine.items():
        if hasattr(modules_by_name[name], "OFFERS"):
            lines += routine_section(modules_by_name[name], [r["run"] for r in rs], FULL)
    lines += ["## Where a routine is not exact", ""]
    for name, rs in by_routine.items():
        m = modules_by_name[name]
        for r in rs:
            if not r["failing"]:
                continue
            lines += [f"### {m.ENGINE} `{m.ROUTINE}`, {r['run']}", "", f"Source: {m.SOURCE} at {m.COMMIT}.", ""]
            if getattr(m, "FINDINGS", None):
                lines += [f"Why, as read at the source: {m.FINDINGS}", ""]
            for key, ids in causes(m, r["run"], FULL, r["failing"]).items():
                where, tracking, reproducer = m.CAUSES.get(key, ("not identified", "not reported", "none"))
                smallest = smallest_case(ids, r["run"])
                lines += [f"- cause: {where}", f"- tracking: {tracking}", f"- reproducer: `{reproducer}` (numpy and tevsuite)",
                          f"- cases: {', '.join(f'`{i}`' for i in ids)}"
                          + (f"; the smallest: {smallest}" if smallest else ""), ""]
            lines += [f"{len(r['failing'])} of {r['cases']} cases not exact (the first is the first the check met):", ""]
            lines += [f"- {case_line(c, r['exact_tvs'].get(c['id']))}" for c in r["failing"]]
            lines.append("")
    lines += ["## CI", "", "`ctest -R python_gallery` runs `scripts/gallery.py --check docs/gallery.md`: one run per routine on its first "
              "cases (fixed-tree cases at 40,000 samples, model cases at 40,000) and fails where a verdict differs from this table. "
              "It certifies each routine's verdict on those cases only; the full table above comes from the script.", "",
              "| routine | run | cases | verdict |", "|---|---|---|---|"]
    for r in ci:
        lines.append(f"| {r['name']} | {r['run']} | {CI_PLAN[r['name']][1]} | {r['verdict']} |")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def published(path):
    """The CI table's verdicts: {(routine, run): verdict}."""
    table = open(path).read().split("## CI", 1)[-1]
    return {(m[0], m[1]): m[3] for m in re.findall(r"^\| (\w+) \| (.+?) \| (\d+) \| (.+?) \|$", table, re.M)}


def kept(path):
    """The sampled results the document was written from: {"rows": [...], "ci": [...]}."""
    store = os.path.splitext(path)[0] + ".json"
    return json.load(open(store)) if os.path.exists(store) else dict(rows=[], ci=[])


def keep(path, store):
    with open(os.path.splitext(path)[0] + ".json", "w") as f:
        json.dump({k: [{f: v for f, v in r.items() if f not in ("report", "exact_tvs")} for r in rows] for k, rows in store.items()}, f,
                  indent=1)
        f.write("\n")


def merged(old, new, order):
    """old rows with new ones in their place (or added), in `order` of (routine, run)."""
    rows = {(r["name"], r["run"]): r for r in old}
    rows.update({(r["name"], r["run"]): r for r in new})
    return [rows[k] for k in order if k in rows]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("--write", metavar="DOC", help="run the full budget and the CI budget, write the document")
    parser.add_argument("--check", metavar="DOC", help="run the CI budget; exit 1 where a verdict differs from DOC's CI table")
    parser.add_argument("--only", metavar="ROUTINE", action="append",
                        help="a routine (a file name in examples/gallery/ without .py); repeatable")
    parser.add_argument("--run", metavar="RUN", action="append", help="with --write, only the runs of this name; repeatable")
    parser.add_argument("--render", metavar="DOC", help="write DOC from its kept results, running no check (exact TVs recomputed)")
    args = parser.parse_args()
    if not args.write and not args.check and not args.render:
        parser.error("give --write DOC, --check DOC or --render DOC")
    try:
        import torch  # noqa: F401  the routines are torch code
    except ImportError:
        log("the gallery needs PyTorch (Debian: python3-torch): skipped")
        return SKIPPED
    every = modules()
    if args.render:
        store = kept(args.render)
        write(args.render, store["rows"], store["ci"])
        return 0
    found = [(n, m) for n, m in every if not args.only or n in args.only]
    ci = run_all([(n, m, CI_PLAN[n][0], ci_budget(CI_PLAN[n][1])) for n, m in found if not args.run or CI_PLAN[n][0] in args.run])
    if args.check:
        expected = published(args.check)
        wrong = [f"{r['name']} / {r['run']}: {r['verdict']}, published {expected.get((r['name'], r['run']), 'nothing')}\n"
                 f"{r['report'].describe()}" for r in ci if expected.get((r["name"], r["run"])) != r["verdict"]]
        missing = [f"{n}: not in the gallery" for n in {k[0] for k in expected} - {r['name'] for r in ci}] if not args.only else []
        for line in wrong + missing:
            log(line)
        return 1 if wrong or missing else 0
    full = run_all([(n, m, run, FULL) for n, m in found for run in m.runs() if not args.run or run in args.run])
    store = kept(args.write)
    store = dict(rows=merged(store["rows"], full, [(n, run) for n, m in every for run in m.runs()]),
                 ci=merged(store["ci"], ci, [(n, CI_PLAN[n][0]) for n, _ in every]))
    keep(args.write, store)
    write(args.write, store["rows"], store["ci"])
    log(f"wrote {args.write}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
