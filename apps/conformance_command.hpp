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
// Cases from cases_path, or emitted from `emit` when cases_path is empty.
int run_conformance_run(const std::string& cases_path, const conformance::EmitConfig& emit, const conformance::RunOptions& options,
                        const std::string& json_path, std::ostream& out, std::ostream& progress);

}  // namespace tev
