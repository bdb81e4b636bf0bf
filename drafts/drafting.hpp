#pragma once
// Drafting policies that sample the draft tree from q through a chooser, so exact enumeration runs
// over drafting × verification. A tree is drafted node by node: LazyDrafts draws a node's drafts
// the first time a verifier enters it, so only the subtrees a verifier enters are ever drawn.
#include <algorithm>
#include <map>
#include <numeric>
#include <span>
#include <string>
#include <vector>

#include "core/choosers.hpp"
#include "core/rejection_sampling.hpp"
#include "core/target_rows.hpp"
#include "drafts/language_pair.hpp"

namespace tev::drafts {

enum class DraftPolicy {
  chain,               // one token per node (speculative sampling's chain of `depth` tokens)
  independent_chains,  // `width` independent chains merged into a token tree (SpecInfer)
  iid_children,        // `width` children per node drawn i.i.d. from q, with replacement
  without_replacement,  // `width` distinct children per node drawn without replacement (Gumbel-top-k)
  top_k,                // the `width` most likely tokens under q, no randomness (DDTree-like)
};

struct Drafting {
  DraftPolicy policy = DraftPolicy::chain;
  std::int32_t width = 1;  // k; ignored by chain
  std::int32_t depth = 2;  // D: nodes at depth D are leaves
  std::string label() const;
};

// Draws of one node under the policy, in draw order: `count` tokens from the row q. Repeats are
// kept for the with-replacement policies (a verifier tests each draw); top-k takes positive-q
// tokens by decreasing q (ties: smaller token first).
template <class Chooser>
std::vector<Token> draft_tokens(DraftPolicy policy, std::span<const double> q, std::int32_t count,
                                Chooser& chooser) {
  std::vector<Token> drafts;
  if (policy == DraftPolicy::top_k) {
    std::vector<Token> order(q.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](Token a, Token b) {
      return q[static_cast<std::size_t>(a)] > q[static_cast<std::size_t>(b)];
    });
    for (Token t : order) {
      if (static_cast<std::int32_t>(drafts.size()) < count && q[static_cast<std::size_t>(t)] > 0.0)
        drafts.push_back(t);
    }
    return drafts;
  }
  std::vector<double> remaining(q.begin(), q.end());
  for (std::int32_t i = 0; i < count && compensated_total(remaining) > 0.0; ++i) {
    drafts.push_back(static_cast<Token>(chooser.categorical(remaining)));
    if (policy == DraftPolicy::without_replacement)
      remaining[static_cast<std::size_t>(drafts.back())] = 0.0;
  }
  return drafts;
}

// A node's distinct drafted tokens, first drawn first: its children in the token tree.
inline std::vector<Token> distinct_drafts(const std::vector<Token>& drafts) {
  std::vector<Token> children;
  for (Token t : drafts) {
    if (std::find(children.begin(), children.end(), t) == children.end()) children.push_back(t);
  }
  return children;
}

// A (partly) drafted tree: the node after each drafted prefix. Also the realized tree a
// fixed-tree verifier reads, where node() only looks up.
class DraftedTree {
 public:
  const DraftedNode& node(std::span<const Token> prefix) const;
  const DraftedTree& realized() const { return *this; }
  std::map<std::vector<Token>, DraftedNode>& nodes() { return nodes_; }
  const std::map<std::vector<Token>, DraftedNode>& nodes() const { return nodes_; }

  // The target-only view: a level-ordered DraftTree whose children are each node's distinct
  // drafted tokens (first drawn first), and the target rows of its nodes.
  std::pair<DraftTree, TargetRows> fixed_tree(std::int32_t vocab) const;

 private:
  std::map<std::vector<Token>, DraftedNode>
      nodes_;  // prefix → node; std::map keeps references stable
};

// Chooser sources for the drafting draws. Enumeration sends every draw through one chooser;
// the Monte Carlo keys each node's draws by its prefix (PhiloxNodeChoosers, judging/sampled_law.hpp).
template <class Chooser>
struct SharedNodeChooser {
  Chooser& chooser;
  Chooser& at(std::size_t /*prefix_index*/) { return chooser; }
};

// Draws each node's drafts the first time node() is asked for it (the verifier entered it).
// Pair: LanguagePair, or any source of p(prefix), q(prefix) spans and a node index(prefix) that
// keys the node's drafting draws (live/live_sampled.hpp's rows after a live context).
template <class NodeChoosers, class Pair = LanguagePair>
class LazyDrafts {
 public:
  LazyDrafts(const Pair& pair, const Drafting& drafting, NodeChoosers& choosers)
      : pair_(pair), drafting_(drafting), choosers_(choosers) {}

  const DraftedNode& node(std::span<const Token> prefix) {
    auto& nodes = tree_.nodes();
    const std::vector<Token> key(prefix.begin(), prefix.end());
    if (const auto it = nodes.find(key); it != nodes.end()) return it->second;
    DraftedNode n{pair_.p(prefix), pair_.q(prefix), {}};
    const std::int32_t count = draft_count(prefix);
    if (count > 0)
      n.drafts = draft_tokens(drafting_.policy, n.q, count, choosers_.at(pair_.index(prefix)));
    return nodes.emplace(key, std::move(n)).first->second;
  }

  // Drafts every node (depth first, children in first-drawn order): what a target-only verifier
  // needs, since it reads the whole tree.
  const DraftedTree& realized() {
    std::vector<Token> prefix;
    expand(prefix);
    return tree_;
  }

 private:
  // How many draws a node gets: chains continue only the chains that drew its token.
  std::int32_t draft_count(std::span<const Token> prefix) const {
    if (static_cast<std::int32_t>(prefix.size()) >= drafting_.depth) return 0;
    if (drafting_.policy == DraftPolicy::chain) return 1;
    if (drafting_.policy != DraftPolicy::independent_chains || prefix.empty())
      return drafting_.width;
    const DraftedNode& parent = tree_.node(prefix.first(prefix.size() - 1));
    return static_cast<std::int32_t>(
        std::count(parent.drafts.begin(), parent.drafts.end(), prefix.back()));
  }
  void expand(std::vector<Token>& prefix) {
    for (Token t : distinct_drafts(node(prefix).drafts)) {
      prefix.push_back(t);
      expand(prefix);
      prefix.pop_back();
    }
  }

  const Pair& pair_;
  Drafting drafting_;
  NodeChoosers& choosers_;
  DraftedTree tree_;
};

}  // namespace tev::drafts
