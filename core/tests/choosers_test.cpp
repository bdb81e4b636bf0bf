#include <gtest/gtest.h>

#include <array>
#include <map>
#include <vector>

#include "core/choosers.hpp"

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
                     [&](const std::pair<int, int>& o, double p) {
                       law[o] += p;
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
  EXPECT_THROW(enumerate_outcomes(flaky, [](int, double) {}), std::logic_error);
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
