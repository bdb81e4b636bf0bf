#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/block.hpp"

namespace tev {

// A finite prefix-closed draft tree in level (BFS) order: the root is node 0, nodes of one depth
// are contiguous, and so are the children of each node.
struct DraftTree {
  std::vector<NodeId> parent;  // (N) parent of each node; kNoNode for the root
  std::vector<Token> token;  // (N) drafted token on the edge into each node; kNoToken for the root
  std::vector<std::int32_t> depth;        // (N) accepted draft tokens on the path to the node
  std::vector<NodeId> first_child;        // (N) first child; only meaningful where child_count > 0
  std::vector<std::int32_t> child_count;  // (N) number of children
  std::vector<NodeId>
      level_offset;  // (max_depth + 2) depth d holds nodes [level_offset[d], level_offset[d + 1])
  std::int32_t vocab = 0;  // tokens are in [0, vocab)

  NodeId size() const { return static_cast<NodeId>(parent.size()); }
  bool is_leaf(NodeId v) const { return child_count[v] == 0; }
  std::int32_t max_depth() const { return static_cast<std::int32_t>(level_offset.size()) - 2; }

  // The child of v whose drafted token is t, or kNoNode.
  NodeId child_with_token(NodeId v, Token t) const {
    for (NodeId c = first_child[v]; c < first_child[v] + child_count[v]; ++c) {
      if (token[c] == t) return c;
    }
    return kNoNode;
  }

  // The first violated invariant, in words, or nothing when the tree is well formed.
  std::optional<std::string> validate() const;

  // Tokens on the path from the root to v (π(v)).
  std::vector<Token> path_tokens(NodeId v) const;
};

struct BuiltTree {
  DraftTree tree;
  std::vector<NodeId> order;  // (N) order[i] = index in the caller's numbering of tree node i
};

// Builds a level-ordered tree from parent pointers in any numbering with the root at index 0
// (parents[0] = -1, tokens[0] ignored). Children keep the caller's relative order. Throws
// std::invalid_argument naming the first problem (cycle, unreachable node, duplicate sibling
// token, token outside the vocabulary).
BuiltTree tree_from_parents(std::span<const NodeId> parents, std::span<const Token> tokens,
                            std::int32_t vocab);

}  // namespace tev
