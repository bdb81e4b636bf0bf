#!/usr/bin/env python3
"""A tree verifier that speaks tevsuite's conformance protocol: Tree Exit Verification (TEV).

Reads one case per line on stdin and writes exactly `samples` sample lines back for it:
    {"case_id": "c0", "accepted": [t1, t2, ...], "bonus": y}
Engine-shaped cases (format_version 3) give logit rows and sampling parameters: the rows are
processed as an engine does (engine_sampling.py) before the tree is verified.
Standard library only. Run it through the suite with
    tevsuite conformance run --verifier-cmd "python3 examples/tev_verifier.py"

--bug NAME plants a known mistake, so the suite can be seen to catch it:
    full-row-bonus   the bonus after an internal exit comes from the full row (a classic bug)
  and three bugs that live in a large vocabulary's tail, where the rarest tokens are:
    first-unlisted   a sparse row's unlisted mass always lands on its first unlisted token
    top-k-bonus      the bonus is drawn from the residual's 20 most probable tokens only
                     (a top-k filter applied to the residual), renormalized
    truncated-ids    bonus tokens are drawn from ids below 32,768 only (a 16-bit index),
                     renormalized
  and two that live in how logits become the target (format_version 3 cases):
    unprocessed-target         the sampling parameters are ignored
    temperature-after-softmax  top-k/top-p/min-p on softmax(logits), temperature applied after
    crash | hang | garbage   misbehave as a process (for the suite's own tests)
"""
import argparse
import bisect
import json
import random
import sys
import time

from engine_sampling import logit_row, process

TOP_K = 20  # top-k-bonus: tokens the filtered residual keeps
ID_LIMIT = 32768  # truncated-ids: the first id a 16-bit index cannot hold


class Row:
    """A target next-token row: dense (a list of V probabilities) or sparse (listed tokens plus
    the remaining mass spread uniformly over the unlisted ones)."""

    def __init__(self, row, vocab):
        self.vocab = vocab
        if isinstance(row, list):
            self.listed = {t: p for t, p in enumerate(row)}
            self.rest_each = 0.0
        else:
            self.listed = dict(zip(row["tokens"], row["probs"]))
            unlisted = vocab - len(self.listed)
            self.rest_each = max(0.0, 1.0 - sum(self.listed.values())) / unlisted if unlisted else 0.0

    def prob(self, token):
        return self.listed.get(token, self.rest_each)

    def sampler(self, excluded, rng, bug=None):
        """A function drawing a token from this row without the excluded tokens (renormalized)."""
        tokens = [t for t in self.listed if t not in excluded]
        id_limit = self.vocab
        if bug == "top-k-bonus":
            tokens = sorted(tokens, key=lambda t: -self.listed[t])[:TOP_K]
        if bug == "truncated-ids":
            id_limit = min(self.vocab, ID_LIMIT)
            tokens = [t for t in tokens if t < id_limit]
        cumulative, total = [], 0.0
        for t in tokens:
            total += self.listed[t]
            cumulative.append(total)
        unlisted = sum(1 for t in self.listed if t < id_limit)
        unlisted_mass = 0.0 if bug == "top-k-bonus" else self.rest_each * (id_limit - unlisted)
        first_unlisted = next((t for t in range(self.vocab) if t not in self.listed), None)

        def draw():
            u = rng.random() * (total + unlisted_mass)
            if u < total:
                # bisect may step past the end when rounding puts u at the total: clamp.
                return tokens[min(bisect.bisect_right(cumulative, u), len(tokens) - 1)]
            if bug == "first-unlisted":
                return first_unlisted
            while True:  # uniform over the unlisted tokens, which hold the remaining mass
                t = rng.randrange(id_limit)
                if t not in self.listed:
                    return t

        return draw


def verify(case, rng, bug):
    vocab, parents, tokens = case["vocab"], case["parents"], case["tokens"]
    n = len(parents)
    if case["format_version"] == 3:
        sampling = case.get("sampling", {})
        rows = [Row(process(logit_row(r, vocab), sampling, bug), vocab) for r in case["logits"]]
    else:
        rows = [Row(r, vocab) for r in case["probs"]]
    children = [[] for _ in range(n)]
    for v in range(1, n):
        children[parents[v]].append(v)
    # Prefix probabilities P(v) and exit weights w(v) = P(v) * rho(v), with rho(v) the target
    # mass at v outside its drafted children, summed directly (not as 1 - sum of children).
    prefix, order = [0.0] * n, [0]
    prefix[0] = 1.0
    for v in order:
        for c in children[v]:
            prefix[c] = prefix[v] * rows[v].prob(tokens[c])
            order.append(c)
    exit_cumulative, total = [], 0.0
    bonus = []
    for v in range(n):
        child_tokens = {tokens[c] for c in children[v]}
        row = rows[v]
        rho = sum(p for t, p in row.listed.items() if t not in child_tokens) + row.rest_each * (vocab - len(row.listed))
        total += prefix[v] * rho
        exit_cumulative.append(total)
        excluded = set() if bug == "full-row-bonus" else child_tokens
        bonus.append(row.sampler(excluded, rng, bug))
    paths = []
    for v in range(n):
        path, u = [], v
        while u != 0:
            path.append(tokens[u])
            u = parents[u]
        paths.append(path[::-1])
    out = []
    for _ in range(case["samples"]):
        v = min(bisect.bisect_right(exit_cumulative, rng.random() * total), n - 1)
        while exit_cumulative[v] == (exit_cumulative[v - 1] if v else 0.0):
            v -= 1  # never land on a zero-weight node through a rounding tie
        out.append(json.dumps({"case_id": case["case_id"], "accepted": paths[v], "bonus": bonus[v]()}))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bug", choices=["full-row-bonus", "first-unlisted", "top-k-bonus", "truncated-ids", "unprocessed-target",
                                          "temperature-after-softmax", "crash", "hang", "garbage"])
    parser.add_argument("--seed", type=int, default=12345)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    for line in sys.stdin:
        if not line.strip():
            continue
        case = json.loads(line)
        if args.bug == "crash":
            raise SystemExit("tev_verifier: crashing on purpose")
        if args.bug == "hang":
            time.sleep(3600)
        if args.bug == "garbage":
            print("this is not a sample", flush=True)
            continue
        print("\n".join(verify(case, rng, args.bug)), flush=True)


if __name__ == "__main__":
    main()
