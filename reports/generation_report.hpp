#pragma once
// `tevsuite check --generation`'s table, JSON and rendered document.
#include <iosfwd>
#include <nlohmann/json.hpp>

#include "generation/check.hpp"
#include "reports/document.hpp"

namespace tev::reports {

// The cases, the verdict table (one line a loop), each fault's cause and the sequence it moves
// most, and the PASS line.
void print_generation_check(const generation::GenerationCheckOptions& options,
                            const generation::GenerationCheckResult& result, std::ostream& out);
nlohmann::json generation_check_json(const generation::GenerationCheckOptions& options,
                                     const generation::GenerationCheckResult& result);
// `tevsuite report` of that JSON.
Document generation_check_document(const nlohmann::json& results);

}  // namespace tev::reports
