// Exact laws by enumeration: no sampling noise, so equality is checked to 1e-12.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <numeric>

#include "core/exact_law.hpp"
#include "core/exit_law.hpp"
#include "sim/suite.hpp"

namespace tev {
namespace {

constexpr double kTolerance = 1e-12;

std::vector<SuiteCase> cases() { return make_suite({.trees = 16, .vocab = 5, .budget = 6, .seed = 77}); }

struct Reference {
  std::vector<double> law;
  double ceiling;
};
Reference reference(const SuiteCase& c) {
  const ExitLaw law = ExitLaw::compute(c.tree, c.rows);
  return {canonical_block_law(c.tree, c.rows, law), law.ceiling()};
}

TEST(ExactLaw, SaturatedVerifiersRealizeTheCanonicalLaw) {
  for (const SuiteCase& c : cases()) {
    const Reference ref = reference(c);
    for (const VerifierInfo& info : verifier_catalog()) {
      if (info.kind != VerifierKind::saturated) continue;
      const ExactOutcome exact = enumerate_verifier(info.id, c.tree, c.rows);
      EXPECT_LE(total_variation(exact.completed, ref.law), kTolerance) << info.name << " on " << c.label;
      EXPECT_NEAR(exact.mean_length, ref.ceiling, kTolerance) << info.name << " on " << c.label;
      EXPECT_LE(exact.completion_probability, kTolerance) << info.name << " on " << c.label;
    }
  }
}

// Every combination of per-node child orders (Cartesian product of permutations).
TEST(ExactLaw, SequentialResidualUnderEveryChildOrder) {
  for (const SuiteCase& c : cases()) {
    const Reference ref = reference(c);
    ChildOrder order = ChildOrder::stored(c.tree);
    std::size_t orders = 0;
    for (bool more = true; more; ++orders) {
      const ExactOutcome exact = enumerate_verifier(c.tree, c.rows, [&](EnumeratingChooser& ch) {
        return sequential_residual(c.tree, c.rows, ch, order);
      });
      ASSERT_LE(total_variation(exact.completed, ref.law), kTolerance) << c.label << " order #" << orders;
      ASSERT_NEAR(exact.mean_length, ref.ceiling, kTolerance) << c.label;
      // Odometer over the nodes' permutations.
      more = false;
      for (NodeId v = 0; v < c.tree.size() && !more; ++v) {
        auto first = order.sequence.begin() + c.tree.first_child[v];
        more = std::next_permutation(first, first + c.tree.child_count[v]);
      }
    }
    EXPECT_GE(orders, 1u);
  }
}

TEST(ExactLaw, UnsaturatedVerifiersAreExactAfterCompletionAndFallShort) {
  for (const SuiteCase& c : cases()) {
    const Reference ref = reference(c);
    const ExitLaw law = ExitLaw::compute(c.tree, c.rows);
    // The chain loses length wherever a reachable node has a second child with target mass;
    // early stopping wherever a reachable internal node has child mass.
    bool second_child_mass = false, child_mass = false;
    for (NodeId v = 0; v < c.tree.size(); ++v) {
      for (NodeId u = c.tree.first_child[v]; u < c.tree.first_child[v] + c.tree.child_count[v]; ++u) {
        if (law.prefix[u] > 0) {
          child_mass = true;
          second_child_mass = second_child_mass || u > c.tree.first_child[v];
        }
      }
    }
    for (VerifierId id : {VerifierId::first_child_chain, VerifierId::early_stopping}) {
      const ExactOutcome exact = enumerate_verifier(id, c.tree, c.rows);
      EXPECT_LE(total_variation(exact.completed, ref.law), kTolerance) << verifier_info(id).name << " on " << c.label;
      EXPECT_LE(exact.mean_length, ref.ceiling + kTolerance) << verifier_info(id).name;
      const bool must_fall_short = id == VerifierId::first_child_chain ? second_child_mass : child_mass;
      if (must_fall_short) {
        EXPECT_LT(exact.mean_length, ref.ceiling - 1e-9) << verifier_info(id).name << " on " << c.label;
        EXPECT_GT(exact.completion_probability, 0.0) << verifier_info(id).name << " on " << c.label;
      }
    }
  }
}

TEST(ExactLaw, EveryMutantDiffersFromTheCanonicalLaw) {
  const auto suite = cases();
  for (const VerifierInfo& info : verifier_catalog()) {
    if (info.kind != VerifierKind::mutant) continue;
    double worst = 0.0;
    for (const SuiteCase& c : suite) {
      worst = std::max(worst, total_variation(enumerate_verifier(info.id, c.tree, c.rows).completed, reference(c).law));
    }
    std::cout << "  " << info.name << ": largest exact TV over " << suite.size() << " trees = " << worst << '\n';
    RecordProperty(std::string(info.name), std::to_string(worst));
    EXPECT_GT(worst, kTolerance) << info.name << " is indistinguishable from the canonical law";
  }
}

}  // namespace
}  // namespace tev
