#include "conformance/case_io.hpp"

#include <cmath>
#include <istream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "conformance/json_input.hpp"
#include "core/compensated_sum.hpp"

namespace tev::conformance {

using nlohmann::json;

Case parse_case(std::string_view line, const std::string& where, const CaseLimits& limits) {
  const json j = parse_bounded(line, limits.json_values, where);
  const std::int64_t version = format_version(j, where);
  if (version == kModelFormatVersion) fail(where, "format_version 2 is a model case: model cases go in a file of their own (this file's first case is a fixed-tree case, format_version 1)");
  if (version != kFormatVersion) fail(where, "format_version " + std::to_string(version) + " is not supported (expected 1)");
  Case c;
  const std::string at = read_header(j, where, c.id, c.label, c.samples);
  const std::int64_t vocab = integer(field(j, "vocab", at), 2, kMaxVocab, at, "vocab");

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
  BuiltTree built = read_tree(parents_j, tokens_j, vocab, at);
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

}  // namespace tev::conformance
