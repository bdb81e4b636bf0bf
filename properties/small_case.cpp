#include "properties/small_case.hpp"

#include <algorithm>
#include <numeric>

namespace tev::properties {

DraftTree SmallCase::tree() const { return tree_from_parents(parents, tokens, vocab).tree; }

TargetRows SmallCase::rows() const {
  const BuiltTree built = tree_from_parents(parents, tokens, vocab);
  std::vector<double> probs;
  for (NodeId src : built.order) {
    const auto first = weights.begin() + static_cast<std::ptrdiff_t>(src) * vocab;
    const double total = std::accumulate(first, first + vocab, 0.0);
    for (auto it = first; it != first + vocab; ++it) probs.push_back(*it / total);
  }
  return TargetRows::from_probabilities(probs, static_cast<std::int32_t>(parents.size()), vocab);
}

SmallCase drop_subtree(const SmallCase& c, NodeId v) {
  const auto n = static_cast<NodeId>(c.parents.size());
  std::vector<bool> dropped(static_cast<std::size_t>(n), false);
  // Creation order puts parents first, so one forward pass marks the whole subtree.
  for (NodeId i = 0; i < n; ++i) dropped[i] = i == v || (i > 0 && dropped[c.parents[i]]);
  std::vector<NodeId> renumber(static_cast<std::size_t>(n), kNoNode);
  SmallCase out;
  out.vocab = c.vocab;
  for (NodeId i = 0; i < n; ++i) {
    if (dropped[i]) continue;
    renumber[i] = static_cast<NodeId>(out.parents.size());
    out.parents.push_back(i == 0 ? kNoNode : renumber[c.parents[i]]);
    out.tokens.push_back(c.tokens[i]);
    const auto first = c.weights.begin() + static_cast<std::ptrdiff_t>(i) * c.vocab;
    out.weights.insert(out.weights.end(), first, first + c.vocab);
  }
  return out;
}

rc::Gen<SmallCase> small_cases(int max_nodes, int max_vocab) {
  auto base = rc::gen::exec([=] {
    SmallCase c;
    c.vocab = *rc::gen::inRange(2, max_vocab + 1);
    const int n = *rc::gen::inRange(1, max_nodes + 1);
    c.parents = {kNoNode};
    c.tokens = {kNoToken};
    std::vector<std::vector<Token>> used(1);
    for (int i = 1; i < n; ++i) {
      const auto p = static_cast<NodeId>(*rc::gen::inRange(0, static_cast<int>(c.parents.size())));
      std::vector<Token> free;
      for (Token t = 0; t < c.vocab; ++t) {
        if (std::find(used[p].begin(), used[p].end(), t) == used[p].end()) free.push_back(t);
      }
      if (free.empty()) continue;  // parent already holds every token
      const Token t =
          free[static_cast<std::size_t>(*rc::gen::inRange(0, static_cast<int>(free.size())))];
      used[p].push_back(t);
      used.emplace_back();
      c.parents.push_back(p);
      c.tokens.push_back(t);
    }
    for (std::size_t v = 0; v < c.parents.size(); ++v) {
      auto row = *rc::gen::container<std::vector<int>>(static_cast<std::size_t>(c.vocab),
                                                       rc::gen::inRange(0, 10));
      if (std::all_of(row.begin(), row.end(), [](int w) { return w == 0; })) row[0] = 1;
      c.weights.insert(c.weights.end(), row.begin(), row.end());
    }
    return c;
  });
  // After RapidCheck's own shrinks, try removing each subtree: counterexamples end up minimal.
  return rc::gen::shrink(base, [](const SmallCase& c) {
    std::vector<SmallCase> smaller;
    for (NodeId v = static_cast<NodeId>(c.parents.size()) - 1; v >= 1; --v)
      smaller.push_back(drop_subtree(c, v));
    return rc::seq::fromContainer(std::move(smaller));
  });
}

void showValue(const SmallCase& c, std::ostream& os) {
  os << "SmallCase{vocab " << c.vocab << "; nodes (creation order):";
  for (std::size_t v = 0; v < c.parents.size(); ++v) {
    os << "\n  node " << v << ": parent " << c.parents[v] << ", token " << c.tokens[v]
       << ", row weights (";
    for (int a = 0; a < c.vocab; ++a)
      os << (a ? " " : "")
         << c.weights[v * static_cast<std::size_t>(c.vocab) + static_cast<std::size_t>(a)];
    os << ")";
  }
  os << "}";
}

}  // namespace tev::properties
