#!/usr/bin/python3
"""Draws a report's figures from its results.json (Debian's python3-matplotlib): theorem1's five,
and per-node acceptance against P(u) for check, live and conformance results.

usage: plot_figures.py RESULTS_JSON OUT_DIR
"""
import json
import math
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402


def finish(fig, ax, path, xlabel, ylabel, title, legend_size=7, title_size=None, legend_loc="best"):
    """Labels, legend and save: the tail every figure shares."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=title_size)
    ax.legend(fontsize=legend_size, loc=legend_loc)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def mean_length_vs_ceiling(r, out):
    fig, ax = plt.subplots(figsize=(6.5, 6))
    lo, hi = math.inf, -math.inf
    for v in r["sweep"]["verifiers"]:
        xs = [e["ceiling"] for e in v["per_tree"]]
        ys = [e["mean_L"] for e in v["per_tree"]]
        err = [[e["mean_L"] - e["ci_low"] for e in v["per_tree"]], [e["ci_high"] - e["mean_L"] for e in v["per_tree"]]]
        marker = "o" if v["kind"] == "saturated" else "x"
        ax.errorbar(xs, ys, yerr=err, fmt=marker, ms=4, alpha=0.7, label=f'{v["name"]} ({v["kind"]})')
        lo, hi = min(lo, *xs, *ys), max(hi, *xs, *ys)
    ax.plot([lo, hi], [lo, hi], "k--", lw=1, label="L = 1 + C_p")
    ax.set_xscale("log")
    ax.set_yscale("log")
    finish(fig, ax, f"{out}/mean_length_vs_ceiling.png", "1 + C_p(T)  (ceiling)", "mean emitted length L (95 % CI)",
           "Theorem 1: E[L] <= 1 + C_p, equality iff saturated")


def acceptance_vs_prefix(r, out):
    a = r["acceptance_showcase"]
    prefix = a["prefix"][1:]
    fig, ax = plt.subplots(figsize=(6.5, 6))
    for v in a["verifiers"]:
        marker = "o" if v["kind"] == "saturated" else "x"
        ax.plot(prefix, v["acceptance"][1:], marker, ms=4, alpha=0.6, label=v["name"])
    ax.plot([0, 1], [0, 1], "k--", lw=1, label="acceptance = P(u)")
    finish(fig, ax, f"{out}/acceptance_vs_prefix.png", "P(u), target prefix probability", "empirical acceptance rate of u",
           a["label"], title_size=9)


def pvalue_qq(r, out):
    fig, ax = plt.subplots(figsize=(6, 6))
    for s in r["calibration"]["series"]:
        p = sorted(s["p_values"])
        n = len(p)
        expected = [(i + 0.5) / n for i in range(n)]
        ax.plot(expected, p, ".", ms=2, label=f'{s["test"]} (KS p = {s["ks_p"]:.2g})')
    ax.plot([0, 1], [0, 1], "k--", lw=1)
    finish(fig, ax, f"{out}/pvalue_qq.png", "Uniform(0, 1) quantile", "sorted raw p-value",
           f'Calibration: {r["calibration"]["seeds"]} seeds under true nulls', legend_size=6)


def power_curves(r, out):
    fig, ax = plt.subplots(figsize=(8, 5.5))
    for group, style in (("mutants", "-"), ("contamination", "--")):
        for c in r["power"][group]:
            line, = ax.plot(c["budgets"], c["predicted"], style, lw=1.2, label=f'{c["name"]} (TV {c["exact_tv"]:.2g})')
            for s in c["spot_checks"]:
                k, n = s["rejections"], s["replicates"]
                phat = k / n
                half = 1.96 * math.sqrt(max(phat * (1 - phat), 1e-12) / n)
                ax.errorbar([s["samples"]], [phat], yerr=[[min(half, phat)], [min(half, 1 - phat)]], fmt="o", ms=4, color=line.get_color())
    ax.axhline(0.99, color="grey", lw=0.8, ls=":")
    ax.axvline(r["power"]["default_budget"], color="grey", lw=0.8, ls=":")
    ax.set_xscale("log")
    finish(fig, ax, f"{out}/power_curves.png", "samples", f'power of one chi-square test at alpha = {r["power"]["alpha"]:.2g}',
           "Power per mutant (solid) and contamination level (dashed)", legend_size=6, legend_loc="lower right")


def composition(r, out):
    res = r["composition"]["results"]
    names = [c["verifier"] for c in res]
    p = [max(c["p_value"], 1e-300) for c in res]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5))
    cap = 20.0  # a p of 1e-300 and one of 1e-20 are the same verdict; keep the exact verifiers visible
    left.barh(names, [min(-math.log10(x), cap) for x in p], color=["tab:red" if c["reuses_randomness"] else "tab:blue" for c in res])
    left.axvline(-math.log10(r["config"]["alpha_per_verifier"]), color="k", ls="--", lw=1)
    left.set_xlim(0, cap)
    left.set_xlabel("-log10 p, first n tokens vs exact law (capped at 20)")
    left.tick_params(axis="y", labelsize=7)
    right.barh(names, [c["tokens_per_round"] for c in res], color="tab:green", alpha=0.7, label="tokens per round")
    right.scatter([c["ceiling_per_round"] for c in res], names, color="k", marker="|", s=200, label="mean 1 + C_p")
    right.set_xlabel("tokens per round")
    right.tick_params(axis="y", labelleft=False)
    right.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(f"{out}/composition.png", dpi=110)
    plt.close(fig)


def node_acceptance(r, out):
    """Every non-root node of every tree (case): acceptance rate against P(u), one series per
    verifier (check, live) or per case (conformance)."""
    # Each series: label, marker, and (P(u) per node, evidence) per tree; P(u) is recorded once per tree.
    if "cases" in r:
        series = [(f'{c["case_id"]}: {c["label"]}', "o", [(c["prefix"], c)]) for c in r["cases"]]
        what = "conformance cases"
    else:
        prefixes = [t["prefix"] for t in r["trees"]]
        series = [(v["name"], "x" if v["kind"] == "mutant" else "o", list(zip(prefixes, v["per_tree"]))) for v in r["verifiers"]]
        what = f'{len(prefixes)} trees, every verifier'
    fig, ax = plt.subplots(figsize=(7, 6.5))
    for label, marker, evidence in series:
        xs, ys = [], []
        for prefix, e in evidence:
            if e["samples"] == 0:
                continue
            xs += prefix[1:]
            ys += [k / e["samples"] for k in e["accepted"][1:]]
        ax.plot(xs, ys, marker, ms=3, alpha=0.5, label=label)
    ax.plot([0, 1], [0, 1], "k--", lw=1, label="acceptance = P(u)")
    finish(fig, ax, f"{out}/acceptance_vs_prefix.png", "P(u), target prefix probability", "empirical acceptance rate of u",
           f"Per-node acceptance against P(u): {what}", legend_size=6, title_size=9)


def sampled_drafts(r, out):
    fig, ax = plt.subplots(figsize=(6.5, 6))
    lo, hi = math.inf, -math.inf
    for row in r["sampled_drafts"]["rows"]:
        if "trees" not in row:
            continue
        xs = [t[1] for t in row["trees"]]
        ys = [t[2] for t in row["trees"]]
        sizes = [max(4.0, 400.0 * t[0]) for t in row["trees"]]
        ax.scatter(xs, ys, s=sizes, alpha=0.35, label=f'{row["case"]} ({row["kind"]})')
        lo, hi = min(lo, *xs, *ys), max(hi, *xs, *ys)
    ax.plot([lo, hi], [lo, hi], "k--", lw=1, label="E[L | T] = 1 + C_p(T)")
    finish(fig, ax, f"{out}/sampled_drafts.png", "1 + C_p(T)  (ceiling of the realized tree)", "E[L | T]  (exact)",
           "Sampled drafts: Theorem 1 given T binds target-only verifiers only", legend_size=6, title_size=9)


THEOREM1 = (mean_length_vs_ceiling, acceptance_vs_prefix, pvalue_qq, power_curves, composition)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        r = json.load(f)
    out = sys.argv[2]
    kind = r.get("kind", r.get("command"))  # files written before "kind" name their command
    for draw in THEOREM1 if kind == "theorem1" else (node_acceptance,):
        draw(r, out)
    if "sampled_drafts" in r:  # results.json written before the section existed has none
        sampled_drafts(r, out)


if __name__ == "__main__":
    main()
