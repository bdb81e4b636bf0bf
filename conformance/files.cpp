#include "conformance/files.hpp"

#include <deque>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

namespace tev::conformance {

namespace {
using nlohmann::json;

std::ifstream open_input(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError("cannot read " + path);
  return in;
}

// Reads every case with Reader, one Judge each, routes every sample line to its judge, then judges.
template <class Reader, class Judge, class JudgeAll>
auto check_files(const std::string& cases_path, const std::string& samples_path, std::uint32_t seed, double alpha, JudgeAll judge_all) {
  std::ifstream cases_in = open_input(cases_path);
  Reader reader(cases_in, cases_path);
  std::deque<typename decltype(reader.next())::value_type> cases;  // a deque: the judges keep pointers to their cases
  std::vector<Judge> judges;
  std::map<std::string, std::size_t> index;
  while (auto c = reader.next()) {
    cases.push_back(std::move(*c));
    index[cases.back().id] = judges.size();
    judges.emplace_back(cases.back(), seed, static_cast<std::uint32_t>(judges.size()));
  }
  std::ifstream samples_in = open_input(samples_path);
  std::string line;
  for (std::size_t k = 1;; ++k) {
    const std::string where = samples_path + ":" + std::to_string(k);
    if (!read_bounded_line(samples_in, line, kMaxSampleLineBytes, where)) break;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    json j;
    try {
      j = json::parse(line);
    } catch (const json::exception& e) {  // parse_error, and out_of_range for numbers like 1e999
      throw InputError(where + ": not valid JSON (" + e.what() + ")");
    }
    if (!j.is_object() || !j.contains("case_id") || !j["case_id"].is_string()) throw InputError(where + ": a sample needs a string \"case_id\"");
    const auto it = index.find(j["case_id"].get<std::string>());
    if (it == index.end()) throw InputError(where + ": no case " + j["case_id"].dump() + " in " + cases_path);
    judges[it->second].add_line(line, where);
  }
  return judge_all(judges, alpha);
}
}  // namespace

ConformanceReport check_case_files(const std::string& cases_path, const std::string& samples_path, std::uint32_t seed, double alpha) {
  return check_files<CaseReader, CaseJudge>(cases_path, samples_path, seed, alpha, judge);
}

ModelReport check_model_files(const std::string& cases_path, const std::string& samples_path, std::uint32_t seed, double alpha) {
  return check_files<ModelCaseReader, ModelCaseJudge>(cases_path, samples_path, seed, alpha, judge_models);
}

}  // namespace tev::conformance
