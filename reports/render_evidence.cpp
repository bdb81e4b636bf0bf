#include "reports/render_evidence.hpp"

#include <utility>

#include "reports/optional_field.hpp"

namespace tev::reports {

namespace {

using nlohmann::json;

// Where a χ² bin of the block law lies: one (exit node, next token) cell, or a pooled tail.
std::string block_cell(const json& d) {
  const std::string cells = count(d.at("cells"));
  if (!d.at("token").is_null())
    return "node " + count(d.at("node")) + ", token " + count(d.at("token"));
  if (!d.at("node").is_null())
    return "node " + count(d.at("node")) + ", tail of " + cells + " cells";
  return "global tail of " + cells + " cells";
}

// Where a χ² bin of the H-token law lies: one sequence, or a tail of them.
std::string sequence_cell(const json& d) {
  if (d.at("sequence").is_null()) return "tail of " + count(d.at("cells")) + " sequences";
  std::string out;
  for (const json& t : d.at("sequence")) {
    if (!out.empty()) out += ' ';
    out += count(t);
  }
  return "tokens " + out;
}

std::string residual_text(const json& d) {
  return d.at("impossible").get<bool>() ? "impossible (p = 0)"
                                        : fixed(d.at("residual").get<double>(), 2);
}

}  // namespace

std::string count(const json& x) { return std::to_string(x.get<std::uint64_t>()); }
std::string tv_text(const json& tv) { return tv.is_null() ? "none" : num(tv.get<double>()); }
std::string text(const json& j, const char* key) { return j.value(key, std::string()); }

void deviation_rows(Table& t, const json& evidence, const std::vector<std::string>& lead,
                    std::size_t limit, bool sequences) {
  const json* deviations = optional_field(evidence, "largest_deviations");
  if (deviations == nullptr) return;
  std::size_t shown = 0;
  for (const json& d : *deviations) {
    if (shown++ == limit) break;
    std::vector<std::string> row = lead;
    row.push_back(sequences ? sequence_cell(d) : block_cell(d));
    row.push_back(count(d.at("observed")));
    row.push_back(fixed(d.at("expected").get<double>(), 1));
    row.push_back(residual_text(d));
    t.rows.push_back(std::move(row));
  }
}

void deviation_table(Document& d, Table t) {
  if (t.rows.empty()) {
    reports::paragraph(d,
                       "This file records no deviations (written before they were added): run the "
                       "command again to see them.");
  } else {
    reports::table(d, std::move(t));
  }
}

std::vector<std::string> deviation_header(std::vector<std::string> lead) {
  for (const char* h : {"cell (chi-square bin)", "observed", "expected", "(o - e) / sqrt(e)"})
    lead.push_back(h);
  return lead;
}

std::string overall_line(bool passed) {
  return std::string("Verdict: **") +
         (passed ? "every verdict is the one its kind calls for"
                 : "NOT every verdict is the one its kind calls for — see the first failing case") +
         "**. ";
}

}  // namespace tev::reports
