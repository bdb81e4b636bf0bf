#include "core/draft_tree.hpp"

#include <algorithm>
#include <stdexcept>

namespace tev {

namespace {
std::string node_text(NodeId v) { return "node " + std::to_string(v); }
}  // namespace

std::optional<std::string> DraftTree::validate() const {
  const NodeId n = size();
  if (n == 0) return "the tree has no root";
  if (vocab <= 0) return "vocabulary size must be positive";
  if (token.size() != parent.size() || depth.size() != parent.size() ||
      first_child.size() != parent.size() || child_count.size() != parent.size()) {
    return "per-node arrays have different lengths";
  }
  if (parent[0] != kNoNode || depth[0] != 0) return "node 0 must be the root (no parent, depth 0)";
  for (NodeId v = 1; v < n; ++v) {
    const NodeId p = parent[v];
    if (p < 0 || p >= v)
      return node_text(v) + " has parent " + std::to_string(p) +
             ", not an earlier node (tree not in level order)";
    if (depth[v] != depth[p] + 1)
      return node_text(v) + " has depth " + std::to_string(depth[v]) + ", its parent's is " +
             std::to_string(depth[p]);
    if (depth[v] < depth[v - 1])
      return node_text(v) + " is shallower than node " + std::to_string(v - 1) +
             " (not level order)";
    if (token[v] < 0 || token[v] >= vocab)
      return node_text(v) + " has token " + std::to_string(token[v]) + " outside [0, " +
             std::to_string(vocab) + ")";
  }
  std::vector<std::int32_t> counted(n, 0);
  for (NodeId v = 1; v < n; ++v) ++counted[parent[v]];
  for (NodeId v = 0; v < n; ++v) {
    if (counted[v] != child_count[v])
      return node_text(v) + " records " + std::to_string(child_count[v]) + " children but has " +
             std::to_string(counted[v]);
    for (NodeId c = first_child[v]; c < first_child[v] + child_count[v]; ++c) {
      if (c <= 0 || c >= n || parent[c] != v)
        return "children of " + node_text(v) + " are not contiguous";
      for (NodeId d = first_child[v]; d < c; ++d) {
        if (token[d] == token[c])
          return node_text(v) + " has two children with token " + std::to_string(token[c]);
      }
    }
  }
  const std::int32_t levels = max_depth() + 1;
  if (levels < 1 || level_offset.front() != 0 || level_offset.back() != n)
    return "level offsets do not cover the tree";
  for (std::int32_t d = 0; d < levels; ++d) {
    for (NodeId v = level_offset[d]; v < level_offset[d + 1]; ++v) {
      if (depth[v] != d)
        return node_text(v) + " lies in the level range of depth " + std::to_string(d);
    }
  }
  return std::nullopt;
}

std::vector<Token> DraftTree::path_tokens(NodeId v) const {
  std::vector<Token> path(static_cast<std::size_t>(depth[v]));
  for (NodeId u = v; u != 0; u = parent[u]) path[static_cast<std::size_t>(depth[u] - 1)] = token[u];
  return path;
}

BuiltTree tree_from_parents(std::span<const NodeId> parents, std::span<const Token> tokens,
                            std::int32_t vocab) {
  const auto n = static_cast<NodeId>(parents.size());
  if (n == 0) throw std::invalid_argument("tree has no nodes");
  if (tokens.size() != parents.size())
    throw std::invalid_argument("parents and tokens have different lengths");
  if (vocab <= 0) throw std::invalid_argument("vocabulary size must be positive");
  if (parents[0] != kNoNode) throw std::invalid_argument("node 0 must be the root (parent -1)");

  std::vector<std::vector<NodeId>> children(n);  // caller numbering
  for (NodeId v = 1; v < n; ++v) {
    const NodeId p = parents[v];
    if (p < 0 || p >= n || p == v)
      throw std::invalid_argument(node_text(v) + " has invalid parent " + std::to_string(p));
    if (tokens[v] < 0 || tokens[v] >= vocab)
      throw std::invalid_argument(node_text(v) + " has token " + std::to_string(tokens[v]) +
                                  " outside [0, " + std::to_string(vocab) + ")");
    for (NodeId s : children[p]) {
      if (tokens[s] == tokens[v])
        throw std::invalid_argument("nodes " + std::to_string(s) + " and " + std::to_string(v) +
                                    " are siblings with the same token " +
                                    std::to_string(tokens[v]));
    }
    children[p].push_back(v);
  }

  BuiltTree out;
  DraftTree& t = out.tree;
  t.vocab = vocab;
  out.order.push_back(0);
  std::vector<NodeId> new_index(n, kNoNode);
  new_index[0] = 0;
  // Breadth-first from the root; a node never reached lies on a cycle or hangs off one.
  for (std::size_t head = 0; head < out.order.size(); ++head) {
    for (NodeId c : children[out.order[head]]) {
      new_index[c] = static_cast<NodeId>(out.order.size());
      out.order.push_back(c);
    }
  }
  if (static_cast<NodeId>(out.order.size()) != n) {
    const auto lost = std::find(new_index.begin(), new_index.end(), kNoNode) - new_index.begin();
    throw std::invalid_argument(node_text(static_cast<NodeId>(lost)) +
                                " is not reachable from the root (cycle in parents)");
  }

  t.parent.resize(n);
  t.token.resize(n);
  t.depth.resize(n);
  t.first_child.assign(n, 0);
  t.child_count.assign(n, 0);
  for (NodeId i = 0; i < n; ++i) {
    const NodeId src = out.order[i];
    t.parent[i] = i == 0 ? kNoNode : new_index[parents[src]];
    t.token[i] = i == 0 ? kNoToken : tokens[src];
    t.depth[i] = i == 0 ? 0 : t.depth[t.parent[i]] + 1;
    t.child_count[i] = static_cast<std::int32_t>(children[src].size());
    t.first_child[i] = children[src].empty() ? 0 : new_index[children[src].front()];
  }
  t.level_offset.assign(static_cast<std::size_t>(t.depth.back()) + 2, n);
  for (NodeId i = n - 1; i >= 0; --i) t.level_offset[static_cast<std::size_t>(t.depth[i])] = i;
  return out;
}

}  // namespace tev
