#include "conformance/commands.hpp"

#include <algorithm>
#include <fstream>
#include <optional>
#include <ostream>
#include <sstream>

#include "core/statistics.hpp"

namespace tev::conformance {

EmitSummary emit_conformance_cases(const EmitConfig& config, const std::string& out_path, const RunContext& context, std::ostream& progress) {
  std::ofstream file;
  if (context.writes_files) {
    file.open(out_path);
    if (!file) throw InputError("cannot write " + out_path);
  }
  const std::vector<std::string> lines = emit_cases(config);
  EmitSummary summary;
  summary.cases = lines.size();
  summary.samples = config.samples;
  summary.chi_square_level = summary.policy.chi_square_level(lines.size());
  for (std::size_t k = 0; k < lines.size(); ++k) {
    if (context.writes_files) file << lines[k] << '\n';
    const Case c = parse_case(lines[k], "emitted case " + std::to_string(k));  // every emitted case must read back
    const std::optional<double> tv = detectable_tv(c.tree, c.rows, c.samples, summary.chi_square_level, summary.policy.required_power);
    if (tv) {
      summary.detectable_tvs.push_back(*tv);
    } else {
      ++summary.undetectable;
    }
    progress << "  " << c.id << ": " << c.tree.size() << " nodes, depth " << c.tree.max_depth() << ", V = " << c.tree.vocab << " - " << c.label << '\n';
  }
  if (context.writes_files && !file) throw InputError("error writing " + out_path);
  std::sort(summary.detectable_tvs.begin(), summary.detectable_tvs.end());
  return summary;
}

ConformanceReport run_conformance_verifier(const std::string& cases_path, const EmitConfig& emit, const RunOptions& options,
                                           std::ostream& progress) {
  std::ifstream file;
  std::istringstream emitted;
  if (cases_path.empty()) {
    std::string text;
    for (const std::string& line : emit_cases(emit)) text += line + '\n';
    emitted.str(text);
  } else {
    file.open(cases_path);
    if (!file) throw InputError("cannot read " + cases_path);
  }
  CaseReader reader(cases_path.empty() ? static_cast<std::istream&>(emitted) : file, cases_path.empty() ? "emitted cases" : cases_path);
  return run_verifier_command(reader, options, progress);
}

}  // namespace tev::conformance
