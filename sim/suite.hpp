#pragma once
// The default suite of synthetic cases that `tevsuite check` runs every verifier on.
#include <cstdint>
#include <string>
#include <vector>

#include "core/draft_tree.hpp"
#include "core/target_rows.hpp"
#include "sim/synthetic.hpp"
#include "sim/trees.hpp"

namespace tev {

struct SuiteCase {
  std::string label;  // shape and row family, e.g. "ddtree / logits(sigma=3.00,T=1.00)"
  TreeShape shape;
  RowFamilySpec family;
  DraftTree tree;
  TargetRows rows;
  double draft_kl = 0.0;  // mean KL(target ‖ draft) over the tree's nodes
};

struct SuiteConfig {
  std::int32_t trees = 8;
  std::int32_t vocab = 16;
  std::int32_t budget = 16;  // non-root nodes per tree (a star is capped at the vocabulary)
  std::uint32_t seed = 20261130;
  double draft_noise = 0.5;
};

// Cycles through shape × row-family pairs chosen to cover peaked, flat and near-deterministic
// rows, deep chains, wide stars and DDTree-built trees. Case i uses generation id i.
std::vector<SuiteCase> make_suite(const SuiteConfig& config);

// One synthetic case: a tree of the shape (a star capped at the vocabulary) whose tokens the
// drafter picks, and the target rows on it. `id` selects the case's generation substreams.
SuiteCase make_case(TreeShape shape, const RowFamilySpec& family, std::int32_t arity, const SuiteConfig& config,
                    std::uint32_t id);

// The Theorem 1 sweep: every budget × shape × row family, as cases in that order.
struct SweepConfig {
  std::vector<std::int32_t> budgets;
  std::vector<TreeShape> shapes;
  std::vector<RowFamilySpec> families;
  std::int32_t vocab = 32;
  std::uint32_t seed = 20261130;
  double draft_noise = 0.5;
};
std::vector<SuiteCase> make_sweep(const SweepConfig& config);

}  // namespace tev
