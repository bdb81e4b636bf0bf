// The false-alarm rate of each default conformance case's χ² over bins, simulated under the case's
// own null multinomial (no verifier), with the p-value rule the identity test uses. By default at
// level 1e-2 with 40,000 replicates per case (R·level = 400: a rate of 1.2× the level lies 4 σ
// out); TEV_CALIBRATION_AT_REAL_LEVELS=1 measures at the level each case is really tested at, with
// 100 / level replicates. Inside the rule's Monte Carlo zone a replicate counts with the sequential
// rule's exact chance of rejecting at its tail probability (valid by construction); what the
// simulation measures is the asymptotic tail's rate and the rejections decided without simulation.
// Each case's rate is held to a one-sided binomial test at 1e-3 / 8.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <iostream>

#include "conformance/case_io.hpp"
#include "conformance/emit.hpp"
#include "core/exit_law.hpp"
#include "stats/law_identity.hpp"
#include "judging/verdict_policy.hpp"

namespace tev::conformance {
namespace {

TEST(NullCalibration, EveryDefaultCaseHoldsItsLevel) {
  const bool real = std::getenv("TEV_CALIBRATION_AT_REAL_LEVELS") != nullptr;
  const EmitConfig config;
  const std::vector<std::string> lines = emit_cases(config);
  const judging::VerdictPolicy policy;
  for (std::size_t k = 0; k < lines.size(); ++k) {
    const Case c = parse_case(lines[k], "case " + std::to_string(k));
    const std::vector<double> law =
        canonical_block_law(c.tree, c.rows, ExitLaw::compute(c.tree, c.rows));
    const std::vector<std::int32_t> groups = stats::node_groups(c.tree.size(), c.tree.vocab);
    const auto n = static_cast<double>(c.samples);
    const int statistics = stats::identity_statistics(law, groups, n);
    const double level = real ? policy.identity_level(lines.size(), true) / statistics : 1e-2;
    const double largest =
        real ? policy.exactness_alpha() * judging::kIdentityShare / statistics : 1e-2;
    const auto replicates = static_cast<std::uint64_t>(real ? std::ceil(100.0 / level) : 40000.0);
    const stats::NullCalibration cal = stats::binned_null_calibration(
        law, groups, n, level, largest, replicates, judging::kNullSimulationSeed);
    const auto used =
        static_cast<std::uint64_t>(std::llround(cal.used_rate * static_cast<double>(replicates)));
    std::cout << c.id << ": " << cal.bins << " bins, n " << c.samples << ", level " << level << ", "
              << replicates << " replicates: asymptotic rate " << cal.asymptotic_rate << " ("
              << cal.asymptotic_rate / level << "x), used rate " << cal.used_rate << " ("
              << cal.used_rate / level << "x)\n";
    EXPECT_GE(stats::binomial_upper_p(used, replicates, level),
              1e-3 / static_cast<double>(lines.size()))
        << c.id;
  }
}

}  // namespace
}  // namespace tev::conformance
