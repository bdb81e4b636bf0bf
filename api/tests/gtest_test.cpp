// The GoogleTest assertions (<tevsuite/gtest.hpp>): they pass on an exact verifier and fail, with
// the first failing case and (for a drawing verifier) a shrunk counterexample, on a planted bug.
#include <tevsuite/gtest.hpp>

#include <gtest/gtest-spi.h>

#include "public_verifiers.hpp"

namespace {

using namespace tevsuite;
using namespace tevsuite::testing;
using namespace public_verifiers;

TreeCheckOptions quick() {
  TreeCheckOptions options;
  options.samples = 40000;   // the fewest at which the tests of independence guarantee TV 0.05
  options.large_vocab = 64;  // the bug's full-row draw enumerates token by token: keep V small
  options.threads = 2;
  return options;
}

TEST(GTestAssertions, PassOnAnExactVerifier) {
  EXPECT_TREE_VERIFIER_EXACT_AND_SATURATED(drawing(target_walk), quick());
  EXPECT_TREE_VERIFIER_EXACT(drawing(target_walk), quick());
}

TEST(GTestAssertions, FailOnAMutantWithTheFirstCaseAndAShrunkCounterexample) {
  EXPECT_NONFATAL_FAILURE(EXPECT_TREE_VERIFIER_EXACT(drawing(target_walk_full_row_bonus), quick()),
                          "first failing case: c");
  EXPECT_NONFATAL_FAILURE(EXPECT_TREE_VERIFIER_EXACT(drawing(target_walk_full_row_bonus), quick()),
                          "shrunk counterexample");
  EXPECT_NONFATAL_FAILURE(EXPECT_TREE_VERIFIER_EXACT(drawing(target_walk_full_row_bonus), quick()),
                          "largest cell deviations");
}

TEST(GTestAssertions, ShrunkCounterexampleIsSmall) {
  const std::string shrunk =
      shrunk_counterexample(drawing(target_walk_full_row_bonus), Requirement::exact, 1e-12);
  ASSERT_FALSE(shrunk.empty());
  // The full-row bonus shows on the smallest tree with an internal node: a root and one child.
  EXPECT_NE(shrunk.find("2 nodes"), std::string::npos) << shrunk;
  EXPECT_TRUE(
      shrunk_counterexample(drawing(target_walk), Requirement::exact_and_saturated, 1e-12).empty());
}

// root_bonus (exact, unsaturated) passes EXACT and fails EXACT_AND_SATURATED.
TEST(GTestAssertions, SaturationIsItsOwnRequirement) {
  EXPECT_TREE_VERIFIER_EXACT(root_bonus, quick());
  EXPECT_NONFATAL_FAILURE(EXPECT_TREE_VERIFIER_EXACT_AND_SATURATED(root_bonus, quick()),
                          "exact, not saturated");
}

TEST(GTestAssertions, InconclusiveIsAFailure) {
  TreeCheckOptions few = quick();
  few.samples = 50;
  EXPECT_NONFATAL_FAILURE(EXPECT_TREE_VERIFIER_EXACT(root_bonus, few), "inconclusive");
}

Block bonus_from_p(const ModelCase& c, Randomness& r) {
  return {{}, draw_from(c.p({}), r.uniform())};
}
Block bonus_from_q(const ModelCase& c, Randomness& r) {
  return {{}, draw_from(c.q({}), r.uniform())};
}

TEST(GTestAssertions, ModelVerifierAssertion) {
  ModelCheckOptions options;
  options.threads = 2;
  EXPECT_MODEL_VERIFIER_EXACT(bonus_from_p, options);
  EXPECT_NONFATAL_FAILURE(EXPECT_MODEL_VERIFIER_EXACT(bonus_from_q, options),
                          "required to be exact (marginally)");
}

// Batches at 40,000 rounds (every request, its rounds' independence and every pair still detect TV 0.05): the independent walks
// pass; one seed for the whole batch fails with its first dependent pair named.
TEST(GTestAssertions, BatchVerifierAssertion) {
  BatchCheckOptions options;
  options.rounds = 40000;
  EXPECT_BATCH_VERIFIER_EXACT_AND_SATURATED(
      [](std::span<const TreeCase> requests, Randomness& r) {
        return batch_walk(requests, r, false);
      },
      options);
  EXPECT_NONFATAL_FAILURE(
      EXPECT_BATCH_VERIFIER_EXACT([](std::span<const TreeCase> requests,
                                     Randomness& r) { return batch_walk(requests, r, true); },
                                  options),
      "first failing pair: k0/c0 x c1: dependent (a leak)");
}

}  // namespace
