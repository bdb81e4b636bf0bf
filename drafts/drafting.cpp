#include "drafts/drafting.hpp"

#include <stdexcept>

namespace tev::drafts {

std::string Drafting::label() const {
  const std::string k = std::to_string(width);
  const std::string d = ",D=" + std::to_string(depth);
  switch (policy) {
    case DraftPolicy::chain:
      return "chain(D=" + std::to_string(depth) + ")";
    case DraftPolicy::independent_chains:
      return "chains(k=" + k + d + ")";
    case DraftPolicy::iid_children:
      return "iid(k=" + k + d + ")";
    case DraftPolicy::without_replacement:
      return "no-replacement(k=" + k + d + ")";
    case DraftPolicy::top_k:
      return "top-k(k=" + k + d + ")";
  }
  return "unknown";
}

const DraftedNode& DraftedTree::node(std::span<const Token> prefix) const {
  const auto it = nodes_.find(std::vector<Token>(prefix.begin(), prefix.end()));
  if (it == nodes_.end())
    throw std::logic_error("drafted tree: a verifier entered a node that was never drafted");
  return it->second;
}

std::pair<DraftTree, TargetRows> DraftedTree::fixed_tree(std::int32_t vocab) const {
  // Breadth-first over distinct drafted tokens; tree_from_parents puts the nodes in level order.
  std::vector<NodeId> parents = {kNoNode};
  std::vector<Token> tokens = {kNoToken};
  std::vector<std::vector<Token>> prefixes = {{}};
  for (std::size_t i = 0; i < prefixes.size(); ++i) {
    const auto it = nodes_.find(prefixes[i]);
    if (it == nodes_.end()) continue;
    for (Token t : distinct_drafts(it->second.drafts)) {
      parents.push_back(static_cast<NodeId>(i));
      tokens.push_back(t);
      std::vector<Token> child = prefixes[i];
      child.push_back(t);
      prefixes.push_back(std::move(child));
    }
  }
  BuiltTree built = tree_from_parents(parents, tokens, vocab);
  std::vector<double> rows;
  rows.reserve(parents.size() * static_cast<std::size_t>(vocab));
  for (NodeId v = 0; v < built.tree.size(); ++v) {
    const auto p =
        node(prefixes[static_cast<std::size_t>(built.order[static_cast<std::size_t>(v)])]).p;
    rows.insert(rows.end(), p.begin(), p.end());
  }
  return {std::move(built.tree),
          TargetRows::from_probabilities(rows, static_cast<NodeId>(parents.size()), vocab)};
}

}  // namespace tev::drafts
