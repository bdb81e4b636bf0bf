#pragma once
// `tevsuite conformance check`: a cases file and a samples file, judged by the judge of the cases'
// format (fixed trees or model cases). Samples may come in any order: each line goes to its case's
// judge by case_id, so every case (its rows, counts) stays alive until the end, within kMaxHeldCells.
#include <cstdint>
#include <string>

#include "conformance/judge.hpp"
#include "conformance/model_judge.hpp"

namespace tev::conformance {

ConformanceReport check_case_files(const std::string& cases_path, const std::string& samples_path, std::uint32_t seed, double alpha);
ModelReport check_model_files(const std::string& cases_path, const std::string& samples_path, std::uint32_t seed, double alpha);

}  // namespace tev::conformance
