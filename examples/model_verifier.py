#!/usr/bin/env python3
"""A verifier that drafts from q and verifies with p, speaking tevsuite's model-case protocol.

Reads one model case (format_version 2, or 4: logit rows and the target's and the drafter's
sampling parameters, processed as an engine does by engine_sampling.py) per line on stdin and,
for each of its `samples`, drafts a token tree from q under the case's drafting hint, verifies it,
and writes the emitted block:
    {"case_id": "m0", "accepted": [t1, ...], "bonus": y, "tree": {"parents": [...], "tokens": [...]}}
Standard library only. Run it through the suite with
    tevsuite conformance run --model-cases --verifier-cmd "python3 examples/model_verifier.py"

Drafting follows the case's "drafting" hint (i.i.d. with k = 2 when a case has none; --policy and
--width override it) and picks the verification that is exact for it:
    chain                speculative sampling: accept x with min(1, p(x)/q(x)), else the bonus
                         from norm(max(0, p - q))
    independent-chains   multi-draft recursive rejection sampling with replacement (SpecInfer):
    iid                  each draft in turn against the running residual p~, p~ <- norm(max(0, p~ - q))
    without-replacement  the same, and q~ loses each rejected token (renormalized)
    top-k                the drafts are deterministic, so verification is target-only: the same
                         walk with q~ a point mass on the draft (sequential residual)

--bug NAME plants a known mistake, so the suite can be seen to catch it:
    residual-not-renormalized  p~ <- max(0, p~ - q) without renormalizing before the next test
    no-min                     chains: one uniform per block against the running product of
                               p/q, ratios not clipped at 1 (a vectorized speculative sampler)
    bonus-from-p               after the drafts of a node are rejected, the bonus comes from p
    shared-uniform             one uniform per node shared by every sibling's test
  and two in how logits become p and q (format_version 4 cases):
    unprocessed-target         the target's sampling parameters are ignored
    raw-q-ratio                drafts come from the processed q, but the acceptance ratio and the
                               residual use softmax(q logits) without the drafter's parameters
    crash | hang | garbage     misbehave as a process (for the suite's own tests)
"""
import argparse
import json
import random
import sys
import time

from engine_sampling import logit_row, process


class Row:
    """A dense or sparse (listed tokens + the rest spread uniformly) row, as a dense list."""

    @staticmethod
    def dense(row, vocab):
        if isinstance(row, list):
            total = sum(row)
            return [x / total for x in row]
        listed = dict(zip(row["tokens"], row["probs"]))
        unlisted = vocab - len(listed)
        rest = max(0.0, 1.0 - sum(listed.values())) / unlisted if unlisted else 0.0
        out = [listed.get(t, rest) for t in range(vocab)]
        total = sum(out)
        return [x / total for x in out]


def categorical(weights, rng):
    """A token drawn with probability proportional to weights (which must have positive mass)."""
    total = sum(weights)
    u = rng.random() * total
    last = 0
    for t, w in enumerate(weights):
        if w > 0.0:
            last = t
            u -= w
            if u < 0.0:
                return t
    return last  # rounding at the end of the cumulative sum: the last positive-weight token


class Model:
    def __init__(self, case, bug):
        self.vocab = case["vocab"]
        self.depth = case["depth"]
        self.p, self.q = {}, {}
        self.q_ratio = self.q  # the q the acceptance ratio reads: the drafted one but for raw-q-ratio
        if case["format_version"] == 4:
            target = case.get("sampling", {}).get("target", {})
            drafter = case.get("sampling", {}).get("drafter", {})
            if bug == "raw-q-ratio":
                self.q_ratio = {}
        for r in case["rows"]:
            key = tuple(r["prefix"])
            if case["format_version"] == 4:
                self.p[key] = process(logit_row(r["p_logits"], self.vocab), target, bug)
                q_logits = logit_row(r["q_logits"], self.vocab)
                self.q[key] = process(q_logits, drafter)
                if bug == "raw-q-ratio":
                    self.q_ratio[key] = process(q_logits, {})
            else:
                self.p[key] = Row.dense(r["p"], self.vocab)
                self.q[key] = Row.dense(r["q"], self.vocab)


def draft(model, prefix, policy, width, chains, rng):
    """The drafts of the node after `prefix`, in draw order (repeats kept with replacement)."""
    if len(prefix) >= model.depth:
        return []
    q = model.q[prefix]
    if policy == "top-k":
        order = sorted(range(model.vocab), key=lambda t: (-q[t], t))
        return [t for t in order if q[t] > 0.0][:width]
    count = 1 if policy == "chain" else chains if policy == "independent-chains" and prefix else width
    remaining, drafts = list(q), []
    for _ in range(count):
        if sum(remaining) <= 0.0:
            break
        x = categorical(remaining, rng)
        drafts.append(x)
        if policy == "without-replacement":
            remaining[x] = 0.0
    return drafts


def subtract(target, proposal, renormalize):
    residual = [max(0.0, a - b) for a, b in zip(target, proposal)]
    total = sum(residual)
    if renormalize and total > 0.0:
        residual = [x / total for x in residual]
    return residual


def one_sample(model, policy, width, rng, bug):
    """Drafts lazily (only the nodes the walk enters) and verifies; returns (accepted, bonus, tree)."""
    prefix, parents, tokens = (), [-1], [None]
    node, chains = 0, width
    block_uniform, product = rng.random(), 1.0  # used only by the no-min bug
    while True:
        drafts = draft(model, prefix, policy, width, chains, rng)
        children = {}
        for x in drafts:  # the token tree: each drafted prefix once
            if x not in children:
                parents.append(node)
                tokens.append(x)
                children[x] = len(tokens) - 1
        p, q = model.p[prefix], model.q_ratio[prefix]
        target, proposal = list(p), list(q)
        shared = rng.random() if bug == "shared-uniform" else None
        accepted, rejected = None, False
        for x in drafts:
            if policy == "top-k":
                proposal = [1.0 if t == x else 0.0 for t in range(model.vocab)]
            if bug == "no-min" and policy == "chain":
                product *= p[x] / q[x]
                accept = block_uniform < product
            else:
                ratio = target[x] / proposal[x] if proposal[x] > 0.0 else 0.0
                accept = (shared if shared is not None else rng.random()) < min(1.0, ratio)
            if accept:
                accepted = x
                break
            rejected = True
            target = subtract(target, proposal, renormalize=bug != "residual-not-renormalized")
            if policy in ("without-replacement", "top-k"):
                proposal[x] = 0.0
                total = sum(proposal)
                if total > 0.0:
                    proposal = [v / total for v in proposal]
        if accepted is None:
            bonus_row = p if bug == "bonus-from-p" and rejected else target
            if sum(bonus_row) <= 0.0:
                bonus_row = p  # an unnormalized residual emptied by the bug: the engine falls back to p
            tree = {"parents": parents, "tokens": tokens}
            return list(prefix), categorical(bonus_row, rng), tree
        chains = drafts.count(accepted)
        node = children[accepted]
        prefix = prefix + (accepted,)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bug", choices=["residual-not-renormalized", "no-min", "bonus-from-p", "shared-uniform", "unprocessed-target",
                                          "raw-q-ratio", "crash", "hang", "garbage"])
    parser.add_argument("--policy", choices=["chain", "independent-chains", "iid", "without-replacement", "top-k"])
    parser.add_argument("--width", type=int)
    parser.add_argument("--no-tree", action="store_true", help="do not report the drafted tree")
    parser.add_argument("--seed", type=int, default=12345)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    for line in sys.stdin:
        if not line.strip():
            continue
        case = json.loads(line)
        if args.bug == "crash":
            raise SystemExit("model_verifier: crashing on purpose")
        if args.bug == "hang":
            time.sleep(3600)
        if args.bug == "garbage":
            print("this is not a sample", flush=True)
            continue
        hint = case.get("drafting", {"policy": "iid", "width": 2})
        policy = args.policy or hint["policy"]
        width = args.width or hint.get("width", 1)
        model = Model(case, args.bug)
        out = []
        for _ in range(case["samples"]):
            accepted, bonus, tree = one_sample(model, policy, width, rng, args.bug)
            sample = {"case_id": case["case_id"], "accepted": accepted, "bonus": bonus}
            if not args.no_tree:
                sample["tree"] = tree
            out.append(json.dumps(sample))
        print("\n".join(out), flush=True)


if __name__ == "__main__":
    main()
