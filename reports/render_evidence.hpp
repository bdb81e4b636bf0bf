#pragma once
// The pieces every verdict document shows (render_verdicts.cpp, render_sampled.cpp): a results
// file's fields as text, the tables of each case's χ² bins farthest from the reference law, and
// the opening verdict of a run whose verdicts each follow their kind.
#include <cstddef>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "reports/document.hpp"

namespace tev::reports {

inline constexpr std::size_t kDeviationsPerSubject =
    3;  // bins shown per verifier or case in the summary tables
inline constexpr std::size_t kAllDeviations = std::numeric_limits<std::size_t>::max();

std::string count(const nlohmann::json& x);
std::string tv_text(const nlohmann::json& tv);
std::string text(const nlohmann::json& j, const char* key);

// Rows of a deviation table from one case's evidence: `lead` cells, then where, observed,
// expected, (o − e)/√e. Files written before the deviations were recorded have none.
void deviation_rows(Table& t, const nlohmann::json& evidence, const std::vector<std::string>& lead,
                    std::size_t limit, bool sequences);
// A summary table of deviations, or a word where the file predates them.
void deviation_table(Document& d, Table t);
std::vector<std::string> deviation_header(std::vector<std::string> lead);

// The opening verdict of a run judged "every verdict as its kind calls for".
std::string overall_line(bool passed);

}  // namespace tev::reports
