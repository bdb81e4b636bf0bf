/* tevsuite's conformance check for C engines and other languages' FFIs (C99). The same check as
 * <tevsuite/check.hpp>: the cases `tevsuite conformance emit` writes, the verifier called in
 * process once per sample, the one verdict policy. The verifier is called from several threads at
 * once (options.threads): it must not share mutable state between calls without locking. */
#ifndef TEVSUITE_CHECK_H
#define TEVSUITE_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include <tevsuite/defaults.h>
#include <tevsuite/version.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version, "major.minor.patch": the one that runs, against TEVSUITE_VERSION_STRING,
 * the headers' (<tevsuite/version.h>). */
const char* tev_version(void);

/* The order of the filters (tev_sampling.order). */
enum {
  TEV_ORDER_MIN_P_FIRST = 0, /* vLLM's: min-p, top-k, then top-p on the survivors */
  TEV_ORDER_MIN_P_LAST = 1,  /* Hugging Face transformers': min-p after top-k and top-p */
  TEV_ORDER_TOP_P_FULL_AND_TOP_K =
      2 /* SGLang's: top-p on the full distribution, intersected with top-k and min-p */
};

/* A request's sampling parameters, as an engine applies them to its logits: divide by the
 * temperature, softmax, then min-p, top-k and top-p in the given order. The same as
 * <tevsuite/check.hpp>'s SamplingParams. */
typedef struct tev_sampling {
  double temperature; /* >= 0; below 1e-5 (0 included): greedy (the first argmax) */
  int64_t top_k;      /* 0: off; keeps every logit >= the k-th largest */
  double top_p;       /* in (0, 1]; 1: off */
  double min_p;       /* in [0, 1); 0: off */
  int32_t order;      /* TEV_ORDER_* */
} tev_sampling;

/* tevsuite's reference processing: out[0 .. vocab) = the distribution an engine samples from
 * (out may alias logits). Returns 0, or -1 on parameters out of range, a row without a finite
 * entry or a NULL argument (out is then unspecified). */
int tev_process_logits(const double* logits, int32_t vocab, const tev_sampling* params,
                       double* out);

/* One fixed-tree case as the verifier sees it: level order, node 0 the root. An engine-shaped case
 * (tev_check_options.engine_inputs) gives logits and sampling instead of probs: the verifier must
 * process the rows itself, and is judged against the processed target. */
typedef struct tev_tree_case {
  const char* id;
  const char* label;
  int32_t vocab;
  int32_t nodes;
  const int32_t* parents; /* (nodes) parent of node i; -1 for the root */
  const int32_t* tokens;  /* (nodes) token of node i; -1 for the root */
  const double*
      probs; /* (nodes, vocab) target p(. | path to node i); NULL on an engine-shaped case */
  const double*
      logits; /* engine-shaped cases: (nodes, vocab) the target's logits; NULL otherwise */
  const tev_sampling* sampling; /* engine-shaped cases: what to apply to logits; NULL otherwise */
} tev_tree_case;

/* One model case: the verifier drafts its own tree from q (at most `depth` deep), verifies it with
 * p and returns the block. Rows come from tev_model_p and tev_model_q; on an engine-shaped case
 * their logits come from tev_model_p_logits and tev_model_q_logits, and the drafter drafts from
 * its processed q. */
typedef struct tev_model_case {
  const char* id;
  const char* label;
  int32_t vocab;
  int32_t depth;
  const void* rows; /* opaque: read with tev_model_p / tev_model_q */
  const tev_sampling*
      target_sampling; /* engine-shaped cases: what to apply to p's logits; NULL otherwise */
  const tev_sampling*
      drafter_sampling; /* engine-shaped cases: what to apply to q's logits; NULL otherwise */
} tev_model_case;

/* p(. | context, prefix) and q(. | context, prefix): vocab probabilities, for a prefix of
 * 0 .. depth tokens in [0, vocab); NULL for any other prefix, and on an engine-shaped case. */
const double* tev_model_p(const tev_model_case* c, const int32_t* prefix, int32_t length);
const double* tev_model_q(const tev_model_case* c, const int32_t* prefix, int32_t length);
/* Their logits on an engine-shaped case: vocab entries; NULL for any other prefix or case. */
const double* tev_model_p_logits(const tev_model_case* c, const int32_t* prefix, int32_t length);
const double* tev_model_q_logits(const tev_model_case* c, const int32_t* prefix, int32_t length);

/* One sample's randomness (Philox4x32-10 keyed by the check's seed, the case and the sample). */
typedef struct tev_randomness tev_randomness;
double tev_uniform(tev_randomness* r);       /* in [0, 1) */
uint64_t tev_random_bits(tev_randomness* r); /* 64 random bits: a seed for an engine's own RNG */

/* A verifier writes its block: the accepted draft tokens from the root down into
 * accepted[0 .. *accepted_length) (room for `capacity` tokens: the case's depth bound), then the
 * bonus token. It returns 0, or nonzero to stop the check with an error. */
typedef int (*tev_tree_verifier)(void* user, const tev_tree_case* c, tev_randomness* r,
                                 int32_t* accepted, int32_t capacity, int32_t* accepted_length,
                                 int32_t* bonus);
typedef int (*tev_model_verifier)(void* user, const tev_model_case* c, tev_randomness* r,
                                  int32_t* accepted, int32_t capacity, int32_t* accepted_length,
                                  int32_t* bonus);

typedef struct tev_check_options {
  int32_t cases;    /* the emitted cases cycle through their recipes */
  uint64_t samples; /* per case */
  uint32_t seed;
  double alpha;          /* family-wise false-alarm level of the check */
  int32_t threads;       /* 0: every hardware thread */
  int32_t engine_inputs; /* nonzero: engine-shaped cases (logits and sampling parameters) */
} tev_check_options;

/* `conformance emit`'s defaults: 8 cases x 100,000 samples (model cases: 8 x 40,000), alpha
 * TEV_DEFAULT_ALPHA, seed TEV_DEFAULT_SEED (<tevsuite/defaults.h>). */
tev_check_options tev_tree_check_defaults(void);
tev_check_options tev_model_check_defaults(void);

/* The verdicts, numbered as tevsuite's exit codes. */
typedef enum tev_verdict {
  TEV_EXACT_SATURATED = 0, /* model cases: exact (marginally) */
  TEV_NOT_EXACT = 1,
  TEV_ERROR = 2, /* the check could not run: see tev_result_description */
  TEV_EXACT_NOT_SATURATED = 3,
  TEV_INCONCLUSIVE = 4,                 /* too few samples to call it exact */
  TEV_EXACT_SATURATION_INCONCLUSIVE = 5 /* exact, too few samples to call it saturated */
} tev_verdict;

typedef struct tev_check_result tev_check_result;

/* Runs the check (free the result with tev_result_free; NULL only when out of memory). options
 * NULL: the defaults. A NULL verifier, a nonzero return from it, an exception thrown through it
 * or an option outside <tevsuite/check.hpp>'s ranges (cases 1 to 100,000, samples 1 to 2^32, alpha
 * in [1e-12, 0.5]) is TEV_ERROR with the message as the description. */
tev_check_result* tev_check_tree_verifier(tev_tree_verifier verifier, void* user,
                                          const tev_check_options* options);
tev_check_result* tev_check_model_verifier(tev_model_verifier verifier, void* user,
                                           const tev_check_options* options);

/* Batches of requests verified together, as an engine's kernel does (<tevsuite/check.hpp>'s
 * check_batch_verifier, `tevsuite conformance emit --batch`): the verifier is called once per round
 * with every request of a batch (requests[0 .. count), in the batch's order, one vocabulary) and
 * that round's randomness, and writes request k's block as row k: its accepted tokens into
 * accepted[k * width ..] (width: the batch's deepest request), their number into
 * accepted_lengths[k] and its bonus into bonus[k]. It returns 0, or nonzero to stop the check with
 * an error. Each request is judged as a case ("batch/request"), and every two requests of a batch
 * are tested for independence within a round ("batch/first x second"), in one exactness family. */
typedef int (*tev_batch_verifier)(void* user, const tev_tree_case* requests, int32_t count,
                                  tev_randomness* round, int32_t* accepted, int32_t width,
                                  int32_t* accepted_lengths, int32_t* bonus);

typedef struct tev_batch_options {
  int32_t batches;  /* 1 to 100,000 */
  int32_t requests; /* per batch, 1 to 64 */
  uint64_t rounds;  /* 1 to 2^32 */
  uint32_t seed;
  double alpha;          /* family-wise false-alarm level of the check */
  int32_t engine_inputs; /* nonzero: engine-shaped requests (logits and sampling parameters) */
} tev_batch_options;

/* `conformance emit --batch 4`'s defaults: 2 batches of 4 requests, 100,000 rounds, alpha
 * TEV_DEFAULT_ALPHA, seed TEV_DEFAULT_SEED. */
tev_batch_options tev_batch_check_defaults(void);
/* As tev_check_tree_verifier; a row longer than width or a token outside [0, V) is TEV_ERROR. */
tev_check_result* tev_check_batch_verifier(tev_batch_verifier verifier, void* user,
                                           const tev_batch_options* options);

/* A verifier whose exact law tevsuite can enumerate as well as sample (<tevsuite/check.hpp>'s
 * Draws): it draws only through these two. tev_draw_categorical returns i with probability
 * weights[i] / sum(weights); tev_draw_next_token is the same draw for the token after `node`
 * (weights over the vocabulary), with a promise: a token that is not one of node's drafted
 * children is the bonus, and the verifier returns at once. Both return -1 when the enumeration
 * needs the verifier to stop (it then returns anything; the enumeration goes on or reports why). */
typedef struct tev_draws tev_draws;
int64_t tev_draw_categorical(tev_draws* d, const double* weights, size_t count);
int32_t tev_draw_next_token(tev_draws* d, int32_t node, const double* weights, int32_t vocab);
typedef int (*tev_drawing_verifier)(void* user, const tev_tree_case* c, tev_draws* d,
                                    int32_t* accepted, int32_t capacity, int32_t* accepted_length,
                                    int32_t* bonus);

/* A drawing verifier's exact law on one case of the caller's own (id, label, vocab, nodes,
 * parents, tokens, probs; no logits), by enumeration: its TV from the canonical law (blocks off
 * the tree, outside the vocabulary or of zero target probability count in it), E[L] against the
 * ceiling 1 + C_p, and the probability that its bonus is a drafted child's token (0 when
 * saturated). Returns 0, or -1 on a malformed case, an enumeration over its branch budget or a
 * verifier error, with the message in error[0 .. error_size) (error may be NULL). */
typedef struct tev_exact_law_result {
  double tv;
  double mean_length;
  double ceiling;
  double completion_probability;
} tev_exact_law_result;
int tev_exact_law(tev_drawing_verifier verifier, void* user, const tev_tree_case* c,
                  tev_exact_law_result* out, char* error, size_t error_size);

tev_verdict tev_result_verdict(const tev_check_result* r);
/* The overall verdict and the first failing case spelled out, or the error. */
const char* tev_result_description(const tev_check_result* r);
/* Per case k in [0, tev_result_cases); outside it the accessors answer NULL, TEV_ERROR or NAN. */
int32_t tev_result_cases(const tev_check_result* r);
const char* tev_result_case_id(const tev_check_result* r, int32_t k);
tev_verdict tev_result_case_verdict(const tev_check_result* r, int32_t k);
double tev_result_case_p_value(const tev_check_result* r, int32_t k); /* chi-square p */
double tev_result_case_p_holm(const tev_check_result* r, int32_t k); /* Holm-adjusted exactness p */
double tev_result_case_detectable_tv(const tev_check_result* r,
                                     int32_t k); /* at 99% power at its level; NAN: none */
void tev_result_free(tev_check_result* r);

#ifdef __cplusplus
}
#endif

#endif /* TEVSUITE_CHECK_H */
