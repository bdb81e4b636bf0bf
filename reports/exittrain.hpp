#pragma once
// The results of `tevsuite exittrain` as one JSON document (per-seed curves and evaluations, and
// the summary tables derived from them), and its rendering as a report.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>

#include "reports/document.hpp"
#include "exittrain/exittrain.hpp"

namespace tev {


// config: the run's settings as the command records them (must hold "budget"). alpha: family-wise
// level of the check that TEV's mean L agrees with 1 + C_p (Bonferroni over every drafter, budget
// and seed).
nlohmann::json exittrain_results(const nlohmann::json& config, std::span<const ExitTrainSeedRun> runs, double alpha, double seconds);

// Tables: mean 1 + C_p per drafter and budget, paired differences between the objectives, TEV's
// mean L against 1 + C_p, and the training curves (mean C_p of the training trees by step).
report::Document exittrain_document(const nlohmann::json& results);

}  // namespace tev
