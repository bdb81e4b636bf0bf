// The GoogleTest assertions: they pass on an exact verifier and fail, with the first failing case
// and (for a drawing verifier) a shrunk counterexample, on planted bugs.
#include "api/gtest_assertions.hpp"

#include <gtest/gtest-spi.h>

#include "api/tests/simple_verifiers.hpp"
#include "core/mutants.hpp"
#include "core/verifiers.hpp"

namespace tev::api {
namespace {

CheckOptions quick() {
  CheckOptions options;
  options.cases.samples = 20000;
  options.cases.large_vocab = 64;  // ViewVerifier rebuilds the rows every sample: keep them small
  options.threads = 2;
  return options;
}

// TEV and one of its mutants, written against the view and the draws alone (as an engine would
// with tevsuite's choosers): the tree and rows rebuilt from the view's arrays.
template <bool Mutant>
struct ViewVerifier {
  template <class Draws>
  EmittedBlock operator()(const TreeCaseView& view, Draws& draws) const {
    const BuiltTree built = tree_from_parents(view.parents, view.tokens, view.vocab);
    const TargetRows rows = TargetRows::from_probabilities(view.probs, view.nodes(), view.vocab, conformance::kRowTolerance);
    const Block b = Mutant ? mutants::bonus_from_full_row(built.tree, rows, draws.chooser()) : tree_exit_verify(built.tree, rows, draws.chooser());
    return {built.tree.path_tokens(b.exit), b.bonus};
  }
};

TEST(GTestAssertions, PassOnAnExactVerifier) {
  EXPECT_TREE_VERIFIER_EXACT_AND_SATURATED(drawing(ViewVerifier<false>{}), quick());
  EXPECT_TREE_VERIFIER_EXACT(drawing(ViewVerifier<false>{}), quick());
}

TEST(GTestAssertions, FailOnAMutantWithTheFirstCaseAndAShrunkCounterexample) {
  EXPECT_NONFATAL_FAILURE(EXPECT_TREE_VERIFIER_EXACT(drawing(ViewVerifier<true>{}), quick()), "first failing case: c");
  EXPECT_NONFATAL_FAILURE(EXPECT_TREE_VERIFIER_EXACT(drawing(ViewVerifier<true>{}), quick()), "shrunk counterexample");
  EXPECT_NONFATAL_FAILURE(EXPECT_TREE_VERIFIER_EXACT(drawing(ViewVerifier<true>{}), quick()), "largest cell deviations");
}

TEST(GTestAssertions, ShrunkCounterexampleIsSmall) {
  const std::string shrunk = detail::shrunk_counterexample(drawing(ViewVerifier<true>{}), Requirement::exact, 1e-12);
  ASSERT_FALSE(shrunk.empty());
  // The full-row bonus shows on the smallest tree with an internal node: a root and one child.
  EXPECT_NE(shrunk.find("2 nodes"), std::string::npos) << shrunk;
  EXPECT_TRUE(detail::shrunk_counterexample(drawing(ViewVerifier<false>{}), Requirement::exact_and_saturated, 1e-12).empty());
}

// root_bonus (exact, unsaturated) passes EXACT and fails EXACT_AND_SATURATED.
using test_verifiers::root_bonus;

TEST(GTestAssertions, SaturationIsItsOwnRequirement) {
  EXPECT_TREE_VERIFIER_EXACT(root_bonus, quick());
  EXPECT_NONFATAL_FAILURE(EXPECT_TREE_VERIFIER_EXACT_AND_SATURATED(root_bonus, quick()), "exact, not saturated");
}

TEST(GTestAssertions, InconclusiveIsAFailure) {
  CheckOptions few = quick();
  few.cases.samples = 50;
  EXPECT_NONFATAL_FAILURE(EXPECT_TREE_VERIFIER_EXACT(root_bonus, few), "inconclusive");
}

}  // namespace
}  // namespace tev::api
