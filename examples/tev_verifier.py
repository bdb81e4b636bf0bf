#!/usr/bin/env python3
"""A tree verifier that speaks tevsuite's conformance protocol: Tree Exit Verification (TEV).

Reads one case per line on stdin and writes exactly `samples` sample lines back for it:
    {"case_id": "c0", "accepted": [t1, t2, ...], "bonus": y}
For a batch case (format_version 5) each line is one round, a block per request in the batch's order:
    {"case_id": "k0", "blocks": [{"request": "c0", "accepted": [...], "bonus": y}, ...]}
Engine-shaped cases (format_version 3) give logit rows and sampling parameters: the rows are
processed as an engine does (engine_sampling.py) before the tree is verified.
A case's samples are drawn at once with numpy (exits from w, each exit's bonuses from its
residual row); --per-sample, the default where numpy is missing, draws them one at a time with the
standard library only, the same law. Run it through the suite with
    tevsuite conformance run --verifier-cmd "python3 examples/tev_verifier.py"

--bug NAME plants a known mistake, so the suite can be seen to catch it:
    full-row-bonus   the bonus after an internal exit comes from the full row (a classic bug)
  and three bugs that live in a large vocabulary's tail, where the rarest tokens are:
    first-unlisted   a sparse row's unlisted mass always lands on its first unlisted token
    top-k-bonus      the bonus is drawn from the residual's 20 most probable tokens only
                     (a top-k filter applied to the residual), renormalized
    truncated-ids    bonus tokens are drawn from ids below 32,768 only (a 16-bit index),
                     renormalized
  and those that live in how logits become the target (format_version 3 cases; engine_sampling.py):
    unprocessed-target         the sampling parameters are ignored
    temperature-after-softmax  top-k/top-p/min-p on softmax(logits), temperature applied after
    logits-as-logprobs         top-p reads exp(z / T) as if the logits were normalized log-probabilities
    softmax-no-max-fp16        exp(z / T) in float16 without subtracting the row's largest logit
    order-swapped              min_p_first and min_p_last swapped
    full-and-top-k-as-vllm     top_p_full_and_top_k processed in vLLM's order
    min-p-bonus-rows-only      min-p applied to bonus rows only: the rows of nodes with drafted
                               children (the verified rows) are processed without it
  and four that break the independence of blocks (each block's own law is right or averages to
  it; the sequence's is not), two between neighbours and two between blocks two apart:
    alternating-laws          consecutive blocks alternate between two laws, each at TV 0.05 from
                              the canonical one (mass moved to the first half of the exit order,
                              then to the second), that average to it
    counter-every-other-call  the exit uniform is drawn every other call only, as when a seeded
                              generator's offset is not advanced: blocks 2k and 2k+1 share it
    lag2-replay               two generators used in turn (one for even samples, one for odd),
                              each replaying its last exit uniform once: blocks 4k+j and 4k+j+2
                              (j < 2) share it
    lag2-mirror               the same, the replay drawing from 1 - u where the first drew from u
  and five that live in a batch's flattened layout or randomness (format_version 5 cases):
    neighbour-rows       each request reads the rows at the next request's offset
    position-off-by-one  each request reads its rows one position late (the last one its neighbour's root)
    shared-uniforms      one uniform per round draws every request's exit node (each request's law is
                         right; the requests are not independent)
    shared-bonus-uniform one uniform per round draws every request's bonus (exits independent, each
                         request's law right; the requests' blocks are not independent)
    slot-rotated         each request but the first draws its exit node from the uniform the request
                         before it used the round before (per-slot generator states rotated a slot a
                         round: the requests of a round independent, each request's rounds too)
    crash | hang | garbage   misbehave as a process (for the suite's own tests)
    short-round | swapped-requests | unknown-request   answer a batch's round without its last
                             request, with its first two requests swapped, or for a request not in it
"""
import argparse
import bisect
import json
import random
import sys
import time

from engine_sampling import logit_row, process

try:
    import numpy as np
except ImportError:  # --per-sample needs the standard library only
    np = None

TOP_K = 20  # top-k-bonus: tokens the filtered residual keeps
ALTERNATING_TV = 0.05  # alternating-laws: each block's TV from the canonical law
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

    def residual(self, excluded, bug=None):
        """The law a bonus is drawn from, without the excluded tokens (renormalized): the listed
        tokens kept and their cumulative mass, the unlisted mass, the ids the unlisted ones are
        drawn below, and the first unlisted token."""
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
        return tokens, cumulative, total, unlisted_mass, id_limit, first_unlisted

    def sampler(self, residual, rng, bug=None):
        """A function drawing a token from this row's residual (residual()'s answer)."""
        tokens, cumulative, total, unlisted_mass, id_limit, first_unlisted = residual

        def draw(shared=None):
            """A token; `shared`, when given, stands for this draw's first uniform."""
            u = (rng.random() if shared is None else shared) * (total + unlisted_mass)
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

    def sample(self, residual, rng, first, bug=None):
        """The draws of sampler(residual) for the array of first uniforms `first`, at once (numpy)."""
        tokens, cumulative, total, unlisted_mass, id_limit, first_unlisted = residual
        u = first * (total + unlisted_mass)
        out = np.empty(len(u), dtype=np.int64)
        listed = u < total
        at = np.minimum(np.searchsorted(np.array(cumulative), u[listed], side="right"), len(tokens) - 1)
        out[listed] = np.array(tokens, dtype=np.int64)[at]
        rest = np.flatnonzero(~listed)
        if bug == "first-unlisted" and len(rest):
            out[rest] = first_unlisted
            return out
        listed_ids = np.fromiter(self.listed, dtype=np.int64, count=len(self.listed))
        while len(rest):  # uniform over the unlisted tokens: redraw the listed ones
            t = rng.integers(0, id_limit, size=len(rest))
            out[rest] = t
            rest = rest[np.isin(t, listed_ids)]
        return out


def case_rows(case, bug):
    """The case's target rows, one Row per node (engine-shaped cases processed first)."""
    vocab = case["vocab"]
    if case["format_version"] == 3:
        sampling = case.get("sampling", {})
        verified = set(case["parents"][1:])  # nodes with drafted children

        def params(v):
            if bug == "min-p-bonus-rows-only" and v in verified:
                return dict(sampling, min_p=0.0)
            return sampling

        return [Row(process(logit_row(r, vocab), params(v), bug), vocab) for v, r in enumerate(case["logits"])]
    return [Row(r, vocab) for r in case["probs"]]


class Tev:
    """TEV on one tree: the exit weights w(v) = P(v) * rho(v), each node's bonus sampler and path."""

    def __init__(self, case, rows, rng, bug):
        vocab, parents, tokens = case["vocab"], case["parents"], case["tokens"]
        n = len(parents)
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
        self.exit_cumulative, self.total = [], 0.0
        self.rows, self.residuals, self.bug, self.bonus = rows, [], bug, []
        for v in range(n):
            child_tokens = {tokens[c] for c in children[v]}
            row = rows[v]
            rho = sum(p for t, p in row.listed.items() if t not in child_tokens) + row.rest_each * (vocab - len(row.listed))
            self.total += prefix[v] * rho
            self.exit_cumulative.append(self.total)
            self.residuals.append(row.residual(set() if bug == "full-row-bonus" else child_tokens, bug))
            self.bonus.append(row.sampler(self.residuals[v], rng, bug))
        self.paths = []
        for v in range(n):
            path, u = [], v
            while u != 0:
                path.append(tokens[u])
                u = parents[u]
            self.paths.append(path[::-1])

    def block(self, u, bonus_u=None):
        """The block for uniform u: the exit node by inverse CDF of w, then its bonus (from
        bonus_u when given)."""
        cumulative = self.exit_cumulative
        v = min(bisect.bisect_right(cumulative, u * self.total), len(cumulative) - 1)
        while cumulative[v] == (cumulative[v - 1] if v else 0.0):
            v -= 1  # never land on a zero-weight node through a rounding tie
        return self.paths[v], self.bonus[v](bonus_u)

    def blocks(self, rng, exit_u, bonus_u=None):
        """block() for arrays of uniforms at once (numpy): the exit nodes and their bonuses."""
        cumulative = self.exit_cumulative
        weighted_at = []  # node v, or the last node before it with a positive weight (the tie rule)
        for v in range(len(cumulative)):
            tie = v and cumulative[v] == cumulative[v - 1]
            weighted_at.append(weighted_at[v - 1] if tie else v)
        at = np.searchsorted(np.array(cumulative), exit_u * self.total, side="right")
        exits = np.array(weighted_at)[np.minimum(at, len(cumulative) - 1)]
        first = rng.random(len(exits)) if bonus_u is None else bonus_u
        bonus = np.empty(len(exits), dtype=np.int64)
        for v in np.unique(exits).tolist():
            at = np.flatnonzero(exits == v)
            bonus[at] = self.rows[v].sample(self.residuals[v], rng, first[at], self.bug)
        return exits, bonus

    def lines(self, exits, bonus, head):
        """The blocks as JSON text, one per exit: head(v) is node v's text up to its bonus."""
        heads = [head(v) for v in range(len(self.paths))]
        return [heads[v] + str(b) + "}" for v, b in zip(exits.tolist(), bonus.tolist())]


LAG2 = {"lag2-replay": lambda u: u, "lag2-mirror": lambda u: 1.0 - u}  # what block s + 2 makes of u


def exit_uniform(s, rng, bug, state):
    """Sample s's exit uniform. The serial bugs keep `state` across the calls of one case."""
    if bug == "counter-every-other-call":
        if s % 2 == 0:
            state["u"] = rng.random()
        return state["u"]
    if bug in LAG2:
        generator = s % 2  # used in turn; each replays its last uniform once
        if s % 4 < 2:
            state[generator] = rng.random()
            return state[generator]
        return LAG2[bug](state[generator])
    u = rng.random()
    if bug == "alternating-laws" and rng.random() < 2 * ALTERNATING_TV:
        # With probability 2 * TV the exit comes from one half of w's order, alternately: each
        # block's law is off by TV, and two consecutive blocks average to w.
        return u / 2 if s % 2 == 0 else 0.5 + u / 2
    return u


def exit_uniforms(count, rng, bug):
    """exit_uniform for samples 0 .. count - 1 at once (numpy)."""
    if bug == "counter-every-other-call":
        return np.repeat(rng.random((count + 1) // 2), 2)[:count]
    if bug in LAG2:
        # Blocks 4k and 4k + 1 draw; 4k + 2 and 4k + 3 reuse them.
        fresh = rng.random(2 * ((count + 3) // 4)).reshape(-1, 2)
        return np.concatenate([fresh, LAG2[bug](fresh)], axis=1).reshape(-1)[:count]
    u = rng.random(count)
    if bug == "alternating-laws":
        moved = rng.random(count) < 2 * ALTERNATING_TV
        even = np.arange(count) % 2 == 0
        u = np.where(moved, np.where(even, u / 2, 0.5 + u / 2), u)
    return u


def block_text(fields, accepted):
    """A block's JSON text up to its bonus: json.dumps(fields + accepted + bonus) is this, the
    bonus and "}"."""
    return json.dumps(dict(fields, accepted=accepted))[:-1] + ', "bonus": '


def verify(case, rng, bug, per_sample):
    tev = Tev(case, case_rows(case, bug), rng, bug)
    fields = {"case_id": case["case_id"]}
    if not per_sample:
        exits, bonus = tev.blocks(rng, exit_uniforms(case["samples"], rng, bug))
        return tev.lines(exits, bonus, lambda v: block_text(fields, tev.paths[v]))
    out, state = [], {}
    for s in range(case["samples"]):
        accepted, bonus = tev.block(exit_uniform(s, rng, bug, state))
        out.append(block_text(fields, accepted) + str(bonus) + "}")
    return out


def verify_batch(batch, rng, bug, per_sample):
    """A batch case (format_version 5): the requests' rows laid out flat, as an engine batches
    them ([total nodes, V], request k's node v at offsets[k] + v), and one block per request per
    round. The batch bugs misuse that layout or the batch's randomness."""
    requests = batch["requests"]
    flat, offsets = [], []
    for request in requests:
        offsets.append(len(flat))
        flat += case_rows(request, bug)
    tevs, fields = [], []
    for k, request in enumerate(requests):
        n = len(request["parents"])
        start = offsets[k]
        if bug == "neighbour-rows":
            start = offsets[(k + 1) % len(requests)]  # the next request's offset
        if bug == "position-off-by-one":
            start += 1
        rows = [flat[(start + v) % len(flat)] for v in range(n)]
        tevs.append(Tev(request, rows, rng, bug))
        fields.append({"request": "nobody" if bug == "unknown-request" and k == 0 else request["case_id"]})
    rounds = batch["samples"]
    if per_sample:
        blocks = [[] for _ in tevs]
        used_before = None  # slot-rotated: the exit uniforms of the round before, per request
        for _ in range(rounds):
            shared = rng.random()  # shared-uniforms: one uniform for every request's exit
            shared_bonus = rng.random() if bug == "shared-bonus-uniform" else None  # ... or bonus
            used = []
            for k, tev in enumerate(tevs):
                u = shared if bug == "shared-uniforms" else rng.random()
                if bug == "slot-rotated" and k > 0 and used_before is not None:
                    u = used_before[k - 1]
                used.append(u)
                accepted, bonus = tev.block(u, shared_bonus)
                blocks[k].append(block_text(fields[k], accepted) + str(bonus) + "}")
            used_before = used
    else:
        shared = rng.random(rounds)
        shared_bonus = rng.random(rounds) if bug == "shared-bonus-uniform" else None
        blocks, used = [], None
        for k, tev in enumerate(tevs):
            u = shared if bug == "shared-uniforms" else rng.random(rounds)
            if bug == "slot-rotated" and k > 0:
                u[1:] = used[:-1]  # request k - 1's exit uniform of the round before
            used = u
            exits, bonus = tev.blocks(rng, u, shared_bonus)
            blocks.append(tev.lines(exits, bonus, lambda v: block_text(fields[k], tev.paths[v])))
    out = []
    for round_blocks in zip(*blocks):
        round_blocks = list(round_blocks)
        if bug == "short-round":
            round_blocks.pop()
        if bug == "swapped-requests" and len(round_blocks) > 1:
            round_blocks[0], round_blocks[1] = round_blocks[1], round_blocks[0]
        out.append(json.dumps({"case_id": batch["case_id"]})[:-1] + ', "blocks": [' + ", ".join(round_blocks) + "]}")
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bug", choices=["full-row-bonus", "first-unlisted", "top-k-bonus", "truncated-ids", "unprocessed-target",
                                          "temperature-after-softmax", "logits-as-logprobs", "softmax-no-max-fp16", "order-swapped",
                                          "full-and-top-k-as-vllm", "min-p-bonus-rows-only", "alternating-laws", "counter-every-other-call", "lag2-replay",
                                          "lag2-mirror", "neighbour-rows",
                                          "position-off-by-one", "shared-uniforms", "shared-bonus-uniform", "slot-rotated", "short-round",
                                          "swapped-requests", "unknown-request", "crash", "hang", "garbage"])
    parser.add_argument("--seed", type=int, default=12345)
    parser.add_argument("--per-sample", action="store_true",
                        help="draw the samples one at a time, standard library only (the default without numpy)")
    args = parser.parse_args()
    per_sample = args.per_sample or np is None
    rng = random.Random(args.seed) if per_sample else np.random.default_rng(args.seed)
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
        answer = verify_batch if case["format_version"] == 5 else verify
        print("\n".join(answer(case, rng, args.bug, per_sample)), flush=True)


if __name__ == "__main__":
    main()
