#include "apps/theorem1_command.hpp"

#include <fstream>
#include <ostream>
#include <stdexcept>

#include "apps/exittrain_command.hpp"
#include "reports/render_verdicts.hpp"

namespace tev {

namespace {
int finish(const nlohmann::json& results, const RenderOptions& render, std::ostream& out) {
  const RenderResult written = render_report(results, render);
  for (const auto& claim : results.at("claims")) {
    out << (claim.at("holds").get<bool>() ? "  holds  " : "  FAILS  ") << claim.at("claim").get<std::string>() << " ("
        << claim.at("reference").get<std::string>() << ")\n";
  }
  for (const auto& file : written.files) out << "wrote " << file.string() << '\n';
  if (!written.warning.empty()) out << "warning: " << written.warning << '\n';
  const bool passed = results.at("passed").get<bool>();
  out << (passed ? "PASS" : "FAIL") << ": Theorem 1 reproduced" << (passed ? "" : " -- not every claim holds") << '\n';
  return passed ? 0 : 1;
}
}  // namespace

int run_theorem1_command(const Theorem1Options& options, const RenderOptions& render, std::ostream& out, std::ostream& progress) {
  std::filesystem::create_directories(render.out_dir);  // fail on a bad --out before the long run
  return finish(run_theorem1(options, progress), render, out);
}

int run_report_command(const std::string& results_path, const RenderOptions& render, std::ostream& out) {
  std::ifstream in(results_path);
  if (!in) throw std::runtime_error("cannot read " + results_path);
  nlohmann::json results;
  try {
    in >> results;
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(results_path + " is not valid JSON: " + e.what());
  }
  ResultsKind kind;
  try {
    kind = results_kind(results);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(results_path + " is " + e.what());
  }
  try {
    if (kind == ResultsKind::theorem1) return finish(results, render, out);
    if (kind == ResultsKind::exittrain) return finish_exittrain_report(results, render, out);
    const RenderResult written = render_report(results, render);
    for (const auto& file : written.files) out << "wrote " << file.string() << '\n';
    if (!written.warning.empty()) out << "warning: " << written.warning << '\n';
    const VerdictSummary summary = verdict_summary(results, kind);
    out << summary.line << '\n';
    return summary.exit_code;
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(results_path + " is not a complete " + std::string(results_kind_name(kind)) + " results file: " + e.what());
  }
}

}  // namespace tev
