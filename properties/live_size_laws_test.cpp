// Exact laws at full vocabulary: lumped enumeration of every verifier on the verifier-stage bench
// workloads (DDTree trees, B + 1 rows of V = 151,936 logits). Exact verifiers equal the canonical
// law to 1e-12; every mutant differs from it. Prints the enumeration time per verifier and tree.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <iostream>
#include <string>

#include "core/exact_law.hpp"
#include "core/exit_law.hpp"
#include "bench/logit_workloads.hpp"

namespace tev::properties {
namespace {

constexpr double kTolerance = 1e-12;

class LiveSizeLaws : public testing::TestWithParam<std::int32_t> {};

TEST_P(LiveSizeLaws, LumpedLawOfEveryVerifier) {
  const bench::LiveWorkload w = bench::make_live_workload(GetParam(), 1.0);
  const std::vector<double> logits(w.logits.begin(), w.logits.end());
  const TargetRows rows =
      TargetRows::from_logits(logits, w.tree.size(), w.tree.vocab, w.temperature);
  const ExitLaw law = ExitLaw::compute(w.tree, rows);
  const std::vector<double> canonical = canonical_block_law(w.tree, rows, law);
  std::cout << "B = " << GetParam() << ", V = " << w.tree.vocab << ", nodes " << w.tree.size()
            << ", depth " << w.tree.max_depth() << ", 1 + C_p " << law.ceiling() << '\n';
  double total_seconds = 0.0;
  for (const VerifierInfo& info : verifier_catalog()) {
    const auto start = std::chrono::steady_clock::now();
    const ExactOutcome exact = enumerate_verifier(info.id, w.tree, rows);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    total_seconds += seconds;
    const double tv = total_variation(exact.completed, canonical);
    std::cout << "  " << info.name << ": " << exact.branches << " branches, " << seconds
              << " s, exact TV " << tv << '\n';
    EXPECT_EQ(exact.token_draws, TokenDraws::lumped) << info.name;
    switch (info.kind) {
      case VerifierKind::saturated:
        EXPECT_LE(tv, kTolerance) << info.name;
        EXPECT_NEAR(exact.mean_length, law.ceiling(), kTolerance) << info.name;
        EXPECT_LE(exact.completion_probability, kTolerance) << info.name;
        break;
      case VerifierKind::unsaturated:
        EXPECT_LE(tv, kTolerance) << info.name;
        EXPECT_LT(exact.mean_length, law.ceiling() - kTolerance) << info.name;
        break;
      case VerifierKind::mutant:
        EXPECT_GT(tv, kTolerance) << info.name << " is indistinguishable from the canonical law";
        break;
      case VerifierKind::serial_mutant:  // one block has TEV's law; its samples depend
        EXPECT_LE(tv, kTolerance) << info.name;
        EXPECT_NEAR(exact.mean_length, law.ceiling(), kTolerance) << info.name;
        break;
    }
  }
  std::cout << "  every verifier: " << total_seconds << " s\n";
  RecordProperty("enumeration_seconds", std::to_string(total_seconds));
}

INSTANTIATE_TEST_SUITE_P(Budgets, LiveSizeLaws, testing::Values(32, 64, 128),
                         [](const testing::TestParamInfo<std::int32_t>& p) {
                           std::string name = "B";
                           name += std::to_string(p.param);
                           return name;
                         });

}  // namespace
}  // namespace tev::properties
