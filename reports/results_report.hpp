#pragma once
// Reports from results files: theorem1's after its run, and `tevsuite report` on a saved one.
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>

#include "reports/render.hpp"

namespace tev::reports {

// Renders theorem1's results into render.out_dir, prints each claim, the files and the PASS line.
void write_theorem1_report(const nlohmann::json& results, const RenderOptions& render,
                           std::ostream& out);

// `tevsuite report`: renders an existing results file of any kind (theorem1, exittrain, check, check
// --drafts sampled, live, conformance) into render.out_dir; returns the exit code of the command that wrote it.
int render_results_file(const std::string& results_path, const RenderOptions& render,
                        std::ostream& out);

}  // namespace tev::reports
