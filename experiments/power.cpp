#include "experiments/power.hpp"

#include <array>
#include <cmath>
#include <stdexcept>

#include "core/exact_law.hpp"
#include "core/exit_law.hpp"
#include "stats/goodness_of_fit.hpp"
#include "montecarlo/monte_carlo.hpp"
#include "judging/verdict_policy.hpp"

namespace tev::experiments {

namespace {

constexpr double kTarget = 0.99;
constexpr std::uint64_t kBudgetCap = std::uint64_t{1} << 40;

struct Laws {
  std::vector<double> canonical;
  std::vector<std::int32_t> groups;
};
Laws laws_of(const workloads::CheckCase& c) {
  return {canonical_block_law(c.tree, c.rows, ExitLaw::compute(c.tree, c.rows)),
          stats::node_groups(c.tree.size(), c.tree.vocab)};
}

// Smallest budget on a ×1.05 grid from 10 whose predicted power reaches `level`; 0 if none below the cap.
std::uint64_t budget_for(const Laws& laws, const std::vector<double>& alternative, double alpha,
                         double level) {
  for (double n = 10.0; n < static_cast<double>(kBudgetCap); n *= 1.05) {
    if (stats::chi_square_power(laws.canonical, alternative, laws.groups, std::floor(n), alpha) >=
        level)
      return static_cast<std::uint64_t>(n);
  }
  return 0;
}

// Sampled power: replicates of `samples` blocks from sample_block, each tested at alpha.
template <class SampleBlock>
PowerSpotCheck spot_check(const workloads::CheckCase& c, const Laws& laws,
                          const std::vector<double>& alternative, std::uint64_t samples,
                          const PowerConfig& config, SampleBlock&& sample_block) {
  PowerSpotCheck spot{samples, config.replicates, 0,
                      stats::chi_square_power(laws.canonical, alternative, laws.groups,
                                              static_cast<double>(samples), config.alpha)};
  for (int r = 0; r < config.replicates; ++r) {
    // Each replicate its own seed, distinct from the sweep's.
    const montecarlo::MonteCarloPlan plan{
        .seed = config.seed + 1000003u * static_cast<std::uint32_t>(r + 1),
        .tree_id = 0,
        .samples = samples,
        .first_sample = 0,
        .threads = config.threads,
        .ranks = config.ranks};
    const montecarlo::BlockCounts counts =
        montecarlo::count_blocks(c.tree, c.rows, plan, sample_block);
    if (stats::pearson_chi_square(counts.completed, laws.canonical, laws.groups).p_value <
        config.alpha)
      ++spot.rejections;
  }
  return spot;
}

template <class SampleBlock>
PowerCurve curve_for(const workloads::CheckCase& c, const Laws& laws, std::string name,
                     const std::vector<double>& alternative, const PowerConfig& config,
                     SampleBlock&& sample_block) {
  PowerCurve curve;
  curve.name = std::move(name);
  curve.exact_tv = total_variation(alternative, laws.canonical);
  for (double n = 10.0; n <= 1e9; n *= std::pow(10.0, 0.125)) {
    curve.budgets.push_back(static_cast<std::uint64_t>(std::round(n)));
    curve.predicted.push_back(stats::chi_square_power(laws.canonical, alternative, laws.groups,
                                                      std::round(n), config.alpha));
  }
  curve.budget_for_99 = budget_for(laws, alternative, config.alpha, kTarget);
  curve.power_at_default =
      stats::chi_square_power(laws.canonical, alternative, laws.groups,
                              static_cast<double>(config.default_budget), config.alpha);
  if (curve.budget_for_99 == 0) {
    curve.spot_check_note = "no budget up to 2^40 samples reaches 99 % power";
    return curve;
  }
  for (double level : {0.5, 0.9, kTarget}) {
    const std::uint64_t n = budget_for(laws, alternative, config.alpha, level);
    if (!curve.spot_checks.empty() && curve.spot_checks.back().samples == n)
      continue;  // a steep curve
    if (n > config.spot_check_cap) {
      curve.spot_check_note = "spot checks above " + std::to_string(config.spot_check_cap) +
                              " samples per replicate skipped (cost)";
      continue;
    }
    curve.spot_checks.push_back(spot_check(c, laws, alternative, n, config, sample_block));
  }
  return curve;
}

}  // namespace

std::vector<PowerCurve> mutant_power(const workloads::CheckCase& c, const PowerConfig& config) {
  const Laws laws = laws_of(c);
  std::vector<PowerCurve> curves;
  for (const VerifierInfo& info : verifier_catalog()) {
    if (info.kind != VerifierKind::mutant) continue;
    const std::vector<double> alternative = enumerate_verifier(info.id, c.tree, c.rows).completed;
    curves.push_back(curve_for(c, laws, std::string(info.name), alternative, config,
                               [&](const DrawSite& site, PhiloxChooser& chooser) {
                                 chooser.restart(site);
                                 return run_verifier(info.id, c.tree, c.rows, chooser);
                               }));
  }
  return curves;
}

std::vector<PowerCurve> contamination_power(const workloads::CheckCase& c,
                                            const std::vector<double>& epsilons,
                                            const PowerConfig& config) {
  const Laws laws = laws_of(c);
  const VerifierId wrong = VerifierId::mutant_bonus_from_full_row;
  const std::vector<double> wrong_law = enumerate_verifier(wrong, c.tree, c.rows).completed;
  std::vector<PowerCurve> curves;
  for (double eps : epsilons) {
    std::vector<double> mixture(laws.canonical.size());
    for (std::size_t i = 0; i < mixture.size(); ++i)
      mixture[i] = (1.0 - eps) * laws.canonical[i] + eps * wrong_law[i];
    // The mixture as a sampler: a control draw picks the wrong verifier with probability ε.
    const std::array<double, 2> pick = {1.0 - eps, eps};
    curves.push_back(curve_for(c, laws, "contamination eps=" + std::to_string(eps).substr(0, 5),
                               mixture, config, [&](const DrawSite& site, PhiloxChooser& chooser) {
                                 chooser.restart(site);
                                 const VerifierId id =
                                     chooser.categorical(pick) == 0 ? VerifierId::tree_exit : wrong;
                                 return run_verifier(id, c.tree, c.rows, chooser);
                               }));
  }
  return curves;
}

double contamination_power_at_tv(const workloads::CheckCase& c, const PowerConfig& config,
                                 double tv) {
  const Laws laws = laws_of(c);
  const std::vector<double> wrong =
      enumerate_verifier(VerifierId::mutant_bonus_from_full_row, c.tree, c.rows).completed;
  const double full = total_variation(wrong, laws.canonical);
  if (tv > full) throw std::invalid_argument("contamination TV beyond the wrong law's own");
  const double eps = tv / full;  // TV is linear in the mixing weight
  std::vector<double> mixture(laws.canonical.size());
  for (std::size_t i = 0; i < mixture.size(); ++i)
    mixture[i] = (1.0 - eps) * laws.canonical[i] + eps * wrong[i];
  return stats::chi_square_power(laws.canonical, mixture, laws.groups,
                                 static_cast<double>(config.default_budget), config.alpha);
}

PowerSpotCheck noise_contamination_spot_check(const workloads::CheckCase& c, double tv,
                                              std::uint64_t samples, const PowerConfig& config) {
  const Laws laws = laws_of(c);
  const std::vector<double> noise = judging::support_noise(laws.canonical);
  const double full = total_variation(noise, laws.canonical);
  if (!(tv >= 0.0 && tv <= full))
    throw std::invalid_argument("contamination TV outside [0, TV(noise, canonical)]");
  const double eps = tv / full;  // TV is linear in the mixing weight
  std::vector<double> mixture(laws.canonical.size());
  for (std::size_t i = 0; i < mixture.size(); ++i)
    mixture[i] = (1.0 - eps) * laws.canonical[i] + eps * noise[i];
  const std::array<double, 2> pick = {1.0 - eps, eps};
  // A noise cell's token is never a drafted child of its node (the canonical law is zero there),
  // so completion leaves it as drawn.
  return spot_check(c, laws, mixture, samples, config,
                    [&](const DrawSite& site, PhiloxChooser& chooser) {
                      chooser.restart(site);
                      if (chooser.categorical(pick) == 0)
                        return run_verifier(VerifierId::tree_exit, c.tree, c.rows, chooser);
                      const auto cell = static_cast<std::int32_t>(chooser.categorical(noise));
                      return Block{cell / c.tree.vocab, cell % c.tree.vocab};
                    });
}

std::optional<double> detectable_tv_toward(const workloads::CheckCase& c,
                                           const PowerConfig& config) {
  const Laws laws = laws_of(c);
  const std::vector<double> wrong =
      enumerate_verifier(VerifierId::mutant_bonus_from_full_row, c.tree, c.rows).completed;
  return stats::detectable_tv_toward(laws.canonical, wrong, laws.groups,
                                     static_cast<double>(config.default_budget), config.alpha,
                                     kTarget);
}

}  // namespace tev::experiments
