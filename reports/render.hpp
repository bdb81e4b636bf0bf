#pragma once
// Renders a theorem1 or exittrain results.json into report.md and report.html (same content);
// theorem1's figures are drawn by reports/plot_figures.py under Debian's matplotlib.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tev {

struct RenderOptions {
  std::filesystem::path out_dir;
  std::string python = "/usr/bin/python3";  // Debian's interpreter, which sees python3-matplotlib
};

struct RenderResult {
  std::vector<std::filesystem::path> files;  // written
  std::string warning;                       // non-empty when figures could not be drawn
};

RenderResult render_report(const nlohmann::json& results, const RenderOptions& options);

}  // namespace tev
