#include "workloads/trees.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <queue>
#include <stdexcept>
#include <string>

namespace tev::workloads {

std::string_view shape_name(TreeShape shape) {
  switch (shape) {
    case TreeShape::random_recursive:
      return "random";
    case TreeShape::chain:
      return "chain";
    case TreeShape::star:
      return "star";
    case TreeShape::full_kary:
      return "k-ary";
    case TreeShape::ddtree:
      return "ddtree";
  }
  return "unknown";
}

namespace {

// Parent of node i (1-based creation order), for the shapes whose structure is fixed first.
std::vector<NodeId> shape_parents(TreeShape shape, std::int32_t budget, std::int32_t vocab,
                                  std::int32_t arity, PhiloxEngine& engine) {
  std::vector<NodeId> parents(static_cast<std::size_t>(budget) + 1, kNoNode);
  std::vector<std::int32_t> children(parents.size(), 0);
  for (NodeId i = 1; i <= budget; ++i) {
    NodeId p = 0;
    switch (shape) {
      case TreeShape::chain:
        p = i - 1;
        break;
      case TreeShape::star:
        p = 0;
        break;
      case TreeShape::full_kary:
        p = (i - 1) / arity;
        break;
      case TreeShape::random_recursive:
        // A node can hold at most `vocab` children; redraw until the parent has room.
        do {
          p = static_cast<NodeId>(engine() % static_cast<std::uint32_t>(i));
        } while (children[p] >= vocab);
        break;
      case TreeShape::ddtree:
        throw std::logic_error("ddtree has no fixed shape");
    }
    parents[i] = p;
    ++children[p];
  }
  return parents;
}

// A token from the draft row, excluding tokens already taken by siblings.
Token draw_unused_token(std::vector<double> q, std::span<const Token> taken, PhiloxEngine& engine) {
  for (Token t : taken) q[static_cast<std::size_t>(t)] = 0.0;
  double total = std::accumulate(q.begin(), q.end(), 0.0);
  if (!(total > 0.0)) {
    // The draft puts no mass on the free tokens: take them uniformly.
    std::fill(q.begin(), q.end(), 1.0);
    for (Token t : taken) q[static_cast<std::size_t>(t)] = 0.0;
    total = std::accumulate(q.begin(), q.end(), 0.0);
  }
  const double target = engine.uniform() * total;
  double acc = 0.0;
  Token last_positive = kNoToken;
  for (std::size_t a = 0; a < q.size(); ++a) {
    if (q[a] <= 0.0) continue;
    acc += q[a];
    last_positive = static_cast<Token>(a);
    if (acc >= target) return last_positive;
  }
  return last_positive;  // rounding at the end of the cumulative sum
}

}  // namespace

BuiltTree build_tree(TreeShape shape, std::int32_t budget, const SyntheticLanguage& language,
                     PhiloxEngine& engine, std::int32_t arity) {
  const std::int32_t vocab = language.vocab();
  if (budget < 0) throw std::invalid_argument("budget must be non-negative");
  if (shape == TreeShape::ddtree)
    return ddtree_best_first(drafter_marginals(language, budget), budget);
  if (shape == TreeShape::star && budget > vocab) {
    throw std::invalid_argument("a star of " + std::to_string(budget) +
                                " children needs a vocabulary of at least that size");
  }
  if (shape == TreeShape::full_kary && (arity < 1 || arity > vocab)) {
    throw std::invalid_argument("a full k-ary tree needs 1 <= k <= vocabulary size, got k = " +
                                std::to_string(arity));
  }
  const std::vector<NodeId> parents = shape_parents(shape, budget, vocab, arity, engine);
  std::vector<Token> tokens(parents.size(), kNoToken);
  std::vector<std::vector<Token>> taken(parents.size());
  std::vector<std::vector<Token>> path(parents.size());
  // Parents are created before their children in every shape, so paths are known in order.
  for (std::size_t i = 1; i < parents.size(); ++i) {
    const auto p = static_cast<std::size_t>(parents[i]);
    tokens[i] = draw_unused_token(language.draft_row(path[p]), taken[p], engine);
    taken[p].push_back(tokens[i]);
    path[i] = path[p];
    path[i].push_back(tokens[i]);
  }
  return tree_from_parents(parents, tokens, vocab);
}

RankedRow rank_row(std::span<const double> q, std::int32_t keep) {
  const auto vocab = static_cast<std::int32_t>(q.size());
  const auto kept = static_cast<std::size_t>(std::clamp(keep, 0, vocab));
  std::vector<Token> order(static_cast<std::size_t>(vocab));
  std::iota(order.begin(), order.end(), 0);
  auto before = [&](Token a, Token b) { return q[a] > q[b] || (q[a] == q[b] && a < b); };
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(kept), order.end(),
                    before);
  RankedRow ranked;
  ranked.tokens.assign(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(kept));
  for (Token t : ranked.tokens)
    ranked.log_q.push_back(q[t] > 0.0 ? std::log(q[t]) : -std::numeric_limits<double>::infinity());
  return ranked;
}

BuiltTree best_first_tree(const RankedRowSource& ranked_at, std::int32_t budget,
                          std::int32_t depth_limit, std::int32_t vocab) {
  struct Candidate {
    double score;         // cumulative log-probability of the path
    std::uint64_t order;  // creation order, to break ties deterministically
    NodeId parent;        // in heap order
    std::int32_t rank;    // rank of its token in the parent's ranked row
  };
  auto worse = [](const Candidate& a, const Candidate& b) {
    return a.score < b.score || (a.score == b.score && a.order > b.order);
  };
  std::priority_queue<Candidate, std::vector<Candidate>, decltype(worse)> frontier(worse);
  std::uint64_t created = 0;
  std::vector<NodeId> parents = {kNoNode};
  std::vector<Token> tokens = {kNoToken};
  std::vector<double> score = {0.0};
  std::vector<std::int32_t> depth = {0};
  std::vector<RankedRow> ranked;  // (heap order) the ranked draft row of each expanded node
  std::vector<Token> path;
  // Ranks node v's children and offers its best one.
  auto expand = [&](NodeId v) {
    path.clear();
    for (NodeId u = v; u != 0; u = parents[static_cast<std::size_t>(u)])
      path.push_back(tokens[static_cast<std::size_t>(u)]);
    std::reverse(path.begin(), path.end());
    ranked.resize(std::max(ranked.size(), static_cast<std::size_t>(v) + 1));
    ranked[static_cast<std::size_t>(v)] = ranked_at(path);
    if (!ranked[static_cast<std::size_t>(v)].tokens.empty())
      frontier.push(
          {score[static_cast<std::size_t>(v)] + ranked[static_cast<std::size_t>(v)].log_q[0],
           created++, v, 0});
  };
  if (depth_limit >= 1 && budget > 0) expand(0);
  while (!frontier.empty() && static_cast<std::int32_t>(parents.size()) <= budget) {
    const Candidate c = frontier.top();
    frontier.pop();
    const auto id = static_cast<NodeId>(parents.size());
    const RankedRow& siblings = ranked[static_cast<std::size_t>(c.parent)];
    parents.push_back(c.parent);
    tokens.push_back(siblings.tokens[static_cast<std::size_t>(c.rank)]);
    score.push_back(c.score);
    depth.push_back(depth[static_cast<std::size_t>(c.parent)] + 1);
    if (static_cast<std::size_t>(c.rank) + 1 < siblings.tokens.size()) {
      frontier.push({score[static_cast<std::size_t>(c.parent)] +
                         siblings.log_q[static_cast<std::size_t>(c.rank) + 1],
                     created++, c.parent, c.rank + 1});
    }
    // A node that cannot get a child within the budget needs no draft row.
    if (depth.back() < depth_limit && static_cast<std::int32_t>(parents.size()) <= budget)
      expand(id);
  }
  return tree_from_parents(parents, tokens, vocab);
}

BuiltTree ddtree_best_first(std::span<const std::vector<double>> marginals, std::int32_t budget) {
  if (marginals.empty()) throw std::invalid_argument("ddtree_best_first: no draft marginals");
  const auto vocab = static_cast<std::int32_t>(marginals.front().size());
  std::vector<RankedRow>
      ranked;  // (H) depth d's tokens by decreasing q_d, shared by every node at depth d − 1
  for (const std::vector<double>& q : marginals) {
    if (static_cast<std::int32_t>(q.size()) != vocab)
      throw std::invalid_argument("ddtree_best_first: marginals of different sizes");
    ranked.push_back(rank_row(q, budget));
  }
  return best_first_tree([&](std::span<const Token> path) { return ranked[path.size()]; }, budget,
                         static_cast<std::int32_t>(marginals.size()), vocab);
}

BuiltTree dynamic_best_first(const DraftRowSource& draft_row, std::int32_t budget,
                             std::int32_t vocab) {
  return best_first_tree(
      [&](std::span<const Token> path) { return rank_row(draft_row(path), budget); }, budget,
      budget, vocab);
}

std::vector<std::vector<double>> chain_marginals(const DraftRowSource& draft_row,
                                                 std::int32_t depth) {
  std::vector<std::vector<double>> marginals;
  std::vector<Token> chain;
  for (std::int32_t d = 0; d < depth; ++d) {
    marginals.push_back(draft_row(chain));
    const auto& q = marginals.back();
    chain.push_back(static_cast<Token>(std::max_element(q.begin(), q.end()) - q.begin()));
  }
  return marginals;
}

std::vector<std::vector<double>> drafter_marginals(const SyntheticLanguage& language,
                                                   std::int32_t depth) {
  return chain_marginals([&](std::span<const Token> path) { return language.draft_row(path); },
                         depth);
}

}  // namespace tev::workloads
