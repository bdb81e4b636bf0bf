#include "conformance/case_io.hpp"

#include <algorithm>
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
  return case_from_json(parse_bounded(line, limits.json_values, where), where, limits);
}

Case case_from_json(const json& j, const std::string& where, const CaseLimits& limits) {
  const std::int64_t version = format_version(j, where);
  if (is_model_format(version)) {
    fail(where, "format_version " + std::to_string(version) +
                    " is a model case: model cases go in a file of their own (this file's first "
                    "case is a fixed-tree case, format_version 1 or 3)");
  }
  if (version == kBatchFormatVersion) {
    fail(where,
         "format_version 5 is a batch case: batch cases go in a file of their own (this file's "
         "first case is a fixed-tree case, format_version 1 or 3)");
  }
  if (version != kFormatVersion && version != kEngineFormatVersion)
    fail(where,
         "format_version " + std::to_string(version) + " is not supported (expected 1 or 3)");
  const bool engine = version == kEngineFormatVersion;
  Case c;
  c.format_version = version;
  const std::string at = read_header(j, where, c.id, c.label, c.samples);
  if (engine && j.contains("probs"))
    fail(at, "a format_version 3 case gives its rows as \"logits\", not \"probs\"");
  if (engine && j.contains("sampling")) c.sampling = read_sampling(j["sampling"], at + " sampling");
  const std::int64_t vocab = integer(field(j, "vocab", at), 2, kMaxVocab, at, "vocab");

  const json& parents_j = field(j, "parents", at);
  const json& tokens_j = field(j, "tokens", at);
  const char* rows_name = engine ? "logits" : "probs";
  const json& probs_j = field(j, rows_name, at);
  if (!parents_j.is_array() || !tokens_j.is_array() || !probs_j.is_array())
    fail(at, std::string("parents, tokens and ") + rows_name + " must be arrays");
  const auto n = static_cast<std::int64_t>(parents_j.size());
  if (n < 1 || n > kMaxNodes)
    fail(at, "the tree must have 1 to " + std::to_string(kMaxNodes) + " nodes, has " +
                 std::to_string(n));
  if (static_cast<std::int64_t>(tokens_j.size()) != n ||
      static_cast<std::int64_t>(probs_j.size()) != n) {
    fail(at, std::string("parents, tokens and ") + rows_name + " must have one entry per node (" +
                 std::to_string(n) + ")");
  }
  // A format-3 case also keeps its logits beside the processed rows (the in-process view hands them out).
  const std::int64_t arrays = engine ? 2 : 1;
  if (arrays * n * vocab > limits.cells) {
    fail(at, std::string(engine ? "2 × nodes × vocab (logits and rows) = " : "nodes × vocab = ") +
                 std::to_string(arrays * n * vocab) + " cells is more than the " +
                 std::to_string(limits.cells) + " this case may hold (at most " +
                 std::to_string(kMaxCells) + " per case, kMaxCells, and " +
                 std::to_string(kMaxHeldCells) + " over the cases held at once, kMaxHeldCells)");
  }
  BuiltTree built = read_tree(parents_j, tokens_j, vocab, at);
  // Rows in the tree's (level) order, each checked against the children it must cover.
  std::vector<double> dense(static_cast<std::size_t>(n * vocab));
  if (engine) c.logits.resize(dense.size());
  for (NodeId i = 0; i < built.tree.size(); ++i) {
    const NodeId src = built.order[static_cast<std::size_t>(i)];
    std::vector<Token> children;
    for (NodeId c2 = built.tree.first_child[i];
         c2 < built.tree.first_child[i] + built.tree.child_count[i]; ++c2)
      children.push_back(built.tree.token[c2]);
    const std::span<double> row(
        dense.data() + static_cast<std::size_t>(i) * static_cast<std::size_t>(vocab),
        static_cast<std::size_t>(vocab));
    const std::string row_at = at + " row of node " + std::to_string(src);
    if (engine) {
      const std::span<double> logits(
          c.logits.data() + static_cast<std::size_t>(i) * static_cast<std::size_t>(vocab),
          static_cast<std::size_t>(vocab));
      read_logit_row(probs_j[static_cast<std::size_t>(src)], vocab, logits, row_at);
      process_logits(logits, c.sampling, row);
    } else {
      read_row(probs_j[static_cast<std::size_t>(src)], vocab, children, row, row_at);
    }
  }
  c.tree = std::move(built.tree);
  c.order = std::move(built.order);
  c.rows = TargetRows::from_probabilities(dense, c.tree.size(), static_cast<std::int32_t>(vocab),
                                          kRowTolerance);
  return c;
}

void restate_order(Case& c, FilterOrder order) {
  c.sampling.order = order;
  const auto vocab = static_cast<std::size_t>(c.tree.vocab);
  std::vector<double> dense(c.logits.size());
  for (std::size_t at = 0; at < dense.size(); at += vocab)
    process_logits(std::span<const double>(c.logits).subspan(at, vocab), c.sampling,
                   std::span<double>(dense).subspan(at, vocab));
  c.rows = TargetRows::from_probabilities(dense, c.tree.size(), c.tree.vocab, kRowTolerance);
}

namespace {

// A case's fields before its rows: format_version, case_id, label, vocab, parents and tokens.
json case_json(std::int64_t version, const std::string& id, const std::string& label,
               const DraftTree& tree) {
  json j;
  j["format_version"] = version;
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
  return j;
}

}  // namespace

std::string write_case(const std::string& id, const std::string& label, const DraftTree& tree,
                       const TargetRows& rows, std::uint64_t samples,
                       const std::vector<std::vector<Token>>* sparse_listed) {
  json j = case_json(kFormatVersion, id, label, tree);
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
    for (Token t : (*sparse_listed)[static_cast<std::size_t>(v)])
      sparse["probs"].push_back(row[static_cast<std::size_t>(t)]);
    j["probs"].push_back(sparse);
  }
  j["samples"] = samples;
  return j.dump();
}

void fill_unlisted(std::span<double> row, const std::set<Token>& listed, double listed_mass) {
  if (listed.size() >= row.size()) return;
  const double each =
      std::max(1.0 - listed_mass, 0.0) / static_cast<double>(row.size() - listed.size());
  for (std::size_t a = 0; a < row.size(); ++a) {
    if (!listed.count(static_cast<Token>(a))) row[a] = each;
  }
}

namespace {

// A case's tree and rows as parse_case builds them from its line: the tree rebuilt from its
// parents in level order, row(i, out) filling the (V) row of the line's node i.
template <class Row>
Case built_case(std::int64_t version, const std::string& id, const std::string& label,
                const DraftTree& tree, std::uint64_t samples, Row&& row) {
  std::vector<Token> tokens = tree.token;
  tokens[0] = kNoToken;
  BuiltTree built = tree_from_parents(tree.parent, tokens, tree.vocab);
  const auto vocab = static_cast<std::size_t>(tree.vocab);
  std::vector<double> dense(built.order.size() * vocab);  // (N, V) in the built tree's order
  for (std::size_t i = 0; i < built.order.size(); ++i)
    row(built.order[i], std::span<double>(dense).subspan(i * vocab, vocab));
  Case c;
  c.id = id;
  c.label = label;
  c.samples = samples;
  c.format_version = version;
  c.tree = std::move(built.tree);
  c.order = std::move(built.order);
  c.rows = TargetRows::from_probabilities(dense, c.tree.size(), tree.vocab, kRowTolerance);
  return c;
}

}  // namespace

Case make_case(const std::string& id, const std::string& label, const DraftTree& tree,
               const TargetRows& rows, std::uint64_t samples,
               const std::vector<std::vector<Token>>* sparse_listed) {
  return built_case(kFormatVersion, id, label, tree, samples, [&](NodeId v, std::span<double> out) {
    const auto row = rows.row(v);
    if (sparse_listed == nullptr) {
      std::copy(row.begin(), row.end(), out.begin());
      return;
    }
    std::fill(out.begin(), out.end(), 0.0);
    std::set<Token> listed;
    CompensatedSum listed_mass;
    for (const Token t : (*sparse_listed)[static_cast<std::size_t>(v)]) {
      listed.insert(t);
      out[static_cast<std::size_t>(t)] = row[static_cast<std::size_t>(t)];
      listed_mass.add(row[static_cast<std::size_t>(t)]);
    }
    fill_unlisted(out, listed, listed_mass.value());
  });
}

Case make_engine_case(const std::string& id, const std::string& label, const DraftTree& tree,
                      std::span<const double> logits, const SamplingParams& sampling,
                      std::uint64_t samples) {
  const auto vocab = static_cast<std::size_t>(tree.vocab);
  std::vector<double> ordered;  // (N, V) the logits in the built tree's order
  Case c = built_case(kEngineFormatVersion, id, label, tree, samples,
                      [&](NodeId v, std::span<double> out) {
                        const auto row = logits.subspan(static_cast<std::size_t>(v) * vocab, vocab);
                        ordered.insert(ordered.end(), row.begin(), row.end());
                        process_logits(row, sampling, out);
                      });
  c.sampling = sampling;
  c.logits = std::move(ordered);
  return c;
}

json sampling_json(const SamplingParams& params) {
  json j = json::object();
  if (params.temperature != 1.0) j["temperature"] = params.temperature;
  if (params.top_k != 0) j["top_k"] = params.top_k;
  if (params.top_p != 1.0) j["top_p"] = params.top_p;
  if (params.min_p != 0.0) j["min_p"] = params.min_p;
  if (params.min_p != 0.0 || params.order != FilterOrder::min_p_first)
    j["order"] = order_name(params.order);
  return j;
}

std::string write_engine_case(const std::string& id, const std::string& label,
                              const DraftTree& tree, std::span<const double> logits,
                              const SamplingParams& sampling, std::uint64_t samples,
                              const std::vector<std::vector<Token>>* sparse_listed) {
  json j = case_json(kEngineFormatVersion, id, label, tree);
  const auto vocab = static_cast<std::size_t>(tree.vocab);
  j["logits"] = json::array();
  for (NodeId v = 0; v < tree.size(); ++v) {
    const std::span<const double> row = logits.subspan(static_cast<std::size_t>(v) * vocab, vocab);
    if (sparse_listed == nullptr) {
      j["logits"].push_back(std::vector<double>(row.begin(), row.end()));
      continue;
    }
    const std::vector<Token>& listed = (*sparse_listed)[static_cast<std::size_t>(v)];
    std::vector<bool> is_listed(vocab, false);
    json sparse = {{"tokens", listed}, {"logits", json::array()}};
    for (Token t : listed) {
      is_listed[static_cast<std::size_t>(t)] = true;
      sparse["logits"].push_back(row[static_cast<std::size_t>(t)]);
    }
    const auto unlisted = std::find(is_listed.begin(), is_listed.end(), false);
    if (unlisted != is_listed.end())
      sparse["fill"] = row[static_cast<std::size_t>(unlisted - is_listed.begin())];
    j["logits"].push_back(std::move(sparse));
  }
  j["sampling"] = sampling_json(sampling);
  j["samples"] = samples;
  return j.dump();
}

bool read_bounded_line(std::istream& in, std::string& line, std::size_t max_bytes,
                       const std::string& where) {
  line.clear();
  std::streambuf& buffer = *in.rdbuf();
  for (;;) {
    const int c = buffer.sbumpc();
    if (c == std::char_traits<char>::eof()) return !line.empty();
    if (c == '\n') return true;
    if (line.size() == max_bytes)
      fail(where,
           "line longer than " + std::to_string(max_bytes) + " bytes, the most this tool reads");
    line.push_back(static_cast<char>(c));
  }
}

}  // namespace tev::conformance
