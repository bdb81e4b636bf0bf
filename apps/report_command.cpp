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
  reports::RenderOptions render{"theorem1-report"};
};
}  // namespace

Command register_report(CLI::App& app, const montecarlo::RunContext& context) {
  auto s = std::make_shared<ReportState>();
  auto* rep = app.add_subcommand(
      "report",
      "Render report.md, report.html and figures/ from any results file: theorem1's results.json, "
      "or the --json of exittrain,\n"
      "check, check --drafts sampled, live, live --drafts sampled and conformance check|run. A "
      "verdict report shows each case's (tree's) verdict with\n"
      "its p-values and its power at the verdict's level (TV@99%), the first failing case spelled "
      "out, the chi-square bins\n"
      "farthest from the reference law (observed vs expected) and per-node acceptance against P(u) "
      "(a figure). Exit code: the\n"
      "one the command that wrote the file returned; 2 on a file of another kind or an incomplete "
      "one.");
  rep->add_option("results", s->results_path,
                  "a results file written by tevsuite (its \"kind\", or \"command\" in older "
                  "files, says which)")
      ->required()
      ->check(CLI::ExistingFile);
  rep->add_option("--out", s->render.out_dir, "output folder")->capture_default_str();
  rep->add_option("--python", s->render.python,
                  "Python interpreter with matplotlib for the figures")
      ->capture_default_str();
  return {rep, [s, context] {
            return context.writes_files
                       ? reports::render_results_file(s->results_path, s->render, std::cout)
                       : 0;
          }};
}

}  // namespace tev::apps
