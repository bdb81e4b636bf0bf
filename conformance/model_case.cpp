#include "conformance/model_case.hpp"

#include <array>
#include <fstream>

#include "conformance/json_input.hpp"
#include "core/compensated_sum.hpp"

namespace tev::conformance {

namespace {

using nlohmann::json;

constexpr std::array<DraftPolicy, 5> kPolicies = {DraftPolicy::chain, DraftPolicy::independent_chains, DraftPolicy::iid_children,
                                                  DraftPolicy::without_replacement, DraftPolicy::top_k};

std::string prefix_text(const std::vector<Token>& prefix) { return json(prefix).dump(); }

Drafting read_hint(const json& hint, std::int32_t depth, const std::string& at) {
  if (!hint.is_object()) fail(at, "drafting must be an object {\"policy\": ..., \"width\": k}");
  const json& policy_j = field(hint, "policy", at);
  std::string names;
  for (DraftPolicy p : kPolicies) {
    names += (names.empty() ? "" : ", ") + std::string(policy_name(p));
    if (policy_j.is_string() && policy_j.get<std::string>() == policy_name(p)) {
      Drafting d{p, 1, depth};
      if (hint.contains("width")) d.width = static_cast<std::int32_t>(integer(hint["width"], 1, kMaxModelWidth, at, "drafting width"));
      if (p == DraftPolicy::chain && d.width != 1) fail(at, "a chain drafts one token per node: its width is 1");
      return d;
    }
  }
  fail(at, "drafting policy " + policy_j.dump() + " is not one of " + names);
}

}  // namespace

std::string_view policy_name(DraftPolicy policy) {
  switch (policy) {
    case DraftPolicy::chain: return "chain";
    case DraftPolicy::independent_chains: return "independent-chains";
    case DraftPolicy::iid_children: return "iid";
    case DraftPolicy::without_replacement: return "without-replacement";
    case DraftPolicy::top_k: return "top-k";
  }
  return "unknown";
}

std::int64_t model_cells(std::int64_t vocab, std::int64_t depth, std::int64_t limit) {
  // 2 · Σ_{l≤D} V^(l+1) for the rows, 2 · V^(D+1) for the law and counts; stops past the limit
  // (V^l stays below limit · V ≤ 2^50, so nothing overflows).
  std::int64_t cells = 0, level = 1;
  for (std::int64_t l = 0; l <= depth; ++l) {
    level *= vocab;
    cells += 2 * level;
    if (cells > limit) return limit + 1;
  }
  cells += 2 * level;
  return cells > limit ? limit + 1 : cells;
}

ModelCase parse_model_case(std::string_view line, const std::string& where, const CaseLimits& limits) {
  const json j = parse_bounded(line, limits.json_values, where);
  const std::int64_t version = format_version(j, where);
  if (version == kFormatVersion) fail(where, "format_version 1 is a fixed-tree case: it goes in a file of its own (this file's first case is a model case, format_version 2)");
  if (version != kModelFormatVersion) fail(where, "format_version " + std::to_string(version) + " is not supported (expected 2)");
  std::string id, label;
  std::uint64_t samples = 0;
  const std::string at = read_header(j, where, id, label, samples);
  const std::int64_t vocab = integer(field(j, "vocab", at), 2, kMaxVocab, at, "vocab");
  const auto depth = static_cast<std::int32_t>(integer(field(j, "depth", at), 1, kMaxModelDepth, at, "depth"));
  if (model_cells(vocab, depth, limits.cells) > limits.cells) {
    fail(at, "vocab " + std::to_string(vocab) + " at depth " + std::to_string(depth) + " needs more than the " + std::to_string(limits.cells) +
                 " cells this case may hold (p and q rows for every prefix, 2 V^(D+1) for the law and counts; at most " +
                 std::to_string(kMaxCells) + " per case, kMaxCells, and " + std::to_string(kMaxHeldCells) + " over the cases held at once)");
  }
  std::optional<Drafting> drafting;
  if (j.contains("drafting")) drafting = read_hint(j["drafting"], depth, at);

  const auto v = static_cast<std::int32_t>(vocab);
  const std::size_t prefixes = LanguagePair::prefix_count(v, depth + 1);
  const json& rows_j = field(j, "rows", at);
  if (!rows_j.is_array()) fail(at, "rows must be an array of {\"prefix\", \"p\", \"q\"} objects");
  if (rows_j.size() > prefixes) {
    fail(at, "rows has " + std::to_string(rows_j.size()) + " entries; a depth-" + std::to_string(depth) + " case over " + std::to_string(vocab) +
                 " tokens has " + std::to_string(prefixes) + " prefixes (lengths 0.." + std::to_string(depth) + ")");
  }
  const auto width = static_cast<std::size_t>(vocab);
  std::vector<double> p(prefixes * width), q(prefixes * width);  // (prefixes, V) each, in the pair's prefix order
  std::vector<std::size_t> row_of(prefixes, 0);  // (prefixes) 1 + the rows entry that gave the prefix, 0 while missing
  for (std::size_t k = 0; k < rows_j.size(); ++k) {
    const std::string row_at = at + " rows[" + std::to_string(k) + "]";
    const json& r = rows_j[k];
    if (!r.is_object()) fail(row_at, "a row entry must be an object {\"prefix\", \"p\", \"q\"}");
    const json& prefix_j = field(r, "prefix", row_at);
    if (!prefix_j.is_array()) fail(row_at, "prefix must be an array of tokens");
    if (static_cast<std::int64_t>(prefix_j.size()) > depth) {
      fail(row_at, "prefix of length " + std::to_string(prefix_j.size()) + " is deeper than the case's depth " + std::to_string(depth));
    }
    std::vector<Token> prefix;
    for (std::size_t i = 0; i < prefix_j.size(); ++i) {
      prefix.push_back(static_cast<Token>(integer(prefix_j[i], 0, vocab - 1, row_at, "prefix token " + std::to_string(i))));
    }
    const std::size_t index = LanguagePair::prefix_count(v, static_cast<std::int32_t>(prefix.size())) + sequence_cell(prefix, v);
    if (row_of[index] != 0) fail(row_at, "prefix " + prefix_text(prefix) + " already has a row (rows[" + std::to_string(row_of[index] - 1) + "])");
    row_of[index] = k + 1;
    const std::string name = row_at + " (prefix " + prefix_text(prefix) + ")";
    std::span<double> p_row(p.data() + index * width, width), q_row(q.data() + index * width, width);
    read_row(field(r, "p", name), vocab, {}, p_row, name + " p");
    read_row(field(r, "q", name), vocab, {}, q_row, name + " q");
    // Normalized by the compensated total, as target rows are on ingestion.
    for (std::span<double> row : {p_row, q_row}) {
      const double total = compensated_total(row);
      for (double& x : row) x /= total;
    }
  }
  std::size_t missing = 0, first_missing = prefixes;
  for (std::size_t i = 0; i < prefixes; ++i) {
    if (row_of[i] == 0 && missing++ == 0) first_missing = i;
  }
  if (missing > 0) {
    fail(at, "no row for prefix " + prefix_text(LanguagePair::prefix_of(v, first_missing)) + " (" + std::to_string(missing) + " of the " + std::to_string(prefixes) +
                 " prefixes of lengths 0.." + std::to_string(depth) + " missing)");
  }
  return ModelCase{std::move(id), std::move(label), samples, depth, drafting, LanguagePair(v, depth + 1, std::move(p), std::move(q))};
}

std::string write_model_case(const std::string& id, const std::string& label, const LanguagePair& pair,
                             const std::optional<Drafting>& drafting, std::uint64_t samples) {
  json j;
  j["format_version"] = kModelFormatVersion;
  j["case_id"] = id;
  if (!label.empty()) j["label"] = label;
  j["vocab"] = pair.vocab();
  j["depth"] = pair.horizon() - 1;
  j["samples"] = samples;
  if (drafting) j["drafting"] = {{"policy", policy_name(drafting->policy)}, {"width", drafting->width}};
  j["rows"] = json::array();
  for (std::size_t i = 0; i < pair.prefixes(); ++i) {
    const std::vector<Token> prefix = pair.prefix(i);
    const auto p = pair.p(prefix), q = pair.q(prefix);
    j["rows"].push_back({{"prefix", prefix}, {"p", std::vector<double>(p.begin(), p.end())}, {"q", std::vector<double>(q.begin(), q.end())}});
  }
  return j.dump();
}

std::int64_t cases_file_version(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError("cannot read " + path);
  std::string line;
  for (std::size_t k = 1; read_bounded_line(in, line, kMaxCaseLineBytes, path + ":" + std::to_string(k)); ++k) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = path + ":" + std::to_string(k);
    return format_version(parse_bounded(line, kMaxJsonValues, where), where);
  }
  throw InputError(path + ": no cases");
}

}  // namespace tev::conformance
