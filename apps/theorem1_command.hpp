#pragma once
// `tevsuite theorem1` and `tevsuite report`.
#include <iosfwd>
#include <string>

#include "reports/render.hpp"
#include "reports/theorem1.hpp"

namespace tev {

// Runs the reproduction, writes results.json, report.md, report.html and figures into
// render.out_dir; returns 0 when every claim holds and every verdict is as expected.
int run_theorem1_command(const Theorem1Options& options, const RenderOptions& render, std::ostream& out, std::ostream& progress);

// Renders an existing results file of any kind (theorem1, exittrain, check, check --drafts
// sampled, live, conformance) into render.out_dir; returns the exit code of the command that wrote it.
int run_report_command(const std::string& results_path, const RenderOptions& render, std::ostream& out);

}  // namespace tev
