#pragma once
// The results of `tevsuite exittrain` as one JSON document (per-seed curves and evaluations, and
// the summary tables derived from them), and its rendering as a report.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>

#include "reports/document.hpp"
#include "exittrain/exittrain.hpp"

namespace tev::reports {

// config: the run's settings as the command records them (must hold "budget"). agreement: the
// runs' check that TEV's mean L agrees with 1 + C_p (tev_agreement).
nlohmann::json exittrain_results(const nlohmann::json& config,
                                 std::span<const exittrain::ExitTrainSeedRun> runs,
                                 const exittrain::TevAgreement& agreement, double seconds);

// Tables: mean 1 + C_p per drafter and budget, paired differences between the objectives, TEV's
// mean L against 1 + C_p, and the training curves (mean C_p of the training trees by step).
reports::Document exittrain_document(const nlohmann::json& results);

}  // namespace tev::reports
