#include "conformance/case_io.hpp"

#include <cmath>
#include <istream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "core/compensated_sum.hpp"

namespace tev::conformance {

namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& where, const std::string& problem) { throw InputError(where + ": " + problem); }

const json& field(const json& j, const char* name, const std::string& where) {
  const auto it = j.find(name);
  if (it == j.end()) fail(where, std::string("missing field \"") + name + "\"");
  return *it;
}

// An integer checked against [lo, hi] as the JSON number it is (nlohmann keeps non-negative
// integers unsigned), so no value out of range can wrap when narrowed.
std::int64_t integer(const json& j, std::int64_t lo, std::int64_t hi, const std::string& where, const std::string& what) {
  if (!j.is_number_integer()) fail(where, what + " must be an integer, got " + j.dump());
  const bool above = j.is_number_unsigned() ? j.get<std::uint64_t>() > static_cast<std::uint64_t>(hi) : j.get<std::int64_t>() > hi;
  if (above || j.get<std::int64_t>() < lo) fail(where, what + " is " + j.dump() + ", outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return j.get<std::int64_t>();
}

std::int64_t any_integer(const json& j, const std::string& where, const std::string& what) {
  return integer(j, std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max(), where, what);
}

// Parses a line into a JSON tree of at most max_values values, refusing a larger one while it grows.
json parse_bounded(std::string_view line, std::int64_t max_values, const std::string& where) {
  std::int64_t values = 0;
  const json::parser_callback_t count = [&](int, json::parse_event_t event, json&) {
    if (event == json::parse_event_t::value && ++values > max_values) {
      fail(where, "more than " + std::to_string(max_values) + " JSON values, more than a case within the cell limit needs (kMaxJsonValues = " +
                      std::to_string(kMaxJsonValues) + " for kMaxCells = " + std::to_string(kMaxCells) + ")");
    }
    return true;
  };
  try {
    return json::parse(line, count);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for numbers like 1e999
    fail(where, std::string("not valid JSON (") + e.what() + ")");
  }
}

double probability(const json& j, const std::string& where, const std::string& what) {
  if (!j.is_number()) fail(where, what + " must be a number, got " + j.dump());
  const double p = j.get<double>();
  if (!std::isfinite(p) || p < 0.0) fail(where, what + " is " + j.dump() + ": probabilities must be finite and non-negative");
  return p;
}

// Fills `out` (length V) from a dense or sparse row; `children` are the child tokens it must list.
void read_row(const json& row, std::int64_t vocab, const std::vector<Token>& children, std::span<double> out,
              const std::string& where) {
  if (row.is_array()) {
    if (static_cast<std::int64_t>(row.size()) != vocab) {
      fail(where, "dense row has " + std::to_string(row.size()) + " entries, vocab is " + std::to_string(vocab));
    }
    for (std::size_t a = 0; a < row.size(); ++a) out[a] = probability(row[a], where, "entry " + std::to_string(a));
    const double total = compensated_total(out);
    if (std::abs(total - 1.0) > kRowTolerance) fail(where, "row sums to " + json(total).dump() + ", not 1 within " + json(kRowTolerance).dump());
    return;
  }
  if (!row.is_object()) fail(where, "a row must be an array of " + std::to_string(vocab) + " probabilities or a sparse {\"tokens\", \"probs\"} object");
  const json& tokens = field(row, "tokens", where);
  const json& probs = field(row, "probs", where);
  if (!tokens.is_array() || !probs.is_array() || tokens.size() != probs.size()) {
    fail(where, "sparse row needs \"tokens\" and \"probs\" arrays of equal length");
  }
  std::set<Token> listed;
  CompensatedSum listed_mass;
  std::fill(out.begin(), out.end(), 0.0);
  for (std::size_t k = 0; k < tokens.size(); ++k) {
    const std::int64_t t = integer(tokens[k], 0, vocab - 1, where, "sparse token " + std::to_string(k));
    if (!listed.insert(static_cast<Token>(t)).second) fail(where, "sparse row lists token " + std::to_string(t) + " twice");
    out[static_cast<std::size_t>(t)] = probability(probs[k], where, "sparse prob " + std::to_string(k));
    listed_mass.add(out[static_cast<std::size_t>(t)]);
  }
  for (Token c : children) {
    if (!listed.count(c)) fail(where, "sparse row does not list child token " + std::to_string(c));
  }
  const double rest = 1.0 - listed_mass.value();
  if (rest < -kRowTolerance) fail(where, "sparse row lists mass " + json(listed_mass.value()).dump() + " > 1");
  const auto unlisted = vocab - static_cast<std::int64_t>(listed.size());
  if (unlisted == 0) {
    if (std::abs(rest) > kRowTolerance) fail(where, "sparse row lists every token but sums to " + json(listed_mass.value()).dump());
    return;
  }
  const double each = std::max(rest, 0.0) / static_cast<double>(unlisted);
  for (std::int64_t a = 0; a < vocab; ++a) {
    if (!listed.count(static_cast<Token>(a))) out[static_cast<std::size_t>(a)] = each;
  }
}

}  // namespace

Case parse_case(std::string_view line, const std::string& where, const CaseLimits& limits) {
  const json j = parse_bounded(line, limits.json_values, where);
  if (!j.is_object()) fail(where, "a case must be a JSON object");
  const std::int64_t version = any_integer(field(j, "format_version", where), where, "format_version");
  if (version != kFormatVersion) fail(where, "format_version " + std::to_string(version) + " is not supported (expected 1)");
  Case c;
  const json& id = field(j, "case_id", where);
  if (!id.is_string() || id.get<std::string>().empty()) fail(where, "case_id must be a non-empty string");
  c.id = id.get<std::string>();
  const std::string at = where + " (case " + c.id + ")";
  if (j.contains("label") && j["label"].is_string()) c.label = j["label"].get<std::string>();
  const std::int64_t vocab = integer(field(j, "vocab", at), 2, kMaxVocab, at, "vocab");
  c.samples = static_cast<std::uint64_t>(integer(field(j, "samples", at), 1, kMaxSamples, at, "samples"));

  const json& parents_j = field(j, "parents", at);
  const json& tokens_j = field(j, "tokens", at);
  const json& probs_j = field(j, "probs", at);
  if (!parents_j.is_array() || !tokens_j.is_array() || !probs_j.is_array()) fail(at, "parents, tokens and probs must be arrays");
  const auto n = static_cast<std::int64_t>(parents_j.size());
  if (n < 1 || n > kMaxNodes) fail(at, "the tree must have 1 to " + std::to_string(kMaxNodes) + " nodes, has " + std::to_string(n));
  if (static_cast<std::int64_t>(tokens_j.size()) != n || static_cast<std::int64_t>(probs_j.size()) != n) {
    fail(at, "parents, tokens and probs must have one entry per node (" + std::to_string(n) + ")");
  }
  if (n * vocab > limits.cells) {
    fail(at, "nodes × vocab = " + std::to_string(n * vocab) + " cells is more than the " + std::to_string(limits.cells) +
                 " this case may hold (at most " + std::to_string(kMaxCells) + " per case, kMaxCells, and " + std::to_string(kMaxHeldCells) +
                 " over the cases held at once, kMaxHeldCells)");
  }
  std::vector<NodeId> parents(static_cast<std::size_t>(n));
  std::vector<Token> tokens(static_cast<std::size_t>(n), kNoToken);
  for (std::int64_t i = 0; i < n; ++i) {
    const std::string node = "node " + std::to_string(i);
    parents[static_cast<std::size_t>(i)] = static_cast<NodeId>(integer(parents_j[static_cast<std::size_t>(i)], -1, n - 1, at, node + " parent"));
    if (i == 0) {
      if (!tokens_j[0].is_null()) fail(at, "tokens[0] (the root) must be null");
      continue;
    }
    tokens[static_cast<std::size_t>(i)] = static_cast<Token>(integer(tokens_j[static_cast<std::size_t>(i)], 0, vocab - 1, at, node + " token"));
  }
  BuiltTree built;
  try {
    built = tree_from_parents(parents, tokens, static_cast<std::int32_t>(vocab));
  } catch (const std::invalid_argument& e) {
    fail(at, e.what());
  }
  // Rows in the tree's (level) order, each checked against the children it must cover.
  std::vector<double> dense(static_cast<std::size_t>(n * vocab));
  for (NodeId i = 0; i < built.tree.size(); ++i) {
    const NodeId src = built.order[static_cast<std::size_t>(i)];
    std::vector<Token> children;
    for (NodeId c2 = built.tree.first_child[i]; c2 < built.tree.first_child[i] + built.tree.child_count[i]; ++c2) children.push_back(built.tree.token[c2]);
    read_row(probs_j[static_cast<std::size_t>(src)], vocab, children,
             std::span<double>(dense.data() + static_cast<std::size_t>(i) * static_cast<std::size_t>(vocab), static_cast<std::size_t>(vocab)),
             at + " row of node " + std::to_string(src));
  }
  c.tree = std::move(built.tree);
  c.order = std::move(built.order);
  c.rows = TargetRows::from_probabilities(dense, c.tree.size(), static_cast<std::int32_t>(vocab), kRowTolerance);
  return c;
}

std::string write_case(const std::string& id, const std::string& label, const DraftTree& tree, const TargetRows& rows,
                       std::uint64_t samples, const std::vector<std::vector<Token>>* sparse_listed) {
  json j;
  j["format_version"] = kFormatVersion;
  j["case_id"] = id;
  if (!label.empty()) j["label"] = label;
  j["vocab"] = tree.vocab;
  j["parents"] = tree.parent;
  j["tokens"] = json::array();
  for (NodeId v = 0; v < tree.size(); ++v) {
    if (v == 0) {
      j["tokens"].push_back(nullptr);
    } else {
      j["tokens"].push_back(tree.token[v]);
    }
  }
  j["probs"] = json::array();
  for (NodeId v = 0; v < tree.size(); ++v) {
    const auto row = rows.row(v);
    if (sparse_listed == nullptr) {
      j["probs"].push_back(std::vector<double>(row.begin(), row.end()));
      continue;
    }
    json sparse;
    sparse["tokens"] = (*sparse_listed)[static_cast<std::size_t>(v)];
    sparse["probs"] = json::array();
    for (Token t : (*sparse_listed)[static_cast<std::size_t>(v)]) sparse["probs"].push_back(row[static_cast<std::size_t>(t)]);
    j["probs"].push_back(sparse);
  }
  j["samples"] = samples;
  return j.dump();
}

bool read_bounded_line(std::istream& in, std::string& line, std::size_t max_bytes, const std::string& where) {
  line.clear();
  std::streambuf& buffer = *in.rdbuf();
  for (;;) {
    const int c = buffer.sbumpc();
    if (c == std::char_traits<char>::eof()) return !line.empty();
    if (c == '\n') return true;
    if (line.size() == max_bytes) fail(where, "line longer than " + std::to_string(max_bytes) + " bytes, the most this tool reads");
    line.push_back(static_cast<char>(c));
  }
}

CaseReader::CaseReader(std::istream& in, std::string source, const CaseLimits& limits)
    : in_(in), source_(std::move(source)), limits_(limits), cells_left_(limits.held_cells) {}

std::optional<Case> CaseReader::next() {
  for (;;) {
    const std::string where = source_ + ":" + std::to_string(++line_number_);
    if (!read_bounded_line(in_, line_, limits_.line_bytes, where)) break;
    if (line_.find_first_not_of(" \t\r") == std::string::npos) continue;
    CaseLimits limits = limits_;
    limits.cells = std::min(limits.cells, cells_left_);
    Case c = parse_case(line_, where, limits);
    const auto [first, fresh] = seen_.emplace(c.id, line_number_);
    if (!fresh) fail(where, "case_id \"" + c.id + "\" already used on line " + std::to_string(first->second));
    cells_left_ -= static_cast<std::int64_t>(c.tree.size()) * c.tree.vocab;
    ++cases_;
    return c;
  }
  if (cases_ == 0) throw InputError(source_ + ": no cases");
  return std::nullopt;
}

}  // namespace tev::conformance
