#include "conformance/sample_router.hpp"

#include <fstream>
#include <nlohmann/json.hpp>

#include "conformance/json_input.hpp"

namespace tev::conformance {

namespace {

using nlohmann::json;

std::ifstream open_input(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError("cannot read " + path);
  return in;
}

template <class Format>
typename Format::Report judge_files(const std::string& cases_path, const std::string& samples_path,
                                    std::uint32_t completion_seed,
                                    const judging::VerdictPolicy& policy) {
  std::ifstream cases_in = open_input(cases_path);
  typename Format::Reader reader(cases_in, cases_path);
  BasicSampleRouter<Format> router(reader, completion_seed);
  std::ifstream samples_in = open_input(samples_path);
  router.add_stream(samples_in, samples_path);
  return router.judge(policy);
}

}  // namespace

std::optional<std::string> sample_case_id(std::string_view line, const std::string& where) {
  if (line.find_first_not_of(" \t\r") == std::string_view::npos) return std::nullopt;
  json j = parse_sample_line(line, where);
  if (!j.is_object() || !j.contains("case_id") || !j["case_id"].is_string())
    throw InputError(where + ": a sample needs a string \"case_id\"");
  return j["case_id"].get<std::string>();
}

ConformanceReport judge_conformance_files(const std::string& cases_path,
                                          const std::string& samples_path,
                                          std::uint32_t completion_seed,
                                          const judging::VerdictPolicy& policy) {
  return judge_files<FixedTreeCases>(cases_path, samples_path, completion_seed, policy);
}

ModelReport judge_model_case_files(const std::string& cases_path, const std::string& samples_path,
                                   std::uint32_t completion_seed,
                                   const judging::VerdictPolicy& policy) {
  return judge_files<ModelCases>(cases_path, samples_path, completion_seed, policy);
}

BatchReport judge_batch_case_files(const std::string& cases_path, const std::string& samples_path,
                                   std::uint32_t completion_seed,
                                   const judging::VerdictPolicy& policy) {
  return judge_files<BatchCases>(cases_path, samples_path, completion_seed, policy);
}

GenerationReport judge_generation_case_files(const std::string& cases_path,
                                             const std::string& samples_path,
                                             const judging::VerdictPolicy& policy) {
  return judge_files<GenerationCases>(cases_path, samples_path, 0, policy);
}

}  // namespace tev::conformance
