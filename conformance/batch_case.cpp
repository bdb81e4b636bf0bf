#include "conformance/batch_case.hpp"

#include <map>
#include <nlohmann/json.hpp>

#include "conformance/json_input.hpp"

namespace tev::conformance {

using nlohmann::json;

namespace {

std::int64_t pair_cells(const std::vector<std::int64_t>& nodes) {
  std::int64_t cells = 0, before = 0;
  for (std::int64_t n : nodes) {
    cells += before * n;
    before += n;
  }
  return cells;
}

}  // namespace

std::int64_t held_cells(const BatchCase& b) {
  std::int64_t cells = 0;
  std::vector<std::int64_t> nodes;
  for (const Case& r : b.requests) {
    cells += held_cells(r);
    nodes.push_back(r.tree.size());
  }
  return cells + pair_cells(nodes);
}

BatchCase parse_batch_case(std::string_view line, const std::string& where,
                           const CaseLimits& limits) {
  json j = parse_bounded(line, limits.json_values, where);
  const std::int64_t version = format_version(j, where);
  if (version != kBatchFormatVersion) {
    fail(where, "format_version " + std::to_string(version) +
                    (is_model_format(version) ? " is a model case" : " is a fixed-tree case") +
                    ": it goes in a file of its own (this file's first case is a batch case, "
                    "format_version 5)");
  }
  BatchCase b;
  const std::string at = read_header(j, where, b.id, b.label, b.samples);
  json& requests = j["requests"];
  if (!requests.is_array() || requests.empty() ||
      static_cast<std::int64_t>(requests.size()) > kMaxBatchRequests) {
    fail(at, "\"requests\" must be an array of 1 to " + std::to_string(kMaxBatchRequests) +
                 " fixed-tree cases");
  }
  // Node counts first, so the pair tables are refused before any request's rows are allocated.
  std::vector<std::int64_t> nodes;
  for (const json& r : requests) {
    const bool has_parents = r.is_object() && r.contains("parents") && r["parents"].is_array();
    nodes.push_back(has_parents ? static_cast<std::int64_t>(r["parents"].size()) : 0);
  }
  std::int64_t cells_left = limits.cells - pair_cells(nodes);
  if (cells_left < 0) {
    fail(at, "the joint exit-node counts of its pairs of requests take " +
                 std::to_string(pair_cells(nodes)) + " cells, more than the " +
                 std::to_string(limits.cells) + " this batch may hold");
  }
  std::map<std::string, std::size_t> seen;
  for (std::size_t k = 0; k < requests.size(); ++k) {
    json& r = requests[k];
    const std::string request_at = at + " request " + std::to_string(k);
    if (!r.is_object()) fail(request_at, "a request must be a JSON object (a format 1 or 3 case)");
    const std::int64_t request_version = format_version(r, request_at);
    if (request_version != kFormatVersion && request_version != kEngineFormatVersion) {
      fail(request_at, "format_version " + std::to_string(request_version) +
                           " is not a fixed-tree case (expected 1 or 3)");
    }
    if (r.contains("samples") &&
        !(r["samples"].is_number_integer() &&
          r["samples"].get<std::int64_t>() == static_cast<std::int64_t>(b.samples))) {
      fail(request_at, "a request's samples are the batch's rounds (" + std::to_string(b.samples) +
                           "): leave \"samples\" out");
    }
    r["samples"] = b.samples;
    CaseLimits request_limits = limits;
    request_limits.cells = cells_left;
    Case c = case_from_json(r, request_at, request_limits);
    cells_left -= held_cells(c);
    if (!b.requests.empty() && c.tree.vocab != b.requests.front().tree.vocab) {
      fail(request_at + " (" + c.id + ")",
           "vocab " + std::to_string(c.tree.vocab) + " differs from the batch's first request's " +
               std::to_string(b.requests.front().tree.vocab) + " (a batch is one model's)");
    }
    const auto [first, fresh] = seen.emplace(c.id, k);
    if (!fresh)
      fail(request_at,
           "request id \"" + c.id + "\" already used by request " + std::to_string(first->second));
    r = nullptr;  // its rows are read: free its JSON
    b.requests.push_back(std::move(c));
  }
  return b;
}

std::string write_batch_case(const std::string& id, const std::string& label,
                             const std::vector<std::string>& request_lines, std::uint64_t rounds) {
  json j;
  j["format_version"] = kBatchFormatVersion;
  j["case_id"] = id;
  if (!label.empty()) j["label"] = label;
  j["samples"] = rounds;
  j["requests"] = json::array();
  for (const std::string& line : request_lines) {
    json r = json::parse(line);
    r.erase("samples");
    j["requests"].push_back(std::move(r));
  }
  return j.dump();
}

}  // namespace tev::conformance
