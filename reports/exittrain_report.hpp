#pragma once
// `tevsuite exittrain`'s results file (its config and setting in words, then exittrain_results) and
// the report rendered from it.
#include <iosfwd>
#include <nlohmann/json.hpp>

#include "exittrain/exittrain_runs.hpp"
#include "reports/render.hpp"

namespace tev::reports {

nlohmann::json exittrain_results_json(const exittrain::ExitTrainOptions& options,
                                      const exittrain::ExitTrainRuns& runs);
// Renders report.md / report.html into render.out_dir and names them.
void write_exittrain_report(const nlohmann::json& results, const RenderOptions& render,
                            std::ostream& out);

}  // namespace tev::reports
