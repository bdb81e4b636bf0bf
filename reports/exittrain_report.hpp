#pragma once
// `tevsuite exittrain`'s results file (its config and setting in words, then exittrain_results) and
// the report rendered from it.
#include <iosfwd>
#include <nlohmann/json.hpp>

#include "exittrain/exittrain_runs.hpp"
#include "reports/render.hpp"

namespace tev {

nlohmann::json exittrain_results_json(const ExitTrainOptions& options, const ExitTrainRuns& runs);
// Renders report.md / report.html into render.out_dir and names them; returns 0 when TEV agrees
// with 1 + C_p everywhere, 1 otherwise. `tevsuite report` on an exittrain results.json does the same.
int finish_exittrain_report(const nlohmann::json& results, const RenderOptions& render, std::ostream& out);
// 0 when TEV's mean L agrees with 1 + C_p in every cell, 1 otherwise.
int exittrain_exit_code(const nlohmann::json& results);

}  // namespace tev
