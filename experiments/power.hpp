#pragma once
// Power of the sampled χ² test against each mutant and against contaminated laws, predicted from
// the exact laws and spot-checked by Monte Carlo.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/philox.hpp"
#include "core/verifier_catalog.hpp"
#include "montecarlo/ranks.hpp"
#include "judging/verdict_policy.hpp"
#include "workloads/suite.hpp"

namespace tev::experiments {

struct PowerSpotCheck {
  std::uint64_t samples = 0;
  int replicates = 0;
  int rejections = 0;      // replicates whose χ² rejected at alpha
  double predicted = 0.0;  // analytic power at this budget
};

struct PowerCurve {
  std::string name;                    // mutant, or "contamination eps=…"
  double exact_tv = 0.0;               // TV(alternative law, canonical law)
  std::vector<std::uint64_t> budgets;  // sample counts of the curve
  std::vector<double> predicted;       // analytic power at each budget
  std::uint64_t budget_for_99 =
      0;  // smallest budget with predicted power ≥ 0.99 (0: none up to the cap)
  double power_at_default = 0.0;  // predicted power at the default budget
  std::vector<PowerSpotCheck> spot_checks;
  std::string spot_check_note;  // why a spot check was skipped, if it was
};

struct PowerConfig {
  double alpha = judging::kDefaultAlpha;  // level of the single χ² test whose power is computed
  std::uint64_t default_budget = 200000;
  int replicates = 100;  // Monte Carlo replicates per spot check
  std::uint64_t spot_check_cap =
      200000;  // spot checks need replicates × budget samples: skip above this
  std::uint32_t seed = kDefaultSeed;
  int threads = 1;
  montecarlo::Ranks ranks{};  // the processes the spot checks' samples are split over
};

// One curve per mutant on the case (analytic curve, smallest 99 % budget, spot checks at the
// budgets where the predicted power is about 0.5, 0.9 and 0.99).
std::vector<PowerCurve> mutant_power(const workloads::CheckCase& c, const PowerConfig& config);

// The canonical law mixed with a wrong law, (1 − ε) canonical + ε wrong, for each ε; the wrong law
// is the exact law of the bonus-from-full-row mutant. Analytic; spot-checked by sampling the
// mixture where the cost allows.
std::vector<PowerCurve> contamination_power(const workloads::CheckCase& c,
                                            const std::vector<double>& epsilons,
                                            const PowerConfig& config);

// The smallest TV from the canonical law (along the same contamination direction) that a single
// χ² test at config.alpha with config.default_budget samples detects with ≥ 99 % power; none when
// even the uncontaminated wrong law is missed.
std::optional<double> detectable_tv_toward(const workloads::CheckCase& c,
                                           const PowerConfig& config);

// Predicted power of that test against the contamination of the given TV (≤ the wrong law's TV).
double contamination_power_at_tv(const workloads::CheckCase& c, const PowerConfig& config,
                                 double tv);

// The check's own contamination (verdict_policy's detectable_tv: toward uniform noise over the
// canonical law's support) of total variation `tv`, sampled: TEV's blocks, each replaced with
// probability ε = tv / TV(noise, canonical) by a uniform support cell; config.replicates runs of
// `samples` blocks, each χ² tested at config.alpha, against the power predicted from the laws.
PowerSpotCheck noise_contamination_spot_check(const workloads::CheckCase& c, double tv,
                                              std::uint64_t samples, const PowerConfig& config);

}  // namespace tev::experiments
