// The renderer reads only what the writers write. Every results file given (each command's real
// JSON, written at a tiny budget by the report_json_* and report_renders_* tests) goes through
// `tevsuite report`'s own path: a key the renderer requires and the file lacks fails it. A key it
// reads only where present (optional_field) must be present in at least one of the files, or the
// renderer is asking for a key no writer writes and silently leaves that part out. The kinds share
// their renderers' parts (a verifier's table, a case's evidence), so the files are pooled: a tree
// conformance file has no "pairs" and a live run without mutants no "caught_by", but the batch
// conformance and check files do.
// usage: report_schema OUT_DIR RESULTS.json...
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>

#include "reports/optional_field.hpp"
#include "reports/render.hpp"
#include "reports/results_report.hpp"

namespace {

nlohmann::json read(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open it (did the test that writes it run?)");
  nlohmann::json j;
  in >> j;
  return j;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tev::reports;
  if (argc < 3) {
    std::cerr << "usage: report_schema OUT_DIR RESULTS.json...\n";
    return 2;
  }
  const std::filesystem::path out_dir = argv[1];
  std::map<std::string, bool> asked;      // key -> held by some file
  std::map<std::string, std::string> by;  // key -> the kinds whose rendering asked for it
  int failures = 0;
  for (int i = 2; i < argc; ++i) {
    const std::string path = argv[i];
    try {
      const std::string kind(results_kind_name(results_kind(read(path))));
      // Figures are drawn by a separate script; `false` stands in for its interpreter.
      const RenderOptions render{out_dir / std::to_string(i), "false"};
      std::ostringstream ignored;
      const KeyWatch watch;
      render_results_file(path, render, ignored);
      for (const auto& [key, held] : watch.asked()) {
        asked[key] |= held;
        if (by[key].find(kind) == std::string::npos) by[key] += " " + kind;
      }
      std::cout << path << ": " << kind << ", rendered\n";
    } catch (const std::exception& e) {
      std::cout << path << ": FAILED: " << e.what() << '\n';
      ++failures;
    }
  }
  for (const auto& [key, held] : asked) {
    if (held) continue;
    std::cout << "the renderer reads \"" << key << "\" (for" << by[key]
              << "), which no given file holds\n";
    ++failures;
  }
  return failures == 0 ? 0 : 1;
}
