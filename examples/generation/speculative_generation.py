"""A speculative generation loop as an engine writes it, in numpy, batched over generations.

Each round drafts a chain of K = 2 tokens from the drafter, verifies them with the target by
speculative sampling (a draft x is accepted with probability min(1, p(x) / q(x)); at the first
rejection the token is drawn from the residual max(p - q, 0) normalized; when every draft is
accepted the bonus is drawn from the last row) and appends the block one token at a time, ending
the generation at the first EOS or stop id or at max_new_tokens. Every row, the drafter's and the
target's, goes through the request's processors in its engine's semantics (vLLM's, transformers'
or llama.cpp's), computed with the tokens generated so far and the block's drafts before it.

``speculative_loop()`` is a ``loop_batch`` for ``tevsuite.check_generation``, exact on every
default request; ``speculative_loop(bug)`` plants one of ``BUGS``, mistakes engines have made in
a generation's bookkeeping.
"""
import numpy as np

K = 2  # drafts a round
GREEDY_TEMPERATURE = 1e-5  # below it the engines sample greedily (vLLM's _SAMPLING_EPS)

BUGS = {
    "eos_mid_block_emits_rest": "an EOS accepted mid-block, the rest of the block emitted after it",
    "penalties_ignored_on_verified_rows": "the target's rows verified without the penalties",
    "min_tokens_not_in_verifier": "min_tokens applied to the drafter's rows, not to the target's",
}


# --- the request's processors, on rows of raw logits (n, V) ---

def token_counts(tokens, vocab):
    """(n, V): how often each token occurs in each row of tokens (n, L); -1 is no token."""
    return (tokens[:, :, None] == np.arange(vocab)).sum(axis=1)


def grammar_mask(grammar, output):
    """(n, V): the tokens the grammar allows after each row of output, walked from its start."""
    state = np.full(len(output), grammar.start)
    for column in output.T:
        on = column >= 0
        state[on] = grammar.next[state[on], column[on]]
    return grammar.allowed[state].astype(bool)


def suppress_stops(r, x, generated):
    """min_tokens: the ends of a generation forbidden while fewer tokens are generated;
    transformers' min_new_tokens forbids only the EOS ids, vLLM's min_tokens the stop ids too."""
    ends = np.array(r.eos if r.semantics == "hf" else r.eos + r.stop, dtype=np.int64)
    x[np.ix_(generated < r.min_tokens, ends)] = -np.inf


def penalize(r, x, output, prompt):
    """Repetition (a positive logit divided by it, a negative one multiplied), frequency and
    presence penalties (logit -= f * count + pr) over the tokens each engine counts."""
    vocab = x.shape[1]
    if r.semantics == "llama_cpp":  # one window for all three: the last penalty_last_n of prompt ‖ output
        history = np.hstack([np.broadcast_to(prompt, (len(output), len(prompt))), output])
        length = (history >= 0).sum(axis=1)
        window = length if r.penalty_last_n < 0 else np.minimum(length, r.penalty_last_n)
        in_window = np.arange(history.shape[1]) >= (length - window)[:, None]
        seen = counted = token_counts(np.where(in_window, history, -1), vocab)
    else:  # repetition over prompt ‖ output, frequency and presence over the output
        counted = token_counts(output, vocab)
        seen = counted + np.bincount(prompt, minlength=vocab)
    finite = np.isfinite(x)
    repeated = (seen > 0) & finite
    x[repeated] = np.where(x[repeated] > 0, x[repeated] / r.repetition_penalty, x[repeated] * r.repetition_penalty)
    present = (counted > 0) & finite
    x[present] -= (r.frequency_penalty * counted + r.presence_penalty)[present]


def processed_logits(r, logits, output, prompt, penalties=True, min_tokens=True):
    """The logits processors after each row of output (n, L; -1 after its tokens: those generated
    before the row, drafts included) in the semantics' order: the grammar's mask first, then vLLM
    suppresses early stops, adds the bias and penalizes; transformers and llama.cpp bias, penalize,
    then suppress. `penalties` and `min_tokens` False leave those processors out (the bugs)."""
    x = np.array(logits, dtype=np.float64)
    generated = (output >= 0).sum(axis=1)
    if r.grammar is not None:
        x[~grammar_mask(r.grammar, output)] = -np.inf
    if min_tokens and r.semantics == "vllm":
        suppress_stops(r, x, generated)
    for token, bias in r.logit_bias.items():
        x[:, token] += bias
    if penalties:
        penalize(r, x, output, prompt)
    if min_tokens and r.semantics != "vllm":
        suppress_stops(r, x, generated)
    return x


# --- the sampling parameters ---

def softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def min_p_filter(r, p, logits):
    if r.min_p > 0:
        p[p < r.min_p * p.max(axis=1, keepdims=True)] = 0.0


def top_k_filter(r, p, logits):
    if 0 < r.top_k < p.shape[1]:
        p[logits < np.sort(logits, axis=1)[:, -r.top_k][:, None]] = 0.0  # ties at the k-th logit kept


def top_p_filter(r, p, logits):
    """Tokens by descending mass (ties by id) kept while the mass before them is below top_p."""
    if r.top_p < 1:
        ranked = np.argsort(-p, axis=1, kind="stable")
        mass = np.take_along_axis(p, ranked, axis=1)
        before = np.cumsum(mass, axis=1) - mass
        np.put_along_axis(p, ranked, np.where(before >= r.top_p * mass.sum(axis=1, keepdims=True), 0.0, mass), axis=1)


FILTERS = {"vllm": (min_p_filter, top_k_filter, top_p_filter), "hf": (top_k_filter, top_p_filter, min_p_filter),
           "llama_cpp": (top_k_filter, top_p_filter, min_p_filter)}


def sampling_law(r, x):
    """The law each row (n, V) of processed logits is sampled from. vLLM and transformers filter the
    tempered distribution; llama.cpp's filters choose the kept tokens untempered and the
    temperature reshapes those."""
    if r.temperature < GREEDY_TEMPERATURE:
        return np.eye(x.shape[1])[np.argmax(x, axis=1)]
    p = softmax(x if r.semantics == "llama_cpp" else x / r.temperature)
    for f in FILTERS[r.semantics]:
        f(r, p, x)
    if r.semantics == "llama_cpp":
        p = np.where(p > 0, softmax(x / r.temperature), 0.0)
    return p / p.sum(axis=1, keepdims=True)


def draw(p, rng):
    """One token from each row of p (n, V); the uniform is scaled by the row's total, so rounding
    never lands past its last token of positive mass."""
    cdf = np.cumsum(p, axis=1)
    return (cdf <= rng.random(len(p))[:, None] * cdf[:, -1:]).sum(axis=1)


# --- the loop ---

def laws(case, model, output, **processing):
    """The law of the next token after prompt ‖ each row of output (n, L; -1 after its tokens):
    `model`'s raw logits (case.target or case.drafter) through the processors and the sampling
    parameters, computed once per distinct row, as an engine's prefix cache serves them."""
    r = case.request
    prompt = np.array(r.prompt, dtype=np.int64)
    distinct, inverse = np.unique(output, axis=0, return_inverse=True)
    logits = model([np.concatenate([prompt, row[row >= 0]]) for row in distinct])
    return sampling_law(r, processed_logits(r, logits, distinct, prompt, **processing))[inverse.reshape(-1)]


def speculative_block(case, output, length, rng, bug=None):
    """One round for each row of output (m, W; its first `length` tokens generated): K drafts from
    the drafter, verified in one target call of K + 1 rows. Returns the blocks (m, K + 1), -1 after
    each one's last token."""
    m = len(output)
    rows = np.arange(m)
    sequence = output.copy()  # the output, then this round's drafts

    def before(d):  # the tokens before draft (or bonus) position d
        return np.where(np.arange(sequence.shape[1]) < (length + d)[:, None], sequence, -1)

    q, drafts = [], []
    for d in range(K):
        q.append(laws(case, case.drafter, before(d)))
        drafts.append(draw(q[d], rng))
        sequence[rows, length + d] = drafts[d]
    verified = dict(penalties=bug != "penalties_ignored_on_verified_rows", min_tokens=bug != "min_tokens_not_in_verifier")
    p = laws(case, case.target, np.vstack([before(d) for d in range(K + 1)]), **verified).reshape(K + 1, m, -1)
    block = np.full((m, K + 1), -1)
    verifying = np.ones(m, dtype=bool)  # every draft so far accepted
    for d in range(K):
        x = drafts[d]
        accepted = verifying & (rng.random(m) * q[d][rows, x] < p[d][rows, x])
        block[accepted, d] = x[accepted]
        rejected = verifying & ~accepted
        residual = np.maximum(p[d][rejected] - q[d][rejected], 0.0)
        # A residual without mass means p = q on the row (no rejection but by rounding): draw from p.
        block[rejected, d] = draw(np.where(residual.sum(axis=1, keepdims=True) > 0, residual, p[d][rejected]), rng)
        verifying = accepted
    block[verifying, K] = draw(p[K][verifying], rng)
    return block


def generate(case, n, rng, bug=None):
    """n generations of the request: (n, max_new_tokens) tokens, -1 after each one's last."""
    r = case.request
    ends = r.eos + r.stop
    output = np.full((n, r.max_new_tokens + K), -1)  # room for a round's drafts past the last token
    length = np.zeros(n, dtype=np.int64)
    live = np.arange(n)
    while live.size:
        block = speculative_block(case, output[live], length[live], rng, bug)
        ended = np.zeros(live.size, dtype=bool)
        appending = np.ones(live.size, dtype=bool)
        for j in range(K + 1):  # one token at a time: the stop checks see every token of the block
            go = appending & (block[:, j] >= 0)
            at = live[go]
            output[at, length[at]] = block[go, j]
            length[at] += 1
            ended |= go & np.isin(block[:, j], ends)
            appending = go & (length[live] < r.max_new_tokens)
            if bug != "eos_mid_block_emits_rest":
                appending &= ~ended
        live = live[~ended & (length[live] < r.max_new_tokens)]
    return output[:, :r.max_new_tokens]


def speculative_loop(bug=None):
    """A loop_batch(case, n, rng) for tevsuite.check_generation, with one of BUGS planted or none."""
    if bug is not None and bug not in BUGS:
        raise ValueError(f"unknown bug {bug!r}: one of {', '.join(BUGS)}")

    def loop_batch(case, n, rng):
        return generate(case, n, rng, bug)
    return loop_batch
