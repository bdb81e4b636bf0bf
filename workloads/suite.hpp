#pragma once
// The default suite of synthetic cases that `tevsuite check` runs every verifier on.
#include <cstdint>
#include <string>
#include <vector>

#include "core/draft_tree.hpp"
#include "core/philox.hpp"
#include "core/target_rows.hpp"
#include "workloads/synthetic.hpp"
#include "workloads/trees.hpp"

namespace tev::workloads {

// What the checker judges a verifier on: a tree and its target rows, with a label for tables. Live
// trees, conformance cases and synthetic trees are all CheckCases.
struct CheckCase {
  std::string label;  // e.g. "ddtree B=16 / logits(sigma=3.00,T=1.00)"
  DraftTree tree;
  TargetRows rows;
};

// How a synthetic case was made (synthetic trees only, kept beside the case, not inside it).
struct SyntheticOrigin {
  TreeShape shape;
  RowFamilySpec family;
  double draft_kl = 0.0;  // mean KL(target ‖ draft) over the tree's nodes
};
struct SyntheticCase {
  CheckCase check;
  SyntheticOrigin origin;
};
// origins[i] made cases[i].
struct SyntheticSuite {
  std::vector<CheckCase> cases;
  std::vector<SyntheticOrigin> origins;
  void push_back(SyntheticCase c) {
    cases.push_back(std::move(c.check));
    origins.push_back(c.origin);
  }
};

struct SuiteConfig {
  std::int32_t trees = 8;
  std::int32_t vocab = 16;
  std::int32_t budget = 16;  // non-root nodes per tree (a star is capped at the vocabulary)
  std::uint32_t seed = kDefaultSeed;
  double draft_noise = 0.5;
};

// Cycles through shape × row-family pairs chosen to cover peaked, flat and near-deterministic
// rows, deep chains, wide stars and DDTree-built trees. Case i uses generation id i.
SyntheticSuite make_suite(const SuiteConfig& config);

// One synthetic case: a tree of the shape (a star capped at the vocabulary) whose tokens the
// drafter picks, and the target rows on it. `id` selects the case's generation substreams.
SyntheticCase make_case(TreeShape shape, const RowFamilySpec& family, std::int32_t arity,
                        const SuiteConfig& config, std::uint32_t id);

// The Theorem 1 sweep: every budget × shape × row family, as cases in that order.
struct SweepConfig {
  std::vector<std::int32_t> budgets;
  std::vector<TreeShape> shapes;
  std::vector<RowFamilySpec> families;
  std::int32_t vocab = 32;
  std::uint32_t seed = kDefaultSeed;
  double draft_noise = 0.5;
};
SyntheticSuite make_sweep(const SweepConfig& config);

}  // namespace tev::workloads
