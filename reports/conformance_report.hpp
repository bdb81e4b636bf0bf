#pragma once
// `tevsuite conformance`'s tables and JSON.
#include <iosfwd>
#include <nlohmann/json.hpp>

#include "conformance/commands.hpp"
#include "conformance/judge.hpp"

namespace tev {

// Per case and overall, with the policy's levels; returns the verdict's exit code.
int print_conformance(const conformance::ConformanceReport& report, std::ostream& out);
nlohmann::json conformance_json(const conformance::ConformanceReport& report);
void print_emit_summary(const conformance::EmitSummary& summary, const std::string& out_path, std::ostream& out);

}  // namespace tev
