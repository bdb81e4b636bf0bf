#include "reports/exittrain.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "stats/goodness_of_fit.hpp"
#include "reports/verdict_json.hpp"

namespace tev::reports {

namespace {

using nlohmann::json;

constexpr const char* kWarmStart = "warm start";

json evaluation_json(const exittrain::CoverageEvaluation& e) {
  return {{"budget", e.budget},
          {"contexts", e.contexts},
          {"mean_ceiling", e.mean_ceiling},
          {"tev_samples", e.tev_samples},
          {"tev_mean_length", e.tev_mean_length},
          {"tev_standard_error", e.tev_standard_error},
          {"tev_p_value", e.tev_p_value}};
}

json evaluations_json(std::span<const exittrain::CoverageEvaluation> evaluations) {
  json out = json::array();
  for (const auto& e : evaluations) out.push_back(evaluation_json(e));
  return out;
}

// The per-seed values of one drafter's evaluation at budget index b.
std::vector<double> per_seed(const json& runs, std::size_t drafter, std::size_t b,
                             const char* field) {
  std::vector<double> out;
  for (const json& run : runs)
    out.push_back(run.at("drafters").at(drafter).at("evaluations").at(b).at(field).get<double>());
  return out;
}

json agreement_json(const exittrain::TevAgreement& a, const json& drafters, const json& budgets) {
  json cells = json::array();
  for (const exittrain::TevAgreementCell& c : a.cells) {
    cells.push_back({{"drafter", drafters[c.drafter]},
                     {"budget", budgets[c.budget]},
                     {"mean_ceiling", c.mean_ceiling},
                     {"tev_mean_length", c.tev_mean_length},
                     {"max_abs_z", c.max_abs_z},
                     {"min_p_value", c.min_p_value},
                     {"agrees", c.agrees}});
  }
  return {{"alpha", a.alpha},
          {"tests", a.tests},
          {"per_test_level", a.per_test_level},
          {"all_agree", a.all_agree},
          {"cells", cells}};
}

// Descriptive: mean 1 + C_p per drafter and budget over the seeds, and the paired differences.
json summarize(const json& runs, const json& drafters, const json& budgets,
               const exittrain::TevAgreement& agreement) {
  json ceiling = json::array(), differences = json::array();
  // (better, worse) drafter indices of the paired comparisons: exit vs token, exit vs prefix, prefix vs token.
  const std::pair<std::size_t, std::size_t> pairs[] = {{3, 1}, {3, 2}, {2, 1}};
  for (std::size_t b = 0; b < budgets.size(); ++b) {
    for (std::size_t d = 0; d < drafters.size(); ++d) {
      const auto values = per_seed(runs, d, b, "mean_ceiling");
      const auto [mean, sd] = stats::mean_sd(values);
      ceiling.push_back({{"drafter", drafters[d]},
                         {"budget", budgets[b]},
                         {"per_seed", values},
                         {"mean", mean},
                         {"sd", sd}});
    }
    for (const auto& [better, worse] : pairs) {
      const auto a = per_seed(runs, better, b, "mean_ceiling"),
                 c = per_seed(runs, worse, b, "mean_ceiling");
      std::vector<double> diff(a.size());
      int wins = 0;
      for (std::size_t s = 0; s < a.size(); ++s) {
        diff[s] = a[s] - c[s];
        wins += diff[s] > 0.0;
      }
      const auto [mean, sd] = stats::mean_sd(diff);
      differences.push_back({{"pair", drafters[better].get<std::string>() + " - " +
                                          drafters[worse].get<std::string>()},
                             {"budget", budgets[b]},
                             {"per_seed", diff},
                             {"mean", mean},
                             {"sd", sd},
                             {"wins", wins},
                             {"seeds", a.size()}});
    }
  }
  return {{"ceiling", ceiling},
          {"differences", differences},
          {"tev", agreement_json(agreement, drafters, budgets)}};
}

std::string plus_minus(const json& row, int decimals) {
  return fixed(row.at("mean").get<double>(), decimals) + " ± " +
         fixed(row.at("sd").get<double>(), decimals);
}

}  // namespace

json exittrain_results(const json& config, std::span<const exittrain::ExitTrainSeedRun> runs,
                       const exittrain::TevAgreement& agreement, double seconds) {
  json drafters = {kWarmStart};
  for (exittrain::Objective o : exittrain::kObjectives)
    drafters.push_back(std::string(exittrain::objective_name(o)));
  json runs_json = json::array();
  for (const exittrain::ExitTrainSeedRun& run : runs) {
    json per_drafter = {{{"name", kWarmStart},
                         {"loss", json::array()},
                         {"coverage", json::array()},
                         {"evaluations", evaluations_json(run.comparison.initial)}}};
    for (const exittrain::ObjectiveRun& r : run.comparison.runs) {
      json loss = json::array(), coverage = json::array();
      for (const exittrain::StepRecord& s : r.curve) {
        loss.push_back(s.loss);
        coverage.push_back(s.mean_coverage);
      }
      per_drafter.push_back({{"name", std::string(exittrain::objective_name(r.objective))},
                             {"loss", loss},
                             {"coverage", coverage},
                             {"evaluations", evaluations_json(r.evaluations)}});
    }
    runs_json.push_back({{"seed", run.seed}, {"drafters", per_drafter}});
  }
  json budgets = json::array();
  for (std::int32_t b : exittrain::evaluation_budgets(config.at("budget").get<std::int32_t>()))
    budgets.push_back(b);
  return {{"command", "exittrain"},
          {"kind", results_kind_name(ResultsKind::exittrain)},
          {"format_version", 1},
          {"config", config},
          {"seconds", seconds},
          {"budgets", budgets},
          {"drafters", drafters},
          {"runs", runs_json},
          {"summary", summarize(runs_json, drafters, budgets, agreement)}};
}

Document exittrain_document(const json& r) {
  Document d;
  const json& cfg = r.at("config");
  const json& summary = r.at("summary");
  const json& budgets = r.at("budgets");
  const auto seeds = r.at("runs").size();
  reports::heading(d, "ExitTrain: token-only vs prefix-weighted vs exit-guided drafter training (" +
                          cfg.at("mode").get<std::string>() + ")");
  reports::paragraph(
      d, cfg.at("setting").get<std::string>() +
             " Training budget B = " + std::to_string(cfg.at("budget").get<int>()) + ", " +
             std::to_string(cfg.at("warmup_steps").get<int>()) +
             " shared token-only warm-up steps, then " +
             std::to_string(cfg.at("steps").get<int>()) + " steps per objective (batch " +
             std::to_string(cfg.at("batch").get<int>()) + ", Adam, learning rate " +
             num(cfg.at("learning_rate").get<double>()) +
             "), lambda = " + num(cfg.at("lambda").get<double>()) + " (" +
             cfg.at("lambda_choice").get<std::string>() + "). " + std::to_string(seeds) +
             " seeds; " + std::to_string(cfg.at("test_contexts").get<int>()) +
             " held-out contexts per seed; run time " + fixed(r.at("seconds").get<double>(), 1) +
             " s.");

  reports::heading(d, "Mean 1 + C_p on held-out contexts (mean ± sd across seeds)");
  Table ceiling{{"drafter"}, {}};
  for (const json& b : budgets) ceiling.header.push_back("B = " + std::to_string(b.get<int>()));
  for (const json& name : r.at("drafters")) {
    std::vector<std::string> row = {name.get<std::string>()};
    for (const json& c : summary.at("ceiling")) {
      if (c.at("drafter") == name) row.push_back(plus_minus(c, 3));
    }
    ceiling.rows.push_back(row);
  }
  reports::table(d, ceiling);

  reports::heading(d,
                   "Paired differences in mean 1 + C_p (same seed: same target, data, "
                   "initialization, test contexts)");
  Table diff{{"difference", "budget", "mean ± sd", "seeds where positive"}, {}};
  for (const json& c : summary.at("differences")) {
    diff.rows.push_back({c.at("pair").get<std::string>(), std::to_string(c.at("budget").get<int>()),
                         plus_minus(c, 4),
                         std::to_string(c.at("wins").get<int>()) + " / " +
                             std::to_string(c.at("seeds").get<std::size_t>())});
  }
  reports::table(d, diff);

  const json& tev = summary.at("tev");
  reports::heading(d, "TEV's measured mean L against the exact 1 + C_p");
  reports::paragraph(
      d, "Each cell: TEV run " +
             std::to_string(cfg.at("tev_samples_per_tree").get<std::uint64_t>()) +
             " times on every held-out tree; z-test with the exact null variance per seed, "
             "Bonferroni over " +
             std::to_string(tev.at("tests").get<std::size_t>()) + " tests at family alpha " +
             num(tev.at("alpha").get<double>()) + ". Verdict: **" +
             (tev.at("all_agree").get<bool>() ? "TEV's mean L agrees with 1 + C_p everywhere"
                                              : "TEV's mean L DISAGREES with 1 + C_p somewhere") +
             "**.");
  Table check{
      {"drafter", "budget", "mean 1 + C_p", "TEV mean L", "max |z| over seeds", "min p", "agrees"},
      {}};
  for (const json& c : tev.at("cells")) {
    check.rows.push_back(
        {c.at("drafter").get<std::string>(), std::to_string(c.at("budget").get<int>()),
         fixed(c.at("mean_ceiling").get<double>()), fixed(c.at("tev_mean_length").get<double>()),
         fixed(c.at("max_abs_z").get<double>(), 2), num(c.at("min_p_value").get<double>()),
         c.at("agrees").get<bool>() ? "yes" : "**no**"});
  }
  reports::table(d, check);

  reports::heading(d,
                   "Training curves: mean 1 + C_p of the training trees at B (mean over seeds, in "
                   "windows of steps)");
  const int steps = cfg.at("steps").get<int>();
  const int windows = std::min(steps, 10);
  Table curves{{"steps"}, {}};
  for (std::size_t o = 1; o < r.at("drafters").size(); ++o)
    curves.header.push_back(r.at("drafters").at(o).get<std::string>());
  for (int w = 0; w < windows; ++w) {
    const int first = w * steps / windows, last = (w + 1) * steps / windows;
    std::vector<std::string> row = {std::to_string(first) + "–" + std::to_string(last - 1)};
    for (std::size_t o = 1; o < r.at("drafters").size(); ++o) {
      double total = 0.0;
      for (const json& run : r.at("runs")) {
        const json& coverage = run.at("drafters").at(o).at("coverage");
        for (int s = first; s < last; ++s)
          total += coverage.at(static_cast<std::size_t>(s)).get<double>();
      }
      row.push_back(
          fixed(1.0 + total / (static_cast<double>(last - first) * static_cast<double>(seeds)), 3));
    }
    curves.rows.push_back(row);
  }
  reports::table(d, curves);
  return d;
}

}  // namespace tev::reports
