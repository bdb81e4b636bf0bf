/* A C engine's check through tevsuite's C API: the target walk over the case's buffers (exact
 * and saturated), or with --bug the bonus drawn again from the full row. Exit 0 when the verdict
 * is the expected one (exact and saturated; not exact with --bug), 1 otherwise. */
#include <stdio.h>
#include <string.h>

#include <tevsuite/check.h>

static int32_t draw(const double* row, int32_t vocab, double u) {
  double below = 0.0;
  int32_t last = 0;
  for (int32_t a = 0; a < vocab; ++a) {
    if (!(row[a] > 0.0)) continue;
    below += row[a];
    last = a;
    if (u < below) return a;
  }
  return last;
}

static int walk(void* user, const tev_tree_case* c, tev_randomness* r, int32_t* accepted, int32_t capacity, int32_t* length, int32_t* bonus) {
  const int bug = *(const int*)user;
  int32_t v = 0;
  *length = 0;
  for (;;) {
    const double* row = c->probs + (size_t)v * (size_t)c->vocab;
    const int32_t x = draw(row, c->vocab, tev_uniform(r));
    int32_t child = -1;
    for (int32_t u = 1; u < c->nodes && child < 0; ++u) {
      if (c->parents[u] == v && c->tokens[u] == x) child = u;
    }
    if (child < 0) {
      *bonus = bug ? draw(row, c->vocab, tev_uniform(r)) : x;
      return 0;
    }
    if (*length == capacity) return 1; /* cannot happen on a tree: a path has at most nodes - 1 tokens */
    accepted[(*length)++] = x;
    v = child;
  }
}

int main(int argc, char** argv) {
  int bug = argc > 1 && strcmp(argv[1], "--bug") == 0;
  tev_check_options options = tev_tree_check_defaults();
  tev_check_result* result = tev_check_tree_verifier(walk, &bug, &options);
  const tev_verdict verdict = tev_result_verdict(result);
  printf("%s", tev_result_description(result));
  for (int32_t k = 0; k < tev_result_cases(result); ++k) {
    printf("  %s: verdict %d, chi-square p %.3g, Holm p %.3g, detects TV %.3g\n", tev_result_case_id(result, k), (int)tev_result_case_verdict(result, k),
           tev_result_case_p_value(result, k), tev_result_case_p_holm(result, k), tev_result_case_detectable_tv(result, k));
  }
  tev_result_free(result);
  return verdict == (bug ? TEV_NOT_EXACT : TEV_EXACT_SATURATED) ? 0 : 1;
}
