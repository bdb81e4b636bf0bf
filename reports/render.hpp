#pragma once
// Renders any tevsuite results file (theorem1, exittrain, check, check --drafts sampled, live,
// live --drafts sampled, conformance) into report.md and report.html (same content); figures are drawn by
// plot_figures.py under Debian's matplotlib: the copy installed beside the program
// (share/tevsuite, found from the program's own path, so a moved install still draws them), else
// the one in the source tree the program was built from.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "reports/verdict_json.hpp"

namespace tev::reports {

struct RenderOptions {
  std::filesystem::path out_dir;
  std::string python = "/usr/bin/python3";  // Debian's interpreter, which sees python3-matplotlib
};

struct RenderResult {
  std::vector<std::filesystem::path> files;  // written
  std::string warning;                       // non-empty when figures could not be drawn
  std::filesystem::path figure_script;  // the plot_figures.py that drew them (empty: none drawn)
};

// The plot_figures.py a report runs: the installed copy relative to the running program, else the
// source tree's; empty when neither exists.
std::filesystem::path plot_script();

// The file's kind from its "kind" field, or, in files written before it, from "command" (and
// "drafts"). Throws std::invalid_argument naming the kinds accepted when it is none of them.
ResultsKind results_kind(const nlohmann::json& results);

// Throws std::invalid_argument on a file of no known kind, nlohmann::json::exception on an
// incomplete one (before anything is written).
RenderResult render_report(const nlohmann::json& results, const RenderOptions& options);

}  // namespace tev::reports
