"""llama.cpp's speculative example (examples/speculative), one draft sequence, written from its
algorithm.

Engine: llama.cpp (ggml-org/llama.cpp), ``examples/speculative/speculative.cpp``, ``main``, commit
fe068616. Drafting (lines 484-591): at each of ``n_draft`` steps the draft model's sampler chain
runs and the drafted token is ``cur_p->data[is].id`` of the candidates sorted by probability
(line 552): for the one sequence (is = 0) the draft's most probable token, not the token its
sampler drew. Verification with temperature > 0 (lines 246-371): the target's candidates
``dist_tgt`` after its chain; the draft token x is accepted when r <= p(x) / q(x), r uniform in
[0, 1) (lines 274, 293); on a rejection the target's candidates become max(p - q, 0) renormalized
(lines 306-337: both candidate lists sorted by id and subtracted entry by entry) and, no sequence
left, the token is drawn from them with ``std::discrete_distribution`` (lines 355-371); after the
last draft the same draw on the unmodified target candidates gives the bonus. p/q acceptance
assumes x was drawn from q; here it is q's argmax, so the emitted tokens are not distributed as
the target's: not exact (for greedy verification, temperature <= 0, the argmax drafts are exact).

With no sampling parameters both candidate lists hold the whole vocabulary, so the entry-by-entry
subtraction pairs the same ids; with truncating samplers (top-k, top-p, min-p) it may not.
"""
import itertools

import numpy as np

import offers


class SingleSequence:
    """The example's verification of one draft sequence on a model case (target p, draft q, depth
    D), its drafts the argmax of q at each step; ``rng.uniform()`` stands for ``u_dist(rng)`` and
    for the discrete distribution's draw (inverse CDF)."""

    def __init__(self):
        self.chains = {}

    def chain(self, case):
        """(drafts, p rows [D + 1, V], q rows [D, V]) along the argmax-of-q chain, kept per case."""
        if case.id not in self.chains:
            drafts, p_rows, q_rows = [], [], []
            for _ in range(case.depth):
                q = np.asarray(case.q(drafts), dtype=np.float64)
                p_rows.append(np.asarray(case.p(drafts), dtype=np.float64))
                q_rows.append(q)
                drafts.append(int(np.argmax(q)))  # cur_p->data[0]: the most probable candidate
            p_rows.append(np.asarray(case.p(drafts), dtype=np.float64))
            self.chains = {case.id: (drafts, np.array(p_rows), np.array(q_rows))}
        return self.chains[case.id]

    def __call__(self, case, rng):
        drafts, p_rows, q_rows = self.chain(case)
        for i, x in enumerate(drafts):
            p, q = p_rows[i], q_rows[i]
            if rng.uniform() <= p[x] / q[x]:
                continue
            residual = np.maximum(p - q, 0.0)
            return drafts[:i], offers.inverse_cdf(residual / residual.sum(), rng.uniform())
        return drafts, offers.inverse_cdf(p_rows[-1], rng.uniform())


def exact_laws(case):
    """(the block law completed with p, p's law) over the V^(D + 1) token sequences, in
    itertools.product order: the drafts are fixed (q's argmax chain), so a block ends at the first
    position j where the sequence leaves them, with mass prod_{k<j} a_k (1 - a_j) times the
    residual's mass on the token there (a_k = min(1, p(x_k) / q(x_k))), completed with p; or after
    all D drafts, with the bonus from p."""
    drafts, p_rows, q_rows = SingleSequence().chain(case)
    d, v = case.depth, case.vocab
    accept = np.minimum(1.0, np.array([p_rows[i][x] / q_rows[i][x] for i, x in enumerate(drafts)]))
    residuals = []
    for i in range(d):
        r = np.maximum(p_rows[i] - q_rows[i], 0.0)
        residuals.append(r / r.sum() if r.sum() > 0 else r)
    rows = {}

    def p_row(prefix):
        if prefix not in rows:
            rows[prefix] = np.asarray(case.p(list(prefix)), dtype=np.float64)
        return rows[prefix]

    routine, target = [], []
    for seq in itertools.product(range(v), repeat=d + 1):
        law = 1.0
        for i in range(d + 1):
            law *= p_row(seq[:i])[seq[i]]
        j = next((i for i in range(d) if seq[i] != drafts[i]), d)
        mass = float(np.prod(accept[:j]))
        if j < d:
            mass *= (1.0 - accept[j]) * residuals[j][seq[j]]
            for i in range(j + 1, d + 1):  # completed with p
                mass *= p_row(seq[:i])[seq[i]]
        else:
            mass *= p_rows[d][seq[d]]
        routine.append(mass)
        target.append(law)
    return np.array(routine), np.array(target)


def exact_tv(case):
    """The exact TV of one block's law, completed with p to H = D + 1 tokens as tevsuite completes a
    model case's blocks, from p's H-token law (exact_laws)."""
    routine, target = exact_laws(case)
    return 0.5 * float(np.abs(routine - target).sum())


ENGINE = "llama.cpp"
ROUTINE = "examples/speculative (one draft sequence, temperature > 0)"
SOURCE = ("ggml-org/llama.cpp examples/speculative/speculative.cpp:246-371 (stochastic verification), :484-591 (drafting; "
          "the drafted token at :552)")
COMMIT = "fe068616"
STATED = "p/q acceptance (exact where the drafts are drawn from q; they are q's argmax)"
FINDINGS = ("the example drafts cur_p->data[0], the draft model's most probable candidate after its chain "
            "(examples/speculative/speculative.cpp:552 at fe068616), and verifies it with r <= p(x) / q(x) (:293) and the "
            "residual max(p - q, 0) (:306-337) as if it had been drawn from q: the emitted law is not the target's.")
CAUSES = {"design": ("examples/speculative/speculative.cpp:552 at fe068616 (the drafted token is cur_p->data[is].id, the sorted "
                     "candidates' first for one sequence) with :293 (p/q acceptance) and :306-337 (the residual)",
                     "not reported", "examples/gallery/findings/llamacpp_argmax_drafts.py")}


def runs():
    import tevsuite
    return {"model (one draft sequence)": lambda b: tevsuite.check_model(verify=SingleSequence(), **b["model"])}
