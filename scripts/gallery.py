#!/usr/bin/env python3
"""Runs the gallery of engine verifiers (examples/gallery/) through tevsuite.adapters and writes
docs/gallery.md, or checks that the verdicts it publishes still hold.

    PYTHONPATH=build/python python3 scripts/gallery.py --write docs/gallery.md   # the full table
    PYTHONPATH=build/python python3 scripts/gallery.py --check docs/gallery.md   # the CI budget

The full budget runs every routine's runs: fixed-tree cases (default or engine-shaped) at 40,000
samples a case (the sparse case four times as many, over V = 1,000), model cases at check_model's
40,000, batches of requests at 2 batches of 4, 40,000 rounds. The CI budget runs one run per
routine on its first cases (CI_PLAN), the verdicts the document's CI table publishes; --check
fails (exit 1) where one differs. Progress goes to stderr.
"""
import argparse
import importlib
import os
import platform
import re
import subprocess
import sys
import time

SKIPPED = 77  # the exit status ctest reads as "skipped" (SKIP_RETURN_CODE)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GALLERY = os.path.join(ROOT, "examples", "gallery")

TREE = dict(samples=40_000, large_vocab=1_000, large_vocab_factor=4)
FULL = dict(tree=dict(cases=8, **TREE), model=dict(cases=8), batch=dict(batches=2, rounds=40_000))
# CI: per routine one run and how many of its first cases (the first that shows a not-exact
# verdict, where the routine has one); 40,000 samples a fixed-tree case, 40,000 a model case.
CI_PLAN = {
    "vllm_rejection_sample": ("model (draft probs)", 2),
    "vllm_rejection_sampler_forward": ("engine model (draft probs)", 4),
    "flashinfer_chain_speculative_sampling": ("model (draft probs)", 2),
    "hf_speculative_sampling": ("model (draft probs)", 1),
    "llamacpp_sample_and_accept_n": ("default (target-only)", 1),
    "sglang_tree_speculative_sampling_target_only": ("default", 1),
    "eagle_evaluate_posterior": ("default", 1),
    "medusa_evaluate_posterior": ("default", 1),
    "trtllm_accept_draft_tokens_by_ids_with_paths": ("default (typicalAcceptanceSampling)", 1),
}


def log(message):
    print(message, file=sys.stderr, flush=True)


def modules():
    sys.path.insert(0, GALLERY)
    names = sorted(f[:-3] for f in os.listdir(GALLERY) if f.endswith(".py") and not f.startswith("test_"))
    return [(name, importlib.import_module(name)) for name in names if hasattr(importlib.import_module(name), "runs")]


def ci_budget(cases):
    return dict(tree=dict(TREE, cases=cases), model=dict(cases=cases), batch=dict(batches=1, requests=cases + 1, rounds=40_000))


def run_all(plan):
    """plan: [(module name, module, run name, budget)] -> rows of results."""
    rows = []
    for name, module, run, budget in plan:
        log(f"{name}: {run} ...")
        start = time.monotonic()
        report = module.runs()[run](budget)
        seconds = time.monotonic() - start
        log(f"{name}: {run}: {report.verdict_text} ({seconds:.0f} s)")
        rows.append(dict(name=name, module=module, run=run, report=report, seconds=seconds, exact_tv=exact_tvs(module, run, budget)))
    return rows


def exact_tvs(module, run, budget):
    """{case id: exact TV} where the routine computes its own law (module.exact_tv(case)) on the
    fixed-tree cases of a default run; None elsewhere."""
    if not hasattr(module, "exact_tv") or not run.startswith("default"):
        return None
    import numpy as np
    import tevsuite
    cases = {}

    def record(case, n, rng):
        cases[case.id] = case
        return np.full((n, 1), -1), np.zeros(n, dtype=np.int64)

    tevsuite.check_tree(verify_batch=record, **dict(budget["tree"], samples=1))
    return {case_id: module.exact_tv(case) for case_id, case in cases.items()}


def failing(report):
    """The cases that are not exact, in the check's order."""
    from tevsuite import Verdict
    return [c for c in report.cases if c.verdict == Verdict.NOT_EXACT]


def exact_kind(report):
    from tevsuite import Verdict
    return {Verdict.EXACT_SATURATED: "exact", Verdict.EXACT_NOT_SATURATED: "exact",
            Verdict.EXACT_SATURATION_INCONCLUSIVE: "exact", Verdict.NOT_EXACT: "not exact"}.get(report.verdict, "inconclusive")


def stamp():
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip() or "unknown"
    release = ""
    if os.path.exists("/etc/os-release"):
        fields = dict(line.rstrip().split("=", 1) for line in open("/etc/os-release") if "=" in line)
        release = fields.get("PRETTY_NAME", "").strip('"').replace(" GNU/Linux", "")
    return commit, f"{os.cpu_count()}-core {release or platform.system()} machine"


def case_line(c, exact=None):
    if exact is not None:
        tv = f", exact TV {exact[c.id]:.4f} (the routine's law computed)"
    else:
        tv = f", TV ≥ {c.impossible / c.samples:.3f} from impossible blocks alone" if c.impossible else ""
    return (f"`{c.id}` ({c.label}): Holm-adjusted p {c.p_holm:.3g}, {c.samples:,} samples, {c.impossible:,} impossible blocks{tv}; "
            f"the test detects TV {c.detectable_tv:.3f} with 99% power")


def write(path, full, ci):
    commit, machine = stamp()
    by_routine = {}
    for row in full:
        by_routine.setdefault(row["name"], []).append(row)
    lines = ["# The gallery: engines' verifiers, judged", "",
             f"Generated by `scripts/gallery.py --write docs/gallery.md` at commit {commit} on a {machine}. Every routine is "
             "written from the algorithm of the cited commit (`examples/gallery/`, one file each, the engine's signature), "
             "called through `tevsuite.adapters` in its engine's tensor layout. Budget: fixed-tree cases at "
             f"{TREE['samples']:,} samples a case (the sparse case {TREE['large_vocab_factor']}x over V = {TREE['large_vocab']:,}), "
             "model cases at 40,000, batches of requests 2 x 4 at 40,000 rounds; family alpha 1e-3 per run, the default seed. "
             "Exact TV: tevsuite enumerates the exact law of drawing verifiers in C++ only, not reachable from Python "
             "(\"not enumerated\"); Medusa's acceptance is deterministic, so its law is computed exactly by its file's `exact_tv` "
             "(the range over the run's cases).", ""]
    exact = [n for n, rows in by_routine.items() if all(exact_kind(r["report"]) == "exact" for r in rows)]
    not_exact = [n for n, rows in by_routine.items() if any(exact_kind(r["report"]) == "not exact" for r in rows)]
    other = [n for n in by_routine if n not in exact and n not in not_exact]
    label = lambda n: f"{by_routine[n][0]['module'].ENGINE} `{by_routine[n][0]['module'].ROUTINE}`"  # noqa: E731
    lines += [f"**Exact on every run:** {', '.join(label(n) for n in exact) or 'none'}.", "",
              f"**Not exact on at least one run:** {', '.join(label(n) for n in not_exact) or 'none'}.", ""]
    if other:
        lines += [f"**Inconclusive (no verdict):** {', '.join(label(n) for n in other)}.", ""]
    lines += ["| engine | routine | commit | stated | run | verdict | exact TV | time |", "|---|---|---|---|---|---|---|---|"]
    for name, rows in by_routine.items():
        m = rows[0]["module"]
        for r in rows:
            if r["exact_tv"]:
                worst = max(r["exact_tv"], key=r["exact_tv"].get)
                exact = f"{min(r['exact_tv'].values()):.4f} to {r['exact_tv'][worst]:.4f} ({worst}), computed"
            else:
                exact = "not enumerated"
            lines.append(f"| {m.ENGINE} | `{m.ROUTINE}` | {m.COMMIT} | {m.STATED} | {r['run']} | {r['report'].verdict_text} | "
                         f"{exact} | {r['seconds']:.0f} s |")
    not_run = [f"- {rows[0]['module'].ENGINE} `{rows[0]['module'].ROUTINE}`: {rows[0]['module'].NOT_RUN}"
               for rows in by_routine.values() if getattr(rows[0]["module"], "NOT_RUN", None)]
    if not_run:
        lines += ["", "Not run:", ""] + not_run
    lines += ["", "## Where a routine is not exact", ""]
    for name, rows in by_routine.items():
        for r in rows:
            cases = failing(r["report"])
            if not cases:
                continue
            m = r["module"]
            lines += [f"### {m.ENGINE} `{m.ROUTINE}`, {r['run']}", "", f"Source: {m.SOURCE} at {m.COMMIT}.", ""]
            if getattr(m, "FINDINGS", None):
                lines += [f"Why, as read at the source: {m.FINDINGS}", ""]
            lines += [f"{len(cases)} of {len(r['report'].cases)} cases not exact (the first is the first the check met):", ""]
            lines += [f"- {case_line(c, r['exact_tv'])}" for c in cases]
            lines.append("")
    lines += ["## CI", "", "`ctest -R python_gallery` runs `scripts/gallery.py --check docs/gallery.md`: one run per routine on its first "
              "cases (fixed-tree cases at 40,000 samples, model cases at 40,000) and fails where a verdict differs from this table. "
              "It certifies each routine's verdict on those cases only; the full table above comes from the script.", "",
              "| routine | run | cases | verdict |", "|---|---|---|---|"]
    for r in ci:
        lines.append(f"| {r['name']} | {r['run']} | {CI_PLAN[r['name']][1]} | {r['report'].verdict_text} |")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def published(path):
    """The CI table's verdicts: {(routine, run): verdict}."""
    table = open(path).read().split("## CI", 1)[-1]
    return {(m[0], m[1]): m[3] for m in re.findall(r"^\| (\w+) \| (.+?) \| (\d+) \| (.+?) \|$", table, re.M)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("--write", metavar="DOC", help="run the full budget and the CI budget, write the document")
    parser.add_argument("--check", metavar="DOC", help="run the CI budget; exit 1 where a verdict differs from DOC's CI table")
    parser.add_argument("--only", metavar="ROUTINE", help="one routine (a file name in examples/gallery/ without .py)")
    args = parser.parse_args()
    if not args.write and not args.check:
        parser.error("give --write DOC or --check DOC")
    try:
        import torch  # noqa: F401  the routines are torch code
    except ImportError:
        log("the gallery needs PyTorch (Debian: python3-torch): skipped")
        return SKIPPED
    found = [(n, m) for n, m in modules() if not args.only or n == args.only]
    ci = run_all([(n, m, CI_PLAN[n][0], ci_budget(CI_PLAN[n][1])) for n, m in found])
    if args.check:
        expected = published(args.check)
        wrong = [f"{r['name']} / {r['run']}: {r['report'].verdict_text}, published {expected.get((r['name'], r['run']), 'nothing')}\n"
                 f"{r['report'].describe()}" for r in ci if expected.get((r["name"], r["run"])) != r["report"].verdict_text]
        missing = [f"{n}: not in the gallery" for n in {k[0] for k in expected} - {r['name'] for r in ci}] if not args.only else []
        for line in wrong + missing:
            log(line)
        return 1 if wrong or missing else 0
    full = run_all([(n, m, run, FULL) for n, m in found for run in m.runs()])
    write(args.write, full, ci)
    log(f"wrote {args.write}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
