#include "judging/selftest.hpp"

#include <cmath>
#include <cstdint>
#include <sstream>

#include "stats/goodness_of_fit.hpp"
#include "judging/verdict_policy.hpp"

namespace tev::judging {

namespace {

// Pool cells of many lengths with a zero cell at every third position, at sample counts that put
// the positive cells in their own bins, in group tails and in the global tail: zero cells must
// stay impossible, every positive cell must get a valid bin. Returns the number of cells that do
// not. (Debian's g++ 12.2 with AVX-512 enabled builds the 4-double initializer {.5, .5, 0, 0} as
// four halves; the first known answer above uses exactly that shape.)
double misbinned_cells() {
  double wrong = 0.0;
  for (std::size_t cells = 1; cells <= 67; ++cells) {
    std::vector<double> p(cells);
    std::vector<std::int32_t> groups(cells);
    for (std::size_t i = 0; i < cells; ++i) {
      p[i] = i % 3 == 2 ? 0.0 : 1.0 / static_cast<double>(1 + i % 5);
      groups[i] = static_cast<std::int32_t>(i % 4);
    }
    for (double samples : {1.0, 10.0, 1e6}) {
      const stats::Binning b = stats::pool_cells(p, groups, samples);
      for (std::size_t i = 0; i < cells; ++i) {
        const std::int32_t bin = b.bin_of_cell[i];
        const bool valid = bin >= 0 && static_cast<std::size_t>(bin) < b.bin_probability.size();
        if (p[i] > 0.0 ? !valid : bin != stats::kImpossibleCell) ++wrong;
      }
    }
  }
  return wrong;
}

}  // namespace

KnownAnswer known_answer(std::string name, double computed, double expected, double tolerance) {
  std::ostringstream detail;
  detail.precision(17);
  detail << computed << " (expected " << expected << ", tolerance " << tolerance << ")";
  return {std::move(name), std::abs(computed - expected) <= tolerance, detail.str()};
}

std::vector<KnownAnswer> run_selftest() {
  std::vector<KnownAnswer> out;
  const std::vector<std::int32_t> one_group3 = {0, 0, 0}, one_group4 = {0, 0, 0, 0};

  // An impossible event: one sample in a zero-probability cell fails at once, whatever the rest.
  const stats::ChiSquareResult impossible =
      stats::pearson_chi_square(std::vector<std::uint64_t>{500, 499, 1, 0},
                                std::vector<double>{.5, .5, 0.0, 0.0}, one_group4);
  out.push_back(known_answer("impossible event: counted",
                             static_cast<double>(impossible.impossible), 1.0, 0.0));
  out.push_back(known_answer("impossible event: p-value", impossible.p_value, 0.0, 0.0));
  TreeEvidence evidence;
  evidence.samples = 1000;
  evidence.chi_square = impossible;
  evidence.detectable_tv = 0.0;
  const Verdict verdict = decide(std::vector<TreeEvidence>{evidence}, VerdictPolicy{}).verdict;
  out.push_back(known_answer("impossible event: verdict 'not exact'",
                             verdict == Verdict::not_exact ? 1.0 : 0.0, 1.0, 0.0));
  out.push_back(known_answer("pooling keeps zero cells impossible (1..67 cells)", misbinned_cells(),
                             0.0, 0.0));

  // Expected 25, 50, 25: X² = 25/25 + 0 + 25/25 = 2 on 2 dof; P(χ²₂ > x) = e^{−x/2}.
  const stats::ChiSquareResult hand = stats::pearson_chi_square(
      std::vector<std::uint64_t>{30, 50, 20}, std::vector<double>{.25, .5, .25}, one_group3);
  out.push_back(known_answer("chi-square statistic by hand", hand.statistic, 2.0, 1e-12));
  out.push_back(known_answer("chi-square p-value e^-1", hand.p_value, std::exp(-1.0), 1e-12));

  // Sorted .005·4 = .02, .01·3 = .03, .03·2 = .06, .04·1 → .06 (monotone).
  const std::vector<double> holm = stats::holm_adjust(std::vector<double>{.01, .04, .03, .005});
  const double holm_expected[] = {.03, .06, .06, .02};
  for (std::size_t i = 0; i < 4; ++i)
    out.push_back(known_answer("Holm step-down, p[" + std::to_string(i) + "]", holm[i],
                               holm_expected[i], 1e-15));

  // Binomial(10, 1/2), k = 2: P(X ≤ 2) + P(X ≥ 8) = 2 (1 + 10 + 45) / 1024.
  out.push_back(known_answer("exact binomial two-sided", stats::binomial_two_sided_p(2, 10, 0.5),
                             112.0 / 1024.0, 1e-12));

  // Mean 0.3 of 100 fair coins: the Chernoff bound is e^{−100 KL(0.3 ‖ 0.5)} (Bernoulli KL in closed form).
  const double kl = 0.3 * std::log(0.3 / 0.5) + 0.7 * std::log(0.7 / 0.5);
  out.push_back(known_answer("Chernoff bound of a mean",
                             stats::mean_below_chernoff_p(0.3, 100, std::vector<double>{0.0, 1.0},
                                                          std::vector<double>{.5, .5}),
                             std::exp(-100.0 * kl), 1e-12));

  // P(K ≤ 1) = 1 − 2 Σ (−1)^{k−1} e^{−2k²}, tabulated 0.730000328322645.
  out.push_back(known_answer("Kolmogorov distribution at 1", stats::kolmogorov_cdf(1.0),
                             0.730000328322645, 1e-12));
  return out;
}

}  // namespace tev::judging
