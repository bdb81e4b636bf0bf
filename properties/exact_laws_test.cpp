// Exact laws by enumeration: no sampling noise, so equality is checked to 1e-12.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <numeric>

#include "core/compensated_sum.hpp"
#include "core/exact_law.hpp"
#include "core/exit_law.hpp"
#include "workloads/suite.hpp"

namespace tev::properties {
namespace {

constexpr double kTolerance = 1e-12;
constexpr double kAgreement =
    1e-15;  // lumped against per-token enumeration: the same sums, reordered

std::vector<workloads::CheckCase> cases() {
  return workloads::make_suite({.trees = 16, .vocab = 5, .budget = 6, .seed = 77}).cases;
}

struct Reference {
  std::vector<double> law;
  double ceiling;
};
Reference reference(const workloads::CheckCase& c) {
  const ExitLaw law = ExitLaw::compute(c.tree, c.rows);
  return {canonical_block_law(c.tree, c.rows, law), law.ceiling()};
}

TEST(ExactLaw, SaturatedVerifiersRealizeTheCanonicalLaw) {
  for (const workloads::CheckCase& c : cases()) {
    const Reference ref = reference(c);
    for (const VerifierInfo& info : verifier_catalog()) {
      if (info.kind != VerifierKind::saturated) continue;
      const ExactOutcome exact = enumerate_verifier(info.id, c.tree, c.rows);
      EXPECT_LE(total_variation(exact.completed, ref.law), kTolerance)
          << info.name << " on " << c.label;
      EXPECT_NEAR(exact.mean_length, ref.ceiling, kTolerance) << info.name << " on " << c.label;
      EXPECT_LE(exact.completion_probability, kTolerance) << info.name << " on " << c.label;
    }
  }
}

// Every combination of per-node child orders (Cartesian product of permutations).
TEST(ExactLaw, SequentialResidualUnderEveryChildOrder) {
  for (const workloads::CheckCase& c : cases()) {
    const Reference ref = reference(c);
    ChildOrder order = ChildOrder::stored(c.tree);
    std::size_t orders = 0;
    for (bool more = true; more; ++orders) {
      const ExactOutcome exact = enumerate_verifier(c.tree, c.rows, [&](EnumeratingChooser& ch) {
        return sequential_residual(c.tree, c.rows, ch, order);
      });
      ASSERT_LE(total_variation(exact.completed, ref.law), kTolerance)
          << c.label << " order #" << orders;
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
  for (const workloads::CheckCase& c : cases()) {
    const Reference ref = reference(c);
    const ExitLaw law = ExitLaw::compute(c.tree, c.rows);
    // The chain loses length wherever a reachable node has a second child with target mass;
    // early stopping wherever a reachable internal node has child mass.
    bool second_child_mass = false, child_mass = false;
    for (NodeId v = 0; v < c.tree.size(); ++v) {
      for (NodeId u = c.tree.first_child[v]; u < c.tree.first_child[v] + c.tree.child_count[v];
           ++u) {
        if (law.prefix[u] > 0) {
          child_mass = true;
          second_child_mass = second_child_mass || u > c.tree.first_child[v];
        }
      }
    }
    for (VerifierId id : {VerifierId::first_child_chain, VerifierId::early_stopping}) {
      const ExactOutcome exact = enumerate_verifier(id, c.tree, c.rows);
      EXPECT_LE(total_variation(exact.completed, ref.law), kTolerance)
          << verifier_info(id).name << " on " << c.label;
      EXPECT_LE(exact.mean_length, ref.ceiling + kTolerance) << verifier_info(id).name;
      const bool must_fall_short =
          id == VerifierId::first_child_chain ? second_child_mass : child_mass;
      if (must_fall_short) {
        EXPECT_LT(exact.mean_length, ref.ceiling - 1e-9)
            << verifier_info(id).name << " on " << c.label;
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
    for (const workloads::CheckCase& c : suite) {
      worst = std::max(worst, total_variation(enumerate_verifier(info.id, c.tree, c.rows).completed,
                                              reference(c).law));
    }
    std::cout << "  " << info.name << ": largest exact TV over " << suite.size()
              << " trees = " << worst << '\n';
    RecordProperty(std::string(info.name), std::to_string(worst));
    EXPECT_GT(worst, kTolerance) << info.name << " is indistinguishable from the canonical law";
  }
}

// Lumping is bookkeeping only: one branch per token of every draw gives the same law, E[L] and
// completion probability to rounding, for every verifier and mutant, on the small suite and on
// trees like `tevsuite check`'s (V = 32, B = 16), where a token draw has many more tokens than children.
TEST(ExactLaw, LumpedEnumerationEqualsPerTokenEnumeration) {
  std::vector<workloads::CheckCase> suite = cases();
  for (workloads::CheckCase& c :
       workloads::make_suite({.trees = 8, .vocab = 32, .budget = 16, .seed = 78}).cases)
    suite.push_back(std::move(c));
  for (const workloads::CheckCase& c : suite) {
    for (const VerifierInfo& info : verifier_catalog()) {
      const ExactOutcome lumped = enumerate_verifier(info.id, c.tree, c.rows);
      const ExactOutcome per_token =
          enumerate_verifier(info.id, c.tree, c.rows, {.token_draws = TokenDraws::per_token});
      EXPECT_EQ(lumped.token_draws, TokenDraws::lumped) << info.name;
      double worst = 0.0;
      for (std::size_t i = 0; i < lumped.completed.size(); ++i)
        worst = std::max(worst, std::abs(lumped.completed[i] - per_token.completed[i]));
      EXPECT_LE(worst, kAgreement) << info.name << " on " << c.label;
      // E[L] reaches B + 1: the same sums agree to kAgreement relative to it.
      EXPECT_NEAR(lumped.mean_length, per_token.mean_length, kAgreement * per_token.mean_length)
          << info.name << " on " << c.label;
      EXPECT_NEAR(lumped.completion_probability, per_token.completion_probability, kAgreement)
          << info.name << " on " << c.label;
      EXPECT_LE(lumped.branches, per_token.branches) << info.name << " on " << c.label;
    }
  }
}

// Predraw that, having drawn a token outside the tree, draws the bonus afresh from the full row
// (a resample-on-miss bug). It draws again after a non-child token, so its draws cannot be lumped.
template <class Chooser>
Block redraw_after_miss(const DraftTree& tree, const TargetRows& rows, Chooser& chooser) {
  const Block miss = predraw_and_follow(tree, rows, chooser);
  return {miss.exit, chooser.next_token(tree, miss.exit, rows.row(miss.exit))};
}

// Predraw that emits the token after the one drawn (an id offset bug): it does not return a
// non-child token as the bonus, so its draws cannot be lumped either.
template <class Chooser>
Block bonus_token_off_by_one(const DraftTree& tree, const TargetRows& rows, Chooser& chooser) {
  const Block miss = predraw_and_follow(tree, rows, chooser);
  return {miss.exit, (miss.bonus + 1) % tree.vocab};
}

TEST(ExactLaw, AVerifierThatBreaksTheLumpingPromiseIsEnumeratedTokenByToken) {
  for (const workloads::CheckCase& c : cases()) {
    // Both bugs show wherever a reachable node can draw a child's token and a token outside the tree.
    const ExitLaw law = ExitLaw::compute(c.tree, c.rows);
    bool mixed = false;
    for (NodeId v = 0; v < c.tree.size(); ++v)
      mixed = mixed || (law.prefix[v] > 0.0 && law.rho[v] > 0.0 && c.tree.child_count[v] > 0 &&
                        law.rho[v] < 1.0 - kTolerance);
    for (auto verify : {+[](const workloads::CheckCase&s, EnumeratingChooser&ch) {
                          return redraw_after_miss(s.tree, s.rows, ch);
                        },
                        +[](const workloads::CheckCase&s, EnumeratingChooser&ch) {
                          return bonus_token_off_by_one(s.tree, s.rows, ch);
                        }}) {
      auto run = [&](EnumeratingChooser& ch) { return verify(c, ch); };
      const ExactOutcome fallback = enumerate_verifier(c.tree, c.rows, run);
      const ExactOutcome per_token =
          enumerate_verifier(c.tree, c.rows, run, {.token_draws = TokenDraws::per_token});
      EXPECT_EQ(fallback.token_draws, TokenDraws::per_token) << c.label;
      EXPECT_EQ(fallback.completed, per_token.completed) << c.label;
      EXPECT_NEAR(compensated_total(fallback.completed), 1.0, kTolerance) << c.label;
      if (mixed) {
        EXPECT_GT(total_variation(fallback.completed, reference(c).law), kTolerance) << c.label;
      }
    }
  }
  // At a real vocabulary one per-token draw is already over the branch budget: it says so.
  const workloads::CheckCase large =
      workloads::make_suite({.trees = 1, .vocab = 151936, .budget = 8, .seed = 79}).cases.front();
  EXPECT_THROW(enumerate_verifier(large.tree, large.rows,
                                  [&](EnumeratingChooser& ch) {
                                    return redraw_after_miss(large.tree, large.rows, ch);
                                  }),
               EnumerationBudgetExceeded);
}

// A verifier may return a block on no cell: predraw-and-follow with every bonus of token 0 moved
// off the vocabulary. Its blocks are the canonical ones (it is saturated: no bonus is a child's
// token, so none is completed), so the off-cell mass is the canonical law's token-0 column, the
// completed law is the canonical one without it, TV is that mass, and E[L] is still the ceiling.
TEST(ExactLaw, BlocksOnNoCellAreCountedApart) {
  double largest = 0.0;
  for (const workloads::CheckCase& c : cases()) {
    const Reference ref = reference(c);
    const auto vocab = static_cast<std::size_t>(c.tree.vocab);
    const ExactOutcome exact = enumerate_verifier(c.tree, c.rows, [&](EnumeratingChooser& ch) {
      const Block b = predraw_and_follow(c.tree, c.rows, ch);
      const double length = c.tree.depth[b.exit] + 1.0;
      return b.bonus == 0 ? CountedBlock{std::nullopt, length} : CountedBlock{b, length};
    });
    CompensatedSum column;
    std::vector<double> without = ref.law;
    for (std::size_t v = 0; v < static_cast<std::size_t>(c.tree.size()); ++v) {
      column.add(ref.law[v * vocab]);
      without[v * vocab] = 0.0;
    }
    EXPECT_NEAR(exact.off_cells, column.value(), kTolerance) << c.label;
    EXPECT_LE(total_variation(exact.completed, without), kTolerance) << c.label;
    EXPECT_NEAR(exact_tv(exact, ref.law), column.value(), kTolerance) << c.label;
    EXPECT_NEAR(exact.mean_length, ref.ceiling, kTolerance) << c.label;
    largest = std::max(largest, column.value());
  }
  EXPECT_GT(largest, 0.01);  // the suite has token-0 mass to move
}

}  // namespace
}  // namespace tev::properties
