"""llama.cpp's server-side speculative verification, written from its algorithm.

Engine: llama.cpp (ggml-org/llama.cpp), ``common/sampling.cpp``,
``common_sampler_sample_and_accept_n(gsmpl, ctx, idxs, draft)``, commit 3b3f5fed. For each draft
position the target's row is sampled with the full sampler chain and the token fed to the
sampler's history; the walk stops after the first sample that differs from the draft; if every
draft matched, one more token is sampled from the last row. Target-only pre-draw-and-follow.

The sampler chain here is llama.cpp's default order of the parameters tevsuite's cases have:
top-k, top-p, min-p, then temperature, then the seeded draw (llama.cpp's own chain also has
penalties, DRY, typical, XTC, ... off by default). Temperature comes after the filters, so on
tempered engine-shaped cases its target is not tevsuite's (temperature first).
"""
import numpy as np

import offers


class CommonSampler:
    """A sampler chain over one (V) logit row with its own seeded generator (llama.cpp's dist
    sampler keeps a std::mt19937; numpy's MT19937 here)."""

    def __init__(self, seed, top_k=0, top_p=1.0, min_p=0.0, temperature=1.0):
        self.rng = np.random.Generator(np.random.MT19937(seed))
        self.top_k, self.top_p, self.min_p, self.temperature = top_k, top_p, min_p, temperature
        self.history = []

    def sample(self, logits):
        logits = np.asarray(logits, dtype=np.float64).copy()
        if self.temperature <= 0:
            return int(np.argmax(logits))
        if 0 < self.top_k < logits.size:
            logits[logits < np.sort(logits)[-self.top_k]] = -np.inf
        if self.top_p < 1.0:
            probs = np.exp(logits - logits.max())
            probs /= probs.sum()
            order = np.argsort(-probs, kind="stable")
            before = np.cumsum(probs[order]) - probs[order]
            logits[order[before >= self.top_p]] = -np.inf
        if self.min_p > 0.0:
            probs = np.exp(logits - logits.max())
            logits[probs < self.min_p] = -np.inf  # relative to the largest, whose exp is 1
        weights = np.exp((logits - logits.max()) / self.temperature)
        return offers.inverse_cdf(weights, self.rng.random())

    def accept(self, token):
        self.history.append(token)


class Context:
    """The target's batch of logits, one row per index (llama_get_logits_ith)."""

    def __init__(self, logits):
        self.logits = logits

    def get_logits_ith(self, i):
        return self.logits[i]


def common_sampler_sample_and_accept_n(gsmpl, ctx, idxs, draft):
    """idxs: K + 1 row indices of ctx; draft: K tokens. Returns 1 .. K + 1 token ids."""
    result = []
    i = 0
    while i < len(draft):
        token = gsmpl.sample(ctx.get_logits_ith(idxs[i]))
        gsmpl.accept(token)
        result.append(token)
        if draft[i] != token:
            break
        i += 1
    if i == len(draft):
        token = gsmpl.sample(ctx.get_logits_ith(idxs[i]))
        gsmpl.accept(token)
        result.append(token)
    return result


def llamacpp_chain(draft_token_ids, target_logits, sampling_metadata):
    """common_sampler_sample_and_accept_n on one request of tevsuite's padded layout, its
    sampler seeded from numpy's global generator (seeded by the adapter)."""
    import torch
    s = sampling_metadata
    sampler = CommonSampler(int(np.random.randint(2**31)), top_k=int(s.top_k[0]), top_p=float(s.top_p[0]), min_p=float(s.min_p[0]),
                            temperature=float(s.temperature[0]))
    draft = [int(t) for t in draft_token_ids[0]]
    tokens = common_sampler_sample_and_accept_n(sampler, Context(target_logits[0].double().numpy()), list(range(len(draft) + 1)), draft)
    out = torch.full((1, len(draft) + 1), -1, dtype=torch.int64)
    out[0, :len(tokens)] = torch.tensor(tokens)
    return out


ENGINE = "llama.cpp"
ROUTINE = "common_sampler_sample_and_accept_n"
SOURCE = "ggml-org/llama.cpp common/sampling.cpp common_sampler_sample_and_accept_n"
COMMIT = "3b3f5fed"
STATED = "exact by design"
NOT_RUN = ("engine-shaped cases: llama.cpp's chain applies temperature after top-k, top-p and min-p, another target than "
           "tevsuite's (temperature first); a difference of parameter semantics, not of verification.")


def runs():
    from tevsuite import adapters
    return {"default (target-only)": lambda b: adapters.check_chain(llamacpp_chain, draft_probs=False, target="logits", randomness="global",
                                                                    max_batch=1, **b["tree"])}
