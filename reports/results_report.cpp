#include "reports/results_report.hpp"

#include <fstream>
#include <ostream>
#include <stdexcept>

#include "reports/exittrain_report.hpp"
#include "reports/render_verdicts.hpp"

namespace tev::reports {

void write_theorem1_report(const nlohmann::json& results, const RenderOptions& render,
                           std::ostream& out) {
  const RenderResult written = render_report(results, render);
  for (const auto& claim : results.at("claims")) {
    out << (claim.at("holds").get<bool>() ? "  holds  " : "  FAILS  ")
        << claim.at("claim").get<std::string>() << " (" << claim.at("reference").get<std::string>()
        << ")\n";
  }
  for (const auto& file : written.files) out << "wrote " << file.string() << '\n';
  if (!written.warning.empty()) out << "warning: " << written.warning << '\n';
  const bool passed = results.at("passed").get<bool>();
  out << (passed ? "PASS" : "FAIL") << ": Theorem 1 reproduced"
      << (passed ? "" : " -- not every claim holds") << '\n';
}

int render_results_file(const std::string& results_path, const RenderOptions& render,
                        std::ostream& out) {
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
    // A saved file carries its command's decision: read it back.
    if (kind == ResultsKind::theorem1) {
      write_theorem1_report(results, render, out);
      return results.at("passed").get<bool>() ? 0 : 1;
    }
    if (kind == ResultsKind::exittrain) {
      write_exittrain_report(results, render, out);
      return results.at("summary").at("tev").at("all_agree").get<bool>() ? 0 : 1;
    }
    const RenderResult written = render_report(results, render);
    for (const auto& file : written.files) out << "wrote " << file.string() << '\n';
    if (!written.figure_script.empty())
      out << "figures drawn by " << written.figure_script.string() << '\n';
    if (!written.warning.empty()) out << "warning: " << written.warning << '\n';
    const VerdictSummary summary = verdict_summary(results, kind);
    out << summary.line << '\n';
    return summary.exit_code;
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(results_path + " is not a complete " +
                             std::string(results_kind_name(kind)) + " results file: " + e.what());
  }
}

}  // namespace tev::reports
