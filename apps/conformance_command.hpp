#pragma once
// `tevsuite conformance emit | check | run`.
#include <iosfwd>
#include <string>

#include "conformance/emit.hpp"
#include "conformance/subprocess.hpp"

namespace tev {

int run_conformance_emit(const conformance::EmitConfig& config, const std::string& out_path, std::ostream& out, std::ostream& progress);
int run_conformance_check(const std::string& cases_path, const std::string& samples_path, std::uint32_t seed, double alpha,
                          const std::string& json_path, std::ostream& out);
int run_conformance_emit_models(const conformance::ModelEmitConfig& config, const std::string& out_path, std::ostream& out, std::ostream& progress);
// Cases from cases_path (fixed-tree or model cases, by the file's first case), or emitted when
// cases_path is empty: model cases from `model_emit` when given, else fixed-tree cases from `emit`.
int run_conformance_run(const std::string& cases_path, const conformance::EmitConfig& emit, const conformance::ModelEmitConfig* model_emit,
                        const conformance::RunOptions& options, const std::string& json_path, std::ostream& out, std::ostream& progress);

}  // namespace tev
