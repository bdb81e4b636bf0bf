#!/usr/bin/env python3
"""A generation engine for ``tevsuite conformance run --generation``: reads one generation case a
line on stdin (format_version 6, docs/commands/conformance.md), runs ``samples`` whole generations
of its request with the speculative loop of examples/generation (K = 2 drafts a round, speculative
sampling, the request's processors in its semantics) on the case's tabulated target and drafter,
its generator seeded with the case's ``seed``, and prints one line per generation:
``{"case_id": ..., "tokens": [...]}``.

``--bug NAME`` plants one of the loop's bugs (``speculative_generation.BUGS``), or answers badly:
a token outside the vocabulary, a ragged answer (the tokens nested), a crash after the first line,
or a hang.

    tevsuite conformance run --generation --verifier-cmd "python3 examples/generation_engine.py"
"""
import argparse
import json
import os
import sys
import time
from types import SimpleNamespace

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "generation"))
from speculative_generation import BUGS, generate  # noqa: E402

ANSWER_BUGS = {
    "out-of-vocabulary": "the first token of the first generation replaced by V",
    "ragged": "the first generation's tokens nested in a list",
    "crash": "exits after the first answer",
    "hang": "stops answering after the first answer",
}


class TabulatedModel:
    """Raw logits after each sequence from a ((V + 1)^c, V) table: the row named by the sequence's
    last c tokens as base-(V + 1) digits, the oldest first; before the sequence's start a digit
    reads 0, token t reads t + 1."""

    def __init__(self, table, vocab, context):
        self.table = np.asarray(table, dtype=np.float64)
        self.vocab, self.context = vocab, context

    def __call__(self, sequences):
        index = np.zeros(len(sequences), dtype=np.int64)
        for i, s in enumerate(sequences):
            for back in range(self.context, 0, -1):
                index[i] = index[i] * (self.vocab + 1) + (s[len(s) - back] + 1 if len(s) >= back else 0)
        return self.table[index]


def read_case(line):
    """The case as examples/generation's loop reads one: ``request`` with the engine's parameter
    names, ``target`` and ``drafter`` giving raw logits after each sequence."""
    c = json.loads(line)
    r, sampling = c["request"], c["request"].get("sampling", {})
    grammar = r.get("grammar")
    request = SimpleNamespace(
        semantics=r["semantics"], prompt=r["prompt"],
        temperature=sampling.get("temperature", 1.0), top_k=sampling.get("top_k", 0),
        top_p=sampling.get("top_p", 1.0), min_p=sampling.get("min_p", 0.0),
        repetition_penalty=r["repetition_penalty"], frequency_penalty=r["frequency_penalty"],
        presence_penalty=r["presence_penalty"], penalty_last_n=r["penalty_last_n"],
        logit_bias={int(t): b for t, b in r["logit_bias"]}, min_tokens=r["min_tokens"],
        eos=r["eos"], stop=r["stop"], max_new_tokens=r["max_new_tokens"],
        grammar=None if grammar is None else SimpleNamespace(
            start=grammar["start"], allowed=np.array(grammar["allowed"], dtype=np.uint8),
            next=np.array(grammar["next"], dtype=np.int64)))
    vocab, context = c["vocab"], c["context"]
    return c, SimpleNamespace(request=request, vocab=vocab,
                              target=TabulatedModel(c["target_logits"], vocab, context),
                              drafter=TabulatedModel(c["draft_logits"], vocab, context))


def answers(c, case, bug):
    """The case's generations as lines, every one drawn in one batch from the case's seed."""
    loop_bug = bug if bug in BUGS else None
    rows = generate(case, c["samples"], np.random.default_rng(c["seed"]), loop_bug)
    for g, row in enumerate(rows):
        tokens = [int(t) for t in row if t >= 0]
        if g == 0 and bug == "out-of-vocabulary":
            tokens[0] = case.vocab
        yield {"case_id": c["case_id"], "tokens": [tokens] if g == 0 and bug == "ragged" else tokens}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bug", choices=[*BUGS, *ANSWER_BUGS])
    bug = parser.parse_args().bug
    for line in sys.stdin:
        if not line.strip():
            continue
        c, case = read_case(line)
        for g, answer in enumerate(answers(c, case, bug)):
            print(json.dumps(answer), flush=g == 0)
            if g == 0 and bug == "crash":
                sys.exit(3)
            if g == 0 and bug == "hang":
                time.sleep(3600)
        sys.stdout.flush()


if __name__ == "__main__":
    main()
