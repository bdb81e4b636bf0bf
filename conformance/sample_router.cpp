#include "conformance/sample_router.hpp"

#include <fstream>
#include <nlohmann/json.hpp>

namespace tev::conformance {

namespace {

using nlohmann::json;

bool blank(std::string_view line) { return line.find_first_not_of(" \t\r") == std::string_view::npos; }

std::ifstream open_input(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError("cannot read " + path);
  return in;
}

}  // namespace

SampleRouter::SampleRouter(CaseReader& cases, std::uint32_t completion_seed) : cases_source_(cases.source()) {
  while (std::optional<Case> c = cases.next()) {
    cases_.push_back(std::move(*c));
    index_[cases_.back().id] = judges_.size();
    judges_.emplace_back(cases_.back(), completion_seed, static_cast<std::uint32_t>(judges_.size()));
  }
}

void SampleRouter::add_line(std::string_view line, const std::string& where) {
  if (blank(line)) return;
  json j;
  try {
    j = json::parse(line);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for numbers like 1e999
    throw InputError(where + ": not valid JSON (" + e.what() + ")");
  }
  if (!j.is_object() || !j.contains("case_id") || !j["case_id"].is_string()) throw InputError(where + ": a sample needs a string \"case_id\"");
  const auto it = index_.find(j["case_id"].get<std::string>());
  if (it == index_.end()) throw InputError(where + ": no case " + j["case_id"].dump() + " in " + cases_source_);
  judges_[it->second].add_line(line, where);
}

void SampleRouter::add_stream(std::istream& samples, const std::string& source) {
  std::string line;
  for (std::size_t k = 1;; ++k) {
    const std::string where = source + ":" + std::to_string(k);
    if (!read_bounded_line(samples, line, kMaxSampleLineBytes, where)) break;
    add_line(line, where);
  }
}

ConformanceReport SampleRouter::judge(double alpha) const { return conformance::judge(judges_, alpha); }

ConformanceReport judge_conformance_files(const std::string& cases_path, const std::string& samples_path, std::uint32_t completion_seed,
                                          double alpha) {
  std::ifstream cases_in = open_input(cases_path);
  CaseReader reader(cases_in, cases_path);
  SampleRouter router(reader, completion_seed);
  std::ifstream samples_in = open_input(samples_path);
  router.add_stream(samples_in, samples_path);
  return router.judge(alpha);
}

}  // namespace tev::conformance
