#include "conformance/parameter_binds.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "core/compensated_sum.hpp"

namespace tev::conformance {

namespace {

// The processed rows (tree.size(), V) of the tree's internal nodes (leaves' rows left empty).
std::vector<std::vector<double>> internal_rows(const DraftTree& tree,
                                               std::span<const double> logits,
                                               const SamplingParams& params) {
  const auto vocab = static_cast<std::size_t>(tree.vocab);
  std::vector<std::vector<double>> rows(static_cast<std::size_t>(tree.size()));
  for (NodeId v = 0; v < tree.size(); ++v) {
    if (tree.is_leaf(v)) continue;
    rows[static_cast<std::size_t>(v)].resize(vocab);
    process_logits(logits.subspan(static_cast<std::size_t>(v) * vocab, vocab), params,
                   rows[static_cast<std::size_t>(v)]);
  }
  return rows;
}

// The largest P(v)·TV at a verified row between params and `other`, P(v) under params.
double moved_mass(const DraftTree& tree, std::span<const double> logits,
                  const SamplingParams& params, const SamplingParams& other) {
  const auto rows = internal_rows(tree, logits, params),
             others = internal_rows(tree, logits, other);
  std::vector<double> reach(static_cast<std::size_t>(tree.size()),
                            1.0);  // P(v): level order puts parents first
  double moved = 0.0;
  for (NodeId v = 0; v < tree.size(); ++v) {
    if (v > 0)
      reach[static_cast<std::size_t>(v)] =
          reach[static_cast<std::size_t>(tree.parent[v])] *
          rows[static_cast<std::size_t>(tree.parent[v])][static_cast<std::size_t>(tree.token[v])];
    if (tree.is_leaf(v)) continue;
    CompensatedSum tv;
    for (std::size_t a = 0; a < rows[static_cast<std::size_t>(v)].size(); ++a)
      tv.add(
          std::abs(rows[static_cast<std::size_t>(v)][a] - others[static_cast<std::size_t>(v)][a]));
    moved = std::max(moved, reach[static_cast<std::size_t>(v)] * tv.value() / 2.0);
  }
  return moved;
}

}  // namespace

std::string_view parameter_name(Parameter parameter) {
  switch (parameter) {
    case Parameter::temperature:
      return "temperature";
    case Parameter::top_k:
      return "top_k";
    case Parameter::top_p:
      return "top_p";
    case Parameter::min_p:
      return "min_p";
    case Parameter::order:
      return "order";
    case Parameter::greedy:
      return "greedy";
  }
  throw std::invalid_argument("not a sampling parameter");
}

bool binds(const DraftTree& tree, std::span<const double> logits, const SamplingParams& params,
           Parameter parameter) {
  if (params.greedy() != (parameter == Parameter::greedy)) return false;
  auto moves = [&](const SamplingParams& other) {
    return moved_mass(tree, logits, params, other) >= kBindingMass;
  };
  SamplingParams other = params;
  switch (parameter) {
    case Parameter::temperature:
    case Parameter::greedy:
      if (params.temperature == 1.0) return false;
      other.temperature = 1.0;
      return moves(other);
    case Parameter::top_k:
      other.top_k = 0;
      return params.top_k != 0 && moves(other);
    case Parameter::top_p:
      other.top_p = 1.0;
      return params.top_p != 1.0 && moves(other);
    case Parameter::min_p:
      other.min_p = 0.0;
      return params.min_p != 0.0 && moves(other);
    case Parameter::order:
      for (FilterOrder order :
           {FilterOrder::min_p_first, FilterOrder::min_p_last, FilterOrder::top_p_full_and_top_k}) {
        other.order = order;
        if (order != params.order && moves(other)) return true;
      }
      return false;
  }
  return false;
}

}  // namespace tev::conformance
