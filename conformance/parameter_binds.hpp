#pragma once
// Whether a sampling parameter of an engine-shaped case binds: changes the law its verifier is
// judged against by enough to be seen (conformance emit draws trees until the parameters a recipe
// names do).
#include <span>
#include <string_view>

#include "core/draft_tree.hpp"
#include "core/sampling_params.hpp"

namespace tev::conformance {

// A sampling parameter that binds on a case: dropping it (temperature 1, top-k 0, top-p 1, min-p 0,
// greedy: temperature 1) or, for the order, taking another one moves at least kBindingMass of the
// block law at a verified row: some node v with drafted children, whose acceptance reads its row,
// has P(v)·TV(row, row without it) ≥ kBindingMass, P(v) the product of the processed rows along
// v's path. Filters of a greedy case never bind (greedy ignores them).
enum class Parameter { temperature, top_k, top_p, min_p, order, greedy };
inline constexpr Parameter kParameters[] = {Parameter::temperature, Parameter::top_k,
                                            Parameter::top_p,       Parameter::min_p,
                                            Parameter::order,       Parameter::greedy};
inline constexpr double kBindingMass = 0.01;
std::string_view parameter_name(Parameter parameter);
// Whether `parameter` binds on the tree with logit rows (tree.size(), V) under params.
bool binds(const DraftTree& tree, std::span<const double> logits, const SamplingParams& params,
           Parameter parameter);

}  // namespace tev::conformance
