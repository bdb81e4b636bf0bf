#include <gtest/gtest.h>

#include <array>
#include <map>
#include <vector>

#include "core/choosers.hpp"
#include "core/draft_tree.hpp"

namespace tev {
namespace {

// Two dependent draws: first a ∈ {0,1,2} with weights (1,0,3); then, only if a = 2, b ∈ {0,1}
// with weights (1,1). Outcomes: (0,-) 1/4, (2,0) 3/8, (2,1) 3/8; a = 1 has weight 0 and never occurs.
template <class Chooser>
std::pair<int, int> two_step(Chooser& c) {
  const std::array<double, 3> first = {1.0, 0.0, 3.0};
  const int a = static_cast<int>(c.categorical(first));
  if (a != 2) return {a, -1};
  const std::array<double, 2> second = {1.0, 1.0};
  return {a, static_cast<int>(c.categorical(second))};
}

TEST(EnumeratingChooser, VisitsEveryPositiveBranchWithItsProbability) {
  std::map<std::pair<int, int>, double> law;
  int branches = 0;
  enumerate_outcomes([](EnumeratingChooser& c) { return two_step(c); },
                     [&](const std::pair<int, int>& o, const Branch& b) {
                       law[o] += b.probability;
                       ++branches;
                     });
  EXPECT_EQ(branches, 3);
  EXPECT_DOUBLE_EQ((law[{0, -1}]), 0.25);
  EXPECT_DOUBLE_EQ((law[{2, 0}]), 0.375);
  EXPECT_DOUBLE_EQ((law[{2, 1}]), 0.375);
  EXPECT_EQ((law.count({1, -1})), 0u);
}

TEST(EnumeratingChooser, RefusesANonDeterministicVerifier) {
  int calls = 0;
  auto flaky = [&](EnumeratingChooser& c) {
    const std::array<double, 2> w = {1.0, 1.0};
    // The second run replays the first run's choices but stops a draw early: its draws are not a
    // function of its choices, and the replay cannot be trusted.
    const int n = ++calls == 1 ? 2 : 1;
    int last = 0;
    for (int i = 0; i < n; ++i) last = static_cast<int>(c.categorical(w));
    return last;
  };
  EXPECT_THROW(enumerate_outcomes(flaky, [](int, const Branch&) {}), std::logic_error);
}

// A tree over V = 6: the root has children with tokens 1 and 4.
DraftTree two_children() {
  return tree_from_parents(std::vector<NodeId>{-1, 0, 0}, std::vector<Token>{kNoToken, 1, 4}, 6)
      .tree;
}

TEST(EnumeratingChooser, LumpsEveryNonChildTokenIntoOneBranch) {
  const DraftTree tree = two_children();
  const std::vector<double> row = {1.0, 2.0, 0.0,
                                   3.0, 4.0, 2.0};  // total 12; tokens 0, 3, 5 are not children
  std::vector<Token> returned;
  std::vector<double> probability;
  std::vector<bool> lumped;
  const std::size_t runs =
      enumerate_outcomes([&](EnumeratingChooser& c) { return c.next_token(tree, 0, row); },
                         [&](Token t, const Branch& b) {
                           returned.push_back(t);
                           probability.push_back(b.probability);
                           lumped.push_back(b.lump != nullptr);
                           if (b.lump == nullptr) return;
                           EXPECT_EQ(b.lump->node, 0);
                           EXPECT_EQ(b.lump->representative, 0);  // the first token of the lump
                           EXPECT_DOUBLE_EQ(b.lump->mass, 6.0 / 12.0);
                           EXPECT_EQ(b.lump->weights[1], 0.0);
                           EXPECT_EQ(b.lump->weights[4], 0.0);
                           EXPECT_EQ(b.lump->weights[3], 3.0);
                         });
  EXPECT_EQ(runs, 3u);  // child 1, child 4, the lump
  EXPECT_EQ(returned, (std::vector<Token>{1, 4, 0}));
  EXPECT_DOUBLE_EQ(probability[0], 2.0 / 12.0);
  EXPECT_DOUBLE_EQ(probability[1], 4.0 / 12.0);
  EXPECT_DOUBLE_EQ(probability[2], 1.0);  // the lump's share is in its weights
  EXPECT_EQ(lumped, (std::vector<bool>{false, false, true}));

  const std::size_t per_token =
      enumerate_outcomes([&](EnumeratingChooser& c) { return c.next_token(tree, 0, row); },
                         [](Token, const Branch& b) { EXPECT_EQ(b.lump, nullptr); },
                         EnumeratingChooser(TokenDraws::per_token));
  EXPECT_EQ(per_token, 5u);  // every token with weight
}

TEST(EnumeratingChooser, RefusesADrawAfterALumpedToken) {
  const DraftTree tree = two_children();
  const std::vector<double> row = {1.0, 1.0, 1.0, 1.0, 1.0, 1.0};
  auto redraw = [&](EnumeratingChooser& c) {
    const Token t = c.next_token(tree, 0, row);
    return tree.child_with_token(0, t) == kNoNode ? c.next_token(tree, 0, row) : t;
  };
  EXPECT_THROW(enumerate_outcomes(redraw, [](Token, const Branch&) {}), LumpingRefused);
  EXPECT_EQ(enumerate_outcomes(
                redraw, [](Token, const Branch&) {}, EnumeratingChooser(TokenDraws::per_token)),
            2u + 4u * 6u);
}

TEST(EnumeratingChooser, StopsAtItsBranchBudget) {
  const std::vector<double> row(10, 1.0);
  auto two_draws = [&](EnumeratingChooser& c) { return c.categorical(row) + c.categorical(row); };
  EXPECT_EQ(enumerate_outcomes(
                two_draws, [](std::size_t, const Branch&) {},
                EnumeratingChooser(TokenDraws::lumped, 100)),
            100u);
  EXPECT_THROW(
      enumerate_outcomes(
          two_draws, [](std::size_t, const Branch&) {}, EnumeratingChooser(TokenDraws::lumped, 99)),
      EnumerationBudgetExceeded);
}

TEST(EnumeratingChooser, PreparesOnceForAllRunsAndOnlyBeforeTheFirstDraw) {
  int computed = 0;
  const std::vector<double> w = {1.0, 1.0, 1.0};
  const std::size_t runs = enumerate_outcomes(
      [&](EnumeratingChooser& c) {
        const int& k = c.prepare([&] { return ++computed; });
        return static_cast<std::size_t>(k) + c.categorical(w);
      },
      [](std::size_t outcome, const Branch&) { EXPECT_GE(outcome, 1u); });
  EXPECT_EQ(runs, 3u);
  EXPECT_EQ(computed, 1);
  auto late = [&](EnumeratingChooser& c) {
    c.categorical(w);
    return c.prepare([] { return 0; });
  };
  EXPECT_THROW(enumerate_outcomes(late, [](int, const Branch&) {}), std::logic_error);
}

// Restarted on the same tree and rows, a sampler keeps what prepare computed; a plain restart
// (another tree, a drafted one say) computes it again.
TEST(PhiloxChooser, PreparesOncePerInputsAcrossSamples) {
  int computed = 0;
  PhiloxChooser c({5, Stream::verifier, 1, 0});
  for (std::uint64_t s = 0; s < 3; ++s) {
    c.restart_same_inputs({5, Stream::verifier, 1, s});
    EXPECT_EQ(c.prepare([&] { return ++computed; }), 1);
  }
  c.restart({5, Stream::verifier, 2, 0});
  EXPECT_EQ(c.prepare([&] { return ++computed; }), 2);
  EXPECT_EQ(computed, 2);
}

TEST(PhiloxChooser, IsReproducibleAndRejectsZeroTotal) {
  PhiloxChooser a({5, Stream::verifier, 1, 42}), b({5, Stream::verifier, 1, 42});
  const std::vector<double> w = {0.1, 0.2, 0.3, 0.4};
  for (int i = 0; i < 100; ++i) EXPECT_EQ(a.categorical(w), b.categorical(w));
  const std::vector<double> zero = {0.0, 0.0};
  EXPECT_THROW(a.categorical(zero), std::logic_error);
}

}  // namespace
}  // namespace tev
