"""The hand-made case the reproducers here share, and a verifier's exact TV on it.

A root with two drafted children (tokens 0 and 1) over V = 5: the smallest tree on which a
verifier's target rows decide both what it accepts and the token after. The exact TV is
tevsuite's enumeration of the verifier's law (``tevsuite.exact_law``) against the canonical law
of the reference rows: no sampling, no tolerance.
"""
import numpy as np

import tevsuite

PARENTS = np.array([-1, 0, 0], dtype=np.int32)
TOKENS = np.array([-1, 0, 1], dtype=np.int32)


def softmax(logits):
    z = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return z / z.sum(axis=-1, keepdims=True)


def walk(rows):
    """A verifier exact against rows (3, V): the token after each node drawn from its row, a
    drafted child's continuing the walk (what a target-only tree or chain sampler samples)."""

    def verify(case, draws):
        node, accepted = 0, []
        while True:
            token = int(draws.next_token(node, rows[node]))
            child = [i for i in range(1, 3) if PARENTS[i] == node and TOKENS[i] == token]
            if not child:
                return accepted, token
            node = child[0]
            accepted.append(token)

    return verify


def exact_tv(verify, reference):
    """verify's exact TV from the canonical law of the reference rows (3, V) on the shared tree."""
    return tevsuite.exact_law(verify, tevsuite.TreeCase(PARENTS, TOKENS, np.asarray(reference, dtype=np.float64))).tv


def report(finding, tv):
    """Prints the result; the exit status says whether the finding reproduced (TV > 0)."""
    print(f"{finding}: exact TV {tv:.4f} from the engine's own sampler's law: {'reproduced' if tv > 1e-12 else 'not reproduced'}")
    return 0 if tv > 1e-12 else 1
