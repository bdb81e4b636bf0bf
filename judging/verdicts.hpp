#pragma once
// Judges one verifier on a suite of trees: sampled χ² of the completed block law against the
// canonical law, E[L] against 1 + C_p, per-node acceptance, exact enumeration of its law and,
// where asked, the tests of independence on the recorded order of its samples; the verdict comes
// from the one verdict policy (judging/verdict_policy.hpp).
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/philox.hpp"
#include "stats/goodness_of_fit.hpp"
#include "core/verifier_catalog.hpp"
#include "montecarlo/monte_carlo.hpp"
#include "workloads/suite.hpp"
#include "judging/verdict_policy.hpp"

namespace tev::judging {

// How every verifier is judged on a suite: its samples, seed, threads, share of alpha, enumeration.
struct JudgingConfig {
  std::uint64_t samples = 100000;  // per tree and verifier
  std::uint32_t seed = kDefaultSeed;
  int threads = 1;
  // False-alarm budget of the whole check: Bonferroni over the verifiers that share it; each
  // verifier's share is one subject of the verdict policy (half for exactness, half for saturation).
  double alpha = kDefaultAlpha;
  int verifiers_sharing_alpha = 1;  // alpha_shares(): the run's split
  double verifier_alpha() const { return alpha / verifiers_sharing_alpha; }
  double exact_tolerance = 1e-12;  // enumeration: laws and E[L] equal to within this
  double max_detectable_tv =
      VerdictPolicy{}.max_detectable_tv;  // the TV a tree must guarantee to be called exact
  // Enumerate each verifier's exact law too (lumped: seconds even at V = 151,936, B = 128). Off
  // only on request (`live --no-enumeration`); then verdicts rest on sampling alone, a tree without
  // the power to detect the policy's TV is "inconclusive", and a mutant that sampling misses is
  // reported "not caught", with no power to hold it to.
  bool enumerate = true;
  // Record the order of every tree's samples and run the tests of independence on it
  // (stats/iid_assumption.hpp) in each tree's exactness tests (`check`); without them a serial
  // mutant cannot be judged.
  bool independence_tests = false;
  montecarlo::Ranks
      ranks{};  // the processes every verifier's samples are split over (a collective when more than one)
  // The Monte Carlo engine the samples come from: the CPU's, or the GPU's under --device gpu.
  montecarlo::BlockCounts (*monte_carlo)(VerifierId, const DraftTree&, const TargetRows&,
                                         const montecarlo::MonteCarloPlan&) =
      montecarlo::run_monte_carlo;

  VerdictPolicy policy() const {
    return {.alpha = verifier_alpha(),
            .exact_tolerance = exact_tolerance,
            .max_detectable_tv = max_detectable_tv,
            .seed = seed};
  }
};

struct VerifierReport {
  VerifierInfo info;
  std::vector<TreeEvidence> trees;
  SubjectVerdict decision;  // the verdict policy's answer, per tree and overall
  Verdict verdict = Verdict::exact_saturated;
  double mean_length = 0.0;   // over trees, sampled
  double mean_ceiling = 0.0;  // over trees, 1 + C_p
  double max_exact_tv = 0.0;
  double predicted_power =
      0.0;  // P(sampling catches it) from the exact laws: 1 − Π(1 − power per tree); a serial
            // mutant's, of its tests of pairs at its lag (judging/serial_law.hpp)
  double max_pair_tv = 0.0;  // serial mutants with tests of independence: the largest over trees
                             // of its replaying pairs' exact TV from the product law
  double elapsed_seconds = 0.0;
  std::uint64_t samples_per_tree = 0;
  bool enumerated = true;  // the exact_* fields and predicted_power hold
  bool as_expected =
      false;  // verdict matches the kind (and a mutant with ≥ 99 % power was sampled out)
  std::string caught_by;  // mutants: "sampling and enumeration", "enumeration only", ...; serial
      // mutants: "sampling (tests of independence)", "not caught", "not judged ..."
};

VerifierReport check_verifier(VerifierId id, std::span<const workloads::CheckCase> suite,
                              const JudgingConfig& config);

// Told as each verifier starts (k of n, from 0) and when its report is done; the caller prints.
struct VerifierProgress {
  std::function<void(std::size_t k, std::size_t n, const VerifierInfo&)> started =
      [](std::size_t, std::size_t, const VerifierInfo&) {};
  std::function<void(const VerifierReport&)> finished = [](const VerifierReport&) {};
};

// Every verifier of the catalog in its order; config_for(verifier) gives each one's settings
// (samples may differ with its cost), or nothing to leave the verifier out.
using ConfigFor = std::function<std::optional<JudgingConfig>(const VerifierInfo&)>;
std::vector<VerifierReport> check_every_verifier(std::span<const workloads::CheckCase> suite,
                                                 const ConfigFor& config_for,
                                                 const VerifierProgress& progress = {});
bool all_as_expected(std::span<const VerifierReport> reports);
// True when every verifier not judged as its kind requires is "inconclusive" (and at least one
// is): the run lacked samples, and the command exits 4 rather than 1.
bool only_inconclusive_unexpected(std::span<const VerifierReport> reports);

}  // namespace tev::judging
