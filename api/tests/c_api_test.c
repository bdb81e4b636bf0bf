/* The C API from C99: a verifier that accepts nothing and draws the bonus from the root's row
 * (exact, not saturated), its bug (the bonus uniform), a model verifier, the same two on
 * engine-shaped cases (logits processed with tev_process_logits; the bug ignores the sampling
 * parameters), an error from the callback, and the accessors' answers out of range; a batch of
 * requests walked together and its bug (one round's uniforms shared by every request); the exact
 * law of drawing verifiers; the version against the headers'. Exit 0 when every check holds. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tevsuite/check.h>

static int failures = 0;
#define CHECK(condition)                                                      \
  do {                                                                        \
    if (!(condition)) {                                                       \
      fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #condition); \
      ++failures;                                                             \
    }                                                                         \
  } while (0)

static int32_t draw(const double* row, int32_t vocab, double u) {
  double below = 0.0;
  for (int32_t a = 0; a < vocab; ++a) {
    below += row[a];
    if (u < below) return a;
  }
  return vocab - 1;
}

static int root_bonus(void* user, const tev_tree_case* c, tev_randomness* r, int32_t* accepted,
                      int32_t capacity, int32_t* length, int32_t* bonus) {
  const int uniform_bug = *(const int*)user;
  (void)accepted;
  (void)capacity;
  *length = 0;
  *bonus =
      uniform_bug ? (int32_t)(tev_uniform(r) * c->vocab) : draw(c->probs, c->vocab, tev_uniform(r));
  return 0;
}

/* The root's logits processed as the case says, or with the bug by a plain softmax (the case's
 * parameters ignored), then the bonus drawn from them. */
static int engine_root_bonus(void* user, const tev_tree_case* c, tev_randomness* r,
                             int32_t* accepted, int32_t capacity, int32_t* length, int32_t* bonus) {
  const int ignores_parameters = *(const int*)user;
  const tev_sampling plain = {1.0, 0, 1.0, 0.0, 0};
  (void)accepted;
  (void)capacity;
  if (c->probs != NULL || c->logits == NULL || c->sampling == NULL) return 4;
  double* row = malloc((size_t)c->vocab * sizeof(double));
  if (row == NULL) return 5;
  const int processed =
      tev_process_logits(c->logits, c->vocab, ignores_parameters ? &plain : c->sampling, row);
  *length = 0;
  *bonus = draw(row, c->vocab, tev_uniform(r));
  free(row);
  return processed == 0 ? 0 : 6;
}

static int failing(void* user, const tev_tree_case* c, tev_randomness* r, int32_t* accepted,
                   int32_t capacity, int32_t* length, int32_t* bonus) {
  (void)user, (void)c, (void)r, (void)accepted, (void)capacity, (void)length, (void)bonus;
  return 7;
}

static int model_root_bonus(void* user, const tev_model_case* c, tev_randomness* r,
                            int32_t* accepted, int32_t capacity, int32_t* length, int32_t* bonus) {
  (void)user, (void)accepted, (void)capacity;
  const int32_t outside[1] = {c->vocab};
  const int32_t too_long[3] = {0, 0, 0};
  if (tev_model_p(c, outside, 1) != NULL || tev_model_q(c, too_long, c->depth + 1) != NULL ||
      tev_model_p(c, NULL, -1) != NULL)
    return 3;
  *length = 0;
  *bonus = draw(tev_model_p(c, NULL, 0), c->vocab, tev_uniform(r));
  return 0;
}

static int engine_model_root_bonus(void* user, const tev_model_case* c, tev_randomness* r,
                                   int32_t* accepted, int32_t capacity, int32_t* length,
                                   int32_t* bonus) {
  (void)user, (void)accepted, (void)capacity;
  if (c->target_sampling == NULL || c->drafter_sampling == NULL ||
      tev_model_p(c, NULL, 0) != NULL || tev_model_q_logits(c, NULL, 0) == NULL)
    return 3;
  double row[64];
  if (c->vocab > 64 ||
      tev_process_logits(tev_model_p_logits(c, NULL, 0), c->vocab, c->target_sampling, row) != 0)
    return 4;
  *length = 0;
  *bonus = draw(row, c->vocab, tev_uniform(r));
  return 0;
}

/* A target-only walk of a tree case: the next token from the current node's row, followed while it
 * is a drafted child; otherwise it is the bonus. next(state) gives the uniforms. */
static int32_t child(const tev_tree_case* c, int32_t node, int32_t token) {
  for (int32_t i = 1; i < c->nodes; ++i) {
    if (c->parents[i] == node && c->tokens[i] == token) return i;
  }
  return -1;
}

static void walk(const tev_tree_case* c, double (*next)(void*), void* state, int32_t* accepted,
                 int32_t* length, int32_t* bonus) {
  int32_t node = 0;
  *length = 0;
  for (;;) {
    const int32_t token = draw(c->probs + (size_t)node * (size_t)c->vocab, c->vocab, next(state));
    const int32_t next_node = child(c, node, token);
    if (next_node < 0) {
      *bonus = token;
      return;
    }
    accepted[(*length)++] = token;
    node = next_node;
  }
}

static double next_uniform(void* r) { return tev_uniform((tev_randomness*)r); }

/* The uniforms drawn once for a round: the bug replays them for every request of the batch. */
typedef struct replay {
  const double* uniforms;
  int32_t used;
} replay;
static double next_replayed(void* state) {
  replay* r = (replay*)state;
  return r->uniforms[r->used++];
}

static int batch_walk(void* user, const tev_tree_case* requests, int32_t count,
                      tev_randomness* round, int32_t* accepted, int32_t width, int32_t* lengths,
                      int32_t* bonus) {
  const int shares_uniforms = *(const int*)user;
  double uniforms[64];
  for (int32_t i = 0; i < 64; ++i) uniforms[i] = tev_uniform(round);
  for (int32_t k = 0; k < count; ++k) {
    if (requests[k].nodes > 64) return 3;
    replay shared = {uniforms, 0};
    if (shares_uniforms) {
      walk(&requests[k], next_replayed, &shared, accepted + (size_t)k * (size_t)width, &lengths[k],
           &bonus[k]);
    } else {
      walk(&requests[k], next_uniform, round, accepted + (size_t)k * (size_t)width, &lengths[k],
           &bonus[k]);
    }
  }
  return 0;
}

/* Drawing verifiers: the walk with tev_draw_next_token (exact and saturated), the root's bonus
 * with tev_draw_categorical (exact, not saturated), and the bug of a uniform bonus at the root. */
static int drawn_walk(void* user, const tev_tree_case* c, tev_draws* d, int32_t* accepted,
                      int32_t capacity, int32_t* length, int32_t* bonus) {
  (void)user, (void)capacity;
  int32_t node = 0;
  *length = 0;
  for (;;) {
    const int32_t token =
        tev_draw_next_token(d, node, c->probs + (size_t)node * (size_t)c->vocab, c->vocab);
    if (token < 0) return 1;
    const int32_t next_node = child(c, node, token);
    if (next_node < 0) {
      *bonus = token;
      return 0;
    }
    accepted[(*length)++] = token;
    node = next_node;
  }
}

static int drawn_root_bonus(void* user, const tev_tree_case* c, tev_draws* d, int32_t* accepted,
                            int32_t capacity, int32_t* length, int32_t* bonus) {
  const int uniform_bug = *(const int*)user;
  const double flat[3] = {1.0, 1.0, 1.0};
  (void)accepted, (void)capacity;
  *length = 0;
  *bonus = (int32_t)tev_draw_categorical(d, uniform_bug ? flat : c->probs, (size_t)c->vocab);
  return *bonus < 0;
}

static void check_exact_law(void) {
  /* The root (p = .5, .3, .2) with children on tokens 0 and 1, each of them a row of its own. */
  const int32_t parents[3] = {-1, 0, 0}, tokens[3] = {-1, 0, 1};
  const double probs[9] = {0.5, 0.3, 0.2, 0.6, 0.2, 0.2, 0.1, 0.1, 0.8};
  const tev_tree_case c = {"mine", "three nodes", 3, 3, parents, tokens, probs, NULL, NULL};
  tev_exact_law_result law;
  char message[200] = "";
  int bug = 0;
  /* E[L] of the saturated walk: 1 + P(token 0 or 1 at the root) = 1.8, its ceiling. */
  CHECK(tev_exact_law(drawn_walk, NULL, &c, &law, message, sizeof message) == 0);
  CHECK(fabs(law.tv) < 1e-12 && fabs(law.mean_length - 1.8) < 1e-12 &&
        fabs(law.ceiling - 1.8) < 1e-12 && law.completion_probability < 1e-12);
  /* The root's bonus: exact, E[L] = 1, and the bonus is a drafted child's token with P = 0.8. */
  CHECK(tev_exact_law(drawn_root_bonus, &bug, &c, &law, message, sizeof message) == 0);
  CHECK(fabs(law.tv) < 1e-12 && fabs(law.mean_length - 1.0) < 1e-12 &&
        fabs(law.completion_probability - 0.8) < 1e-12);
  /* The uniform bonus: TV from the root's row = (|1/3 - .5| + |1/3 - .3| + |1/3 - .2|) / 2 = 1/6. */
  bug = 1;
  CHECK(tev_exact_law(drawn_root_bonus, &bug, &c, &law, message, sizeof message) == 0);
  CHECK(fabs(law.tv - 1.0 / 6.0) < 1e-12);
  const tev_tree_case no_rows = {"mine", "", 3, 3, parents, tokens, NULL, NULL, NULL};
  CHECK(tev_exact_law(drawn_walk, NULL, &no_rows, &law, message, sizeof message) == -1 &&
        strstr(message, "probs") != NULL);
  const int32_t cycle[3] = {-1, 2, 1};
  const tev_tree_case malformed = {"cycle", "", 3, 3, cycle, tokens, probs, NULL, NULL};
  CHECK(tev_exact_law(drawn_walk, NULL, &malformed, &law, NULL, 0) == -1);
}

static void check_batches(void) {
  tev_batch_options options = tev_batch_check_defaults();
  CHECK(options.batches == 2 && options.requests == 4 && options.rounds == 100000 &&
        options.alpha == 1e-3);
  int shares_uniforms = 0;
  tev_check_result* exact = tev_check_batch_verifier(batch_walk, &shares_uniforms, &options);
  CHECK(tev_result_verdict(exact) == TEV_EXACT_SATURATED);
  /* The 8 requests, then the 12 pairs. */
  CHECK(tev_result_cases(exact) == 20 && strcmp(tev_result_case_id(exact, 0), "k0/c0") == 0 &&
        strcmp(tev_result_case_id(exact, 8), "k0/c0 x c1") == 0);
  tev_result_free(exact);
  shares_uniforms = 1;
  tev_check_result* shared = tev_check_batch_verifier(batch_walk, &shares_uniforms, &options);
  CHECK(tev_result_verdict(shared) == TEV_NOT_EXACT);
  tev_result_free(shared);
  options.requests = 65;
  tev_check_result* too_many = tev_check_batch_verifier(batch_walk, &shares_uniforms, &options);
  CHECK(tev_result_verdict(too_many) == TEV_ERROR &&
        strstr(tev_result_description(too_many), "requests") != NULL);
  tev_result_free(too_many);
}

int main(void) {
  char version[32];
  snprintf(version, sizeof version, "%d.%d.%d", TEVSUITE_VERSION_MAJOR, TEVSUITE_VERSION_MINOR,
           TEVSUITE_VERSION_PATCH);
  CHECK(strcmp(tev_version(), TEVSUITE_VERSION_STRING) == 0 &&
        strcmp(version, TEVSUITE_VERSION_STRING) == 0);
  check_exact_law();
  check_batches();

  tev_check_options options = tev_tree_check_defaults();
  CHECK(options.cases == 8 && options.samples == 100000 && options.alpha == 1e-3);
  options.threads =
      2; /* the default budgets: fewer samples cannot guarantee TV 0.05 (inconclusive) */

  int bug = 0;
  tev_check_result* exact = tev_check_tree_verifier(root_bonus, &bug, &options);
  CHECK(tev_result_verdict(exact) == TEV_EXACT_NOT_SATURATED);
  CHECK(tev_result_cases(exact) == 8);
  CHECK(strcmp(tev_result_case_id(exact, 0), "c0") == 0);
  CHECK(tev_result_case_p_value(exact, 0) >= 0.0 && tev_result_case_p_value(exact, 0) <= 1.0);
  CHECK(tev_result_case_detectable_tv(exact, 0) > 0.0);
  CHECK(tev_result_case_id(exact, 8) == NULL && isnan(tev_result_case_p_value(exact, -1)) &&
        tev_result_case_verdict(exact, 99) == TEV_ERROR);
  tev_result_free(exact);

  bug = 1;
  tev_check_result* caught = tev_check_tree_verifier(root_bonus, &bug, &options);
  CHECK(tev_result_verdict(caught) == TEV_NOT_EXACT);
  CHECK(strstr(tev_result_description(caught), "first failing case") != NULL);
  tev_result_free(caught);

  tev_check_result* error = tev_check_tree_verifier(failing, NULL, &options);
  CHECK(tev_result_verdict(error) == TEV_ERROR);
  CHECK(strstr(tev_result_description(error), "returned 7") != NULL);
  tev_result_free(error);

  tev_check_result* missing = tev_check_tree_verifier(NULL, NULL, &options);
  CHECK(tev_result_verdict(missing) == TEV_ERROR);
  tev_result_free(missing);

  /* Options outside their ranges are errors naming them, before the verifier is called. */
  tev_check_options bad = options;
  bad.alpha = NAN;
  tev_check_result* bad_alpha = tev_check_tree_verifier(failing, NULL, &bad);
  CHECK(tev_result_verdict(bad_alpha) == TEV_ERROR &&
        strstr(tev_result_description(bad_alpha), "alpha must lie in [1e-12, 0.5]") != NULL);
  tev_result_free(bad_alpha);
  bad = tev_model_check_defaults();
  bad.samples = 0;
  tev_check_result* bad_samples = tev_check_model_verifier(model_root_bonus, NULL, &bad);
  CHECK(tev_result_verdict(bad_samples) == TEV_ERROR &&
        strstr(tev_result_description(bad_samples), "samples must lie in [1, 4294967296]") != NULL);
  tev_result_free(bad_samples);

  tev_check_result* model = tev_check_model_verifier(model_root_bonus, NULL, NULL);
  CHECK(tev_result_verdict(model) == TEV_EXACT_SATURATED);
  tev_result_free(model);

  /* Engine-shaped cases: the first 7 recipes (the 8th has V = 50,000, a row each sample here). */
  const double logits[3] = {1.0, 2.0, 0.0};
  const tev_sampling greedy = {0.0, 0, 1.0, 0.0, 0}, negative = {-1.0, 0, 1.0, 0.0, 0};
  double processed[3];
  CHECK(tev_process_logits(logits, 3, &greedy, processed) == 0 && processed[1] == 1.0 &&
        processed[0] == 0.0 && processed[2] == 0.0);
  CHECK(tev_process_logits(logits, 3, &negative, processed) == -1 &&
        tev_process_logits(NULL, 3, &greedy, processed) == -1);
  /* Below 1e-5 the temperature is greedy; SGLang's order: top-p 0.6 on the full row (0.24, 0.67,
   * 0.09) keeps token 1 alone; an order outside TEV_ORDER_* is refused. */
  const tev_sampling tiny = {1e-6, 0, 1.0, 0.0, TEV_ORDER_MIN_P_FIRST},
                     full = {1.0, 2, 0.6, 0.0, TEV_ORDER_TOP_P_FULL_AND_TOP_K},
                     unknown = {1.0, 0, 1.0, 0.0, 3};
  CHECK(tev_process_logits(logits, 3, &tiny, processed) == 0 && processed[1] == 1.0);
  CHECK(tev_process_logits(logits, 3, &full, processed) == 0 && processed[1] == 1.0 &&
        processed[0] == 0.0);
  CHECK(tev_process_logits(logits, 3, &unknown, processed) == -1);
  options.engine_inputs = 1;
  options.cases = 7;
  bug = 0;
  tev_check_result* engine = tev_check_tree_verifier(engine_root_bonus, &bug, &options);
  CHECK(tev_result_verdict(engine) == TEV_EXACT_NOT_SATURATED);
  tev_result_free(engine);
  bug = 1;
  tev_check_result* engine_bug = tev_check_tree_verifier(engine_root_bonus, &bug, &options);
  CHECK(tev_result_verdict(engine_bug) == TEV_NOT_EXACT);
  tev_result_free(engine_bug);
  tev_check_options model_options = tev_model_check_defaults();
  CHECK(model_options.engine_inputs == 0);
  model_options.engine_inputs = 1;
  tev_check_result* engine_model =
      tev_check_model_verifier(engine_model_root_bonus, NULL, &model_options);
  CHECK(tev_result_verdict(engine_model) == TEV_EXACT_SATURATED);
  tev_result_free(engine_model);

  printf("%d failed checks\n", failures);
  return failures == 0 ? 0 : 1;
}
