#pragma once
// `tevsuite conformance`'s tables and JSON.
#include <iosfwd>
#include <nlohmann/json.hpp>

#include "conformance/commands.hpp"
#include "conformance/judge.hpp"
#include "conformance/model_judge.hpp"

namespace tev::reports {

// Per case and overall, with the policy's levels (the exit code is the report's own, exit_code()).
void print_conformance(const conformance::ConformanceReport& report, std::ostream& out);
nlohmann::json conformance_json(const conformance::ConformanceReport& report);
// Model cases (format_version 2): marginal exactness per case and overall.
void print_model_conformance(const conformance::ModelReport& report, std::ostream& out);
nlohmann::json model_conformance_json(const conformance::ModelReport& report);
// Batch cases (format_version 5): every request as a fixed-tree case, every pair's independence
// within a round, and overall.
void print_batch_conformance(const conformance::BatchReport& report, std::ostream& out);
nlohmann::json batch_conformance_json(const conformance::BatchReport& report);
// Generation cases (format_version 6): each request's emitted sequences against plain
// generation's law, and overall.
void print_generation_conformance(const conformance::GenerationReport& report, std::ostream& out);
nlohmann::json generation_conformance_json(const conformance::GenerationReport& report);
void print_emit_summary(const conformance::EmitSummary& summary, const std::string& out_path,
                        std::ostream& out);

}  // namespace tev::reports
