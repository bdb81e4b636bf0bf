#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "core/draft_tree.hpp"

namespace tev {
namespace {

// Caller numbering (not level order): 0 root, 1 = c under a, 2 = a under root, 3 = b under root.
const std::vector<NodeId> kParents = {-1, 2, 0, 0};
const std::vector<Token> kTokens = {-1, 2, 0, 1};

TEST(DraftTree, BuildsLevelOrderAndReturnsPermutation) {
  const BuiltTree built = tree_from_parents(kParents, kTokens, 3);
  const DraftTree& t = built.tree;
  // Level order: root, a, b (depth 1, caller order kept), then c (depth 2).
  EXPECT_EQ(built.order, (std::vector<NodeId>{0, 2, 3, 1}));
  EXPECT_EQ(t.parent, (std::vector<NodeId>{-1, 0, 0, 1}));
  EXPECT_EQ(t.token, (std::vector<Token>{-1, 0, 1, 2}));
  EXPECT_EQ(t.depth, (std::vector<std::int32_t>{0, 1, 1, 2}));
  EXPECT_EQ(t.child_count, (std::vector<std::int32_t>{2, 1, 0, 0}));
  EXPECT_EQ(t.first_child[0], 1);
  EXPECT_EQ(t.first_child[1], 3);
  EXPECT_EQ(t.level_offset, (std::vector<NodeId>{0, 1, 3, 4}));
  EXPECT_EQ(t.max_depth(), 2);
  EXPECT_EQ(t.child_with_token(0, 1), 2);
  EXPECT_EQ(t.child_with_token(0, 2), kNoNode);
  EXPECT_EQ(t.path_tokens(3), (std::vector<Token>{0, 2}));
  EXPECT_FALSE(t.validate().has_value());
}

TEST(DraftTree, RejectsBadInput) {
  EXPECT_THROW(tree_from_parents(std::vector<NodeId>{-1, 0, 0}, std::vector<Token>{-1, 1, 1}, 3),
               std::invalid_argument);  // duplicate sibling token
  EXPECT_THROW(tree_from_parents(std::vector<NodeId>{-1, 0}, std::vector<Token>{-1, 3}, 3),
               std::invalid_argument);  // token outside V
  EXPECT_THROW(tree_from_parents(std::vector<NodeId>{-1, 2, 1}, std::vector<Token>{-1, 0, 1}, 3),
               std::invalid_argument);  // cycle
  EXPECT_THROW(tree_from_parents(std::vector<NodeId>{0, 0}, std::vector<Token>{-1, 0}, 3),
               std::invalid_argument);  // no root
  EXPECT_THROW(tree_from_parents(std::vector<NodeId>{-1, 7}, std::vector<Token>{-1, 0}, 3),
               std::invalid_argument);  // parent out of range
}

TEST(DraftTree, ValidateNamesTheFirstViolation) {
  DraftTree t = tree_from_parents(kParents, kTokens, 3).tree;
  t.token[2] = 0;  // now a sibling of node 1 with the same token
  ASSERT_TRUE(t.validate().has_value());
  EXPECT_NE(t.validate()->find("two children with token 0"), std::string::npos) << *t.validate();
  t = tree_from_parents(kParents, kTokens, 3).tree;
  t.depth[3] = 5;
  ASSERT_TRUE(t.validate().has_value());
  EXPECT_NE(t.validate()->find("depth"), std::string::npos) << *t.validate();
}

}  // namespace
}  // namespace tev
