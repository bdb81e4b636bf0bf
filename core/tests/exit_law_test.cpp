#include <gtest/gtest.h>

#include <vector>

#include "core/exit_law.hpp"

namespace tev {
namespace {

// root --0--> a --2--> c,  root --1--> b;  V = 3.
// p_root = (.5 .3 .2), p_a = (.1 .2 .7), p_b = (.6 .3 .1), p_c = (.25 .25 .5).
// P: root 1, a .5, b .3, c .5·.7 = .35.     ρ: root .2, a .1+.2 = .3, b 1, c 1.
// w = P·ρ: .2, .15, .3, .35 (sums to 1).    C_p = .5+.3+.35 = 1.15 = .15·1 + .3·1 + .35·2.
// E[L²] = .2·1 + .15·4 + .3·4 + .35·9 = 5.15, so Var L = 5.15 − 2.15² = .5275.
struct HandTree : ::testing::Test {
  DraftTree tree =
      tree_from_parents(std::vector<NodeId>{-1, 0, 0, 1}, std::vector<Token>{-1, 0, 1, 2}, 3).tree;
  TargetRows rows = TargetRows::from_probabilities(
      std::vector<double>{.5, .3, .2, .1, .2, .7, .6, .3, .1, .25, .25, .5}, 4, 3);
};

TEST_F(HandTree, ExitLawMatchesHandComputation) {
  const ExitLaw law = ExitLaw::compute(tree, rows);
  const std::vector<double> prefix = {1, .5, .3, .35}, rho = {.2, .3, 1, 1},
                            exit = {.2, .15, .3, .35};
  for (int v = 0; v < 4; ++v) {
    EXPECT_NEAR(law.prefix[v], prefix[v], 1e-15) << "node " << v;
    EXPECT_NEAR(law.rho[v], rho[v], 1e-15) << "node " << v;
    EXPECT_NEAR(law.exit[v], exit[v], 1e-15) << "node " << v;
  }
  EXPECT_NEAR(law.coverage, 1.15, 1e-15);
  EXPECT_NEAR(law.coverage_by_depth, 1.15, 1e-15);
  EXPECT_NEAR(law.ceiling(), 2.15, 1e-15);
  EXPECT_NEAR(law.length_variance, .5275, 1e-14);
}

TEST_F(HandTree, CanonicalBlockLaw) {
  // Cell (v, a) = P(v) p_v(a) off v's child tokens.
  const std::vector<double> expected = {0, 0, .2, .05, .1, 0, .18, .09, .03, .0875, .0875, .175};
  const auto law = canonical_block_law(tree, rows, ExitLaw::compute(tree, rows));
  ASSERT_EQ(law.size(), expected.size());
  for (std::size_t i = 0; i < law.size(); ++i)
    EXPECT_NEAR(law[i], expected[i], 1e-15) << "cell " << i;
  EXPECT_NEAR(total_variation(law, expected), 0.0, 1e-15);
}

TEST(ExitLaw, RhoIsSummedNotSubtracted) {
  // Children cover all but 1e-15 of the root's row: 1 − Σ children would lose it to cancellation.
  const double tiny = 1e-15;
  const DraftTree tree =
      tree_from_parents(std::vector<NodeId>{-1, 0}, std::vector<Token>{-1, 0}, 2).tree;
  const TargetRows rows =
      TargetRows::from_probabilities(std::vector<double>{1.0 - tiny, tiny, .5, .5}, 2, 2);
  const ExitLaw law = ExitLaw::compute(tree, rows);
  EXPECT_DOUBLE_EQ(law.rho[0], rows.row(0)[1]);
}

TEST(ExitLaw, RejectsRowsOfTheWrongShape) {
  const DraftTree tree =
      tree_from_parents(std::vector<NodeId>{-1, 0}, std::vector<Token>{-1, 0}, 2).tree;
  const TargetRows rows = TargetRows::from_probabilities(std::vector<double>{.5, .5}, 1, 2);
  EXPECT_THROW(ExitLaw::compute(tree, rows), std::invalid_argument);
}

}  // namespace
}  // namespace tev
