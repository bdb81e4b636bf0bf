// Laws of the canonical exit law and of the verifiers as RapidCheck properties over small random
// trees (seed fixed by RC_PARAMS in ctest). Verifier properties use exact enumeration, so a
// failure is never sampling noise and shrinking is reliable.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/exact_law.hpp"
#include "core/exit_law.hpp"
#include "properties/small_case.hpp"

namespace tev::properties {
namespace {

constexpr double kTolerance = 1e-12;

double exact_tv(VerifierId id, const DraftTree& tree, const TargetRows& rows) {
  const ExitLaw law = ExitLaw::compute(tree, rows);
  return total_variation(enumerate_verifier(id, tree, rows).completed,
                         canonical_block_law(tree, rows, law));
}

RC_GTEST_PROP(ExitLawProperty, ExitWeightsSumToOne, (const SmallCase& c)) {
  const ExitLaw law = ExitLaw::compute(c.tree(), c.rows());
  RC_ASSERT(std::abs(std::accumulate(law.exit.begin(), law.exit.end(), 0.0) - 1.0) <= kTolerance);
}

RC_GTEST_PROP(ExitLawProperty, TwoFormsOfCoverageAgree, (const SmallCase& c)) {
  const ExitLaw law = ExitLaw::compute(c.tree(), c.rows());
  RC_ASSERT(std::abs(law.coverage - law.coverage_by_depth) <= kTolerance);
}

RC_GTEST_PROP(ExitLawProperty, ProbabilityIsConservedAtEveryNode, (const SmallCase& c)) {
  const DraftTree t = c.tree();
  const ExitLaw law = ExitLaw::compute(t, c.rows());
  for (NodeId v = 0; v < t.size(); ++v) {
    double flow = law.exit[v];
    for (NodeId u = t.first_child[v]; u < t.first_child[v] + t.child_count[v]; ++u)
      flow += law.prefix[u];
    RC_ASSERT(std::abs(flow - law.prefix[v]) <= kTolerance);
  }
}

RC_GTEST_PROP(ExitLawProperty, SubtreeExitMassIsPrefixProbability, (const SmallCase& c)) {
  const DraftTree t = c.tree();
  const ExitLaw law = ExitLaw::compute(t, c.rows());
  std::vector<double> subtree(law.exit);
  // Level order: children come after parents, so a backward pass accumulates subtrees.
  for (NodeId v = t.size() - 1; v >= 1; --v) subtree[t.parent[v]] += subtree[v];
  for (NodeId u = 0; u < t.size(); ++u)
    RC_ASSERT(std::abs(subtree[u] - law.prefix[u]) <= kTolerance);
}

RC_GTEST_PROP(VerifierProperty, SaturatedVerifiersMatchTheCanonicalLaw, (const SmallCase& c)) {
  const DraftTree t = c.tree();
  const TargetRows rows = c.rows();
  for (const VerifierInfo& info : verifier_catalog()) {
    if (info.kind == VerifierKind::mutant) continue;
    RC_ASSERT(exact_tv(info.id, t, rows) <= kTolerance);
  }
}

RC_GTEST_PROP(VerifierProperty, SequentialResidualIsInvariantToChildOrder, (const SmallCase& c)) {
  const DraftTree t = c.tree();
  const TargetRows rows = c.rows();
  ChildOrder order = ChildOrder::stored(t);
  for (NodeId v = 0; v < t.size(); ++v) {
    auto first = order.sequence.begin() + t.first_child[v];
    // Fisher–Yates with RapidCheck's own draws, so the order shrinks with the case.
    for (std::int32_t k = t.child_count[v] - 1; k > 0; --k)
      std::swap(first[k], first[*rc::gen::inRange(0, k + 1)]);
  }
  const auto stored = enumerate_verifier(VerifierId::sequential_residual, t, rows);
  const auto permuted = enumerate_verifier(
      t, rows, [&](EnumeratingChooser& ch) { return sequential_residual(t, rows, ch, order); });
  RC_ASSERT(total_variation(stored.completed, permuted.completed) <= kTolerance);
  RC_ASSERT(std::abs(stored.mean_length - permuted.mean_length) <= kTolerance);
}

// Each mutant must be refuted: RapidCheck searches for a tree where its exact law differs from
// the canonical law and shrinks it (subtree by subtree) to a small counterexample, printed here.
TEST(MutantProperty, EveryMutantIsRefutedWithAShrunkCounterexample) {
  for (const VerifierInfo& info : verifier_catalog()) {
    if (info.kind != VerifierKind::mutant) continue;
    std::cout << "=== expecting a counterexample for " << info.name << " (" << info.description
              << ")\n";
    const bool holds = rc::check(std::string(info.name) + " realizes the canonical law",
                                 [id = info.id](const SmallCase& c) {
                                   RC_ASSERT(exact_tv(id, c.tree(), c.rows()) <= kTolerance);
                                 });
    EXPECT_FALSE(holds) << info.name << " survived every generated tree";
  }
}

}  // namespace
}  // namespace tev::properties
