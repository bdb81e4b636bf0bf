// `tevsuite report`: render a saved results.json again.
#include <iostream>
#include <memory>
#include <string>

#include "apps/commands.hpp"
#include "reports/render.hpp"
#include "reports/results_report.hpp"

namespace tev::apps {

namespace {
struct ReportState {
  std::string results_path;
  RenderOptions render{"theorem1-report"};
};
}  // namespace

Command register_report(CLI::App& app, const RunContext& context) {
  auto s = std::make_shared<ReportState>();
  auto* rep = app.add_subcommand("report", "Render report.md, report.html (and figures) again from an existing theorem1 or exittrain results.json.");
  rep->add_option("results", s->results_path, "a results.json written by tevsuite theorem1 or exittrain")->required()->check(CLI::ExistingFile);
  rep->add_option("--out", s->render.out_dir, "output folder")->capture_default_str();
  rep->add_option("--python", s->render.python, "Python interpreter with matplotlib for the figures")->capture_default_str();
  return {rep, [s, context] { return context.writes_files ? render_results_file(s->results_path, s->render, std::cout) : 0; }};
}

}  // namespace tev::apps
