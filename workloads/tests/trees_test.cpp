#include <gtest/gtest.h>

#include <cmath>
#include <span>
#include <vector>

#include "workloads/trees.hpp"

namespace tev::workloads {
namespace {

TEST(DDTreeBestFirst, HandTracedBudgetFour) {
  // q1 = (.6 .3 .1), q2 = (.7 .2 .1). Pops by cumulative probability:
  // A = [0] (.6) → pushes [1] (.3) and [0,0] (.42);  B = [0,0] (.42) → pushes [0,1] (.12);
  // C = [1] (.3) → pushes [2] (.1) and [1,0] (.21);  D = [1,0] (.21). Budget reached.
  // Heap order root, A, B, C, D; level order root, A, C, B, D.
  const std::vector<std::vector<double>> q = {{.6, .3, .1}, {.7, .2, .1}};
  const BuiltTree built = ddtree_best_first(q, 4);
  EXPECT_EQ(built.tree.parent, (std::vector<NodeId>{-1, 0, 0, 1, 2}));
  EXPECT_EQ(built.tree.token, (std::vector<Token>{-1, 0, 1, 0, 0}));
  EXPECT_EQ(built.order, (std::vector<NodeId>{0, 1, 3, 2, 4}));
}

TEST(DDTreeBestFirst, StopsWhenTheFrontierIsEmpty) {
  const std::vector<std::vector<double>> q = {{.5, .5}};
  EXPECT_EQ(ddtree_best_first(q, 10).tree.size(), 3);  // only two depth-1 tokens exist
}

TEST(DynamicBestFirst, HandTracedBudgetThree) {
  // Rows depend on the path: root (.5 .4 .1); after [0]: (.9 .1 0); after [1]: (.2 .8 0);
  // deeper: (.5 .5 0). Pops: [0] (.5) → offers [1] (.4) and [0,0] (.45); [0,0] (.45) → offers
  // [0,1] (.05) and [0,0,0] (.225); [1] (.4). A DDTree builder
  // with one shared depth-2 row could not put [0,0] ahead of [1].
  auto row = [](std::span<const Token> path) -> std::vector<double> {
    if (path.empty()) return {.5, .4, .1};
    if (path.size() == 1 && path[0] == 0) return {.9, .1, 0.0};
    if (path.size() == 1 && path[0] == 1) return {.2, .8, 0.0};
    return {.5, .5, 0.0};
  };
  const BuiltTree built = dynamic_best_first(row, 3, 3);
  EXPECT_EQ(built.tree.parent, (std::vector<NodeId>{-1, 0, 0, 1}));
  EXPECT_EQ(built.tree.token, (std::vector<Token>{-1, 0, 1, 0}));
}

TEST(RankRow, KeepsTheTopTokensWithTiesByTokenId) {
  const std::vector<double> q = {.1, .3, .3, 0.0, .3};
  const RankedRow r = rank_row(q, 3);
  EXPECT_EQ(r.tokens, (std::vector<Token>{1, 2, 4}));
  EXPECT_DOUBLE_EQ(r.log_q[0], std::log(.3));
  EXPECT_EQ(rank_row(q, 9).tokens.size(), 5U);
}

TEST(BuildTree, EveryShapeIsValidWithTheRequestedBudget) {
  const SyntheticLanguage language({RowFamily::dirichlet, 0.5, 1.0}, 6, 0.5, 99);
  for (TreeShape shape : {TreeShape::random_recursive, TreeShape::chain, TreeShape::star,
                          TreeShape::full_kary, TreeShape::ddtree}) {
    PhiloxEngine engine(DrawSite{1, Stream::generation, 2, 3});
    const DraftTree t = build_tree(shape, 6, language, engine).tree;
    EXPECT_FALSE(t.validate().has_value())
        << shape_name(shape) << ": " << t.validate().value_or("");
    EXPECT_EQ(t.size(), 7) << shape_name(shape);
  }
  PhiloxEngine engine(DrawSite{1, Stream::generation, 2, 3});
  EXPECT_EQ(build_tree(TreeShape::chain, 6, language, engine).tree.max_depth(), 6);
  EXPECT_EQ(build_tree(TreeShape::star, 6, language, engine).tree.max_depth(), 1);
  EXPECT_THROW(build_tree(TreeShape::star, 7, language, engine), std::invalid_argument);
  // Ternary, 6 nodes: the root's 3 children, then 3 under the first of them.
  const DraftTree ternary = build_tree(TreeShape::full_kary, 6, language, engine, 3).tree;
  EXPECT_EQ(ternary.child_count, (std::vector<std::int32_t>{3, 3, 0, 0, 0, 0, 0}));
  EXPECT_THROW(build_tree(TreeShape::full_kary, 6, language, engine, 7), std::invalid_argument);
}

}  // namespace
}  // namespace tev::workloads
