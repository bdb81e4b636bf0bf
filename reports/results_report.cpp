#include "reports/results_report.hpp"

#include <fstream>
#include <ostream>
#include <stdexcept>

#include "reports/exittrain_report.hpp"

namespace tev {

int finish_theorem1_report(const nlohmann::json& results, const RenderOptions& render, std::ostream& out) {
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

int render_results_file(const std::string& results_path, const RenderOptions& render, std::ostream& out) {
  std::ifstream in(results_path);
  if (!in) throw std::runtime_error("cannot read " + results_path);
  nlohmann::json results;
  try {
    in >> results;
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(results_path + " is not valid JSON: " + e.what());
  }
  const bool exittrain = results.is_object() && results.value("command", "") == "exittrain";
  try {
    return exittrain ? finish_exittrain_report(results, render, out) : finish_theorem1_report(results, render, out);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(results_path + " is not a complete " + (exittrain ? "exittrain" : "theorem1") + " results file: " + e.what());
  }
}

}  // namespace tev
