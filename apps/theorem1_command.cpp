#include "apps/theorem1_command.hpp"

#include <fstream>
#include <ostream>
#include <stdexcept>

#include "apps/exittrain_command.hpp"

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
  const bool exittrain = results.is_object() && results.value("command", "") == "exittrain";
  try {
    return exittrain ? finish_exittrain_report(results, render, out) : finish(results, render, out);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(results_path + " is not a complete " + (exittrain ? "exittrain" : "theorem1") + " results file: " + e.what());
  }
}

}  // namespace tev
