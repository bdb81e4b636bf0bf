#include "conformance/model_case.hpp"

#include <array>
#include <fstream>

#include "conformance/json_input.hpp"
#include "core/compensated_sum.hpp"

namespace tev::conformance {

namespace {

using nlohmann::json;

constexpr std::array<drafts::DraftPolicy, 5> kPolicies = {
    drafts::DraftPolicy::chain, drafts::DraftPolicy::independent_chains,
    drafts::DraftPolicy::iid_children, drafts::DraftPolicy::without_replacement,
    drafts::DraftPolicy::top_k};

std::string prefix_text(const std::vector<Token>& prefix) { return json(prefix).dump(); }

drafts::Drafting read_hint(const json& hint, std::int32_t depth, const std::string& at) {
  if (!hint.is_object()) fail(at, "drafting must be an object {\"policy\": ..., \"width\": k}");
  const json& policy_j = field(hint, "policy", at);
  std::string names;
  for (drafts::DraftPolicy p : kPolicies) {
    names += (names.empty() ? "" : ", ") + std::string(policy_name(p));
    if (policy_j.is_string() && policy_j.get<std::string>() == policy_name(p)) {
      drafts::Drafting d{p, 1, depth};
      if (hint.contains("width"))
        d.width = static_cast<std::int32_t>(
            integer(hint["width"], 1, kMaxModelWidth, at, "drafting width"));
      if (p == drafts::DraftPolicy::chain && d.width != 1)
        fail(at, "a chain drafts one token per node: its width is 1");
      return d;
    }
  }
  fail(at, "drafting policy " + policy_j.dump() + " is not one of " + names);
}

// {"target": {...}, "drafter": {...}}, each optional, each read by read_sampling.
void read_pair_sampling(const json& j, const std::string& at, SamplingParams& target,
                        SamplingParams& drafter) {
  if (!j.is_object())
    fail(at, "sampling must be an object {\"target\": {...}, \"drafter\": {...}}");
  for (const auto& [name, value] : j.items()) {
    if (name == "target") {
      target = read_sampling(value, at + " target");
    } else if (name == "drafter") {
      drafter = read_sampling(value, at + " drafter");
    } else {
      fail(at, "unknown key \"" + name + "\" (known: target, drafter)");
    }
  }
}

}  // namespace

std::string_view policy_name(drafts::DraftPolicy policy) {
  switch (policy) {
    case drafts::DraftPolicy::chain:
      return "chain";
    case drafts::DraftPolicy::independent_chains:
      return "independent-chains";
    case drafts::DraftPolicy::iid_children:
      return "iid";
    case drafts::DraftPolicy::without_replacement:
      return "without-replacement";
    case drafts::DraftPolicy::top_k:
      return "top-k";
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

ModelCase parse_model_case(std::string_view line, const std::string& where,
                           const CaseLimits& limits) {
  const json j = parse_bounded(line, limits.json_values, where);
  const std::int64_t version = format_version(j, where);
  if (version == kFormatVersion || version == kEngineFormatVersion) {
    fail(where, "format_version " + std::to_string(version) +
                    " is a fixed-tree case: it goes in a file of its own (this file's first case "
                    "is a model case, format_version 2 or 4)");
  }
  if (version == kBatchFormatVersion) {
    fail(where,
         "format_version 5 is a batch case: it goes in a file of its own (this file's first case "
         "is a model case, format_version 2 or 4)");
  }
  if (!is_model_format(version))
    fail(where,
         "format_version " + std::to_string(version) + " is not supported (expected 2 or 4)");
  const bool engine = version == kEngineModelFormatVersion;
  std::string id, label;
  std::uint64_t samples = 0;
  const std::string at = read_header(j, where, id, label, samples);
  SamplingParams target_sampling, drafter_sampling;
  if (engine && j.contains("sampling"))
    read_pair_sampling(j["sampling"], at + " sampling", target_sampling, drafter_sampling);
  const std::int64_t vocab = integer(field(j, "vocab", at), 2, kMaxVocab, at, "vocab");
  const auto depth =
      static_cast<std::int32_t>(integer(field(j, "depth", at), 1, kMaxModelDepth, at, "depth"));
  if (model_cells(vocab, depth, limits.cells) > limits.cells) {
    fail(at, "vocab " + std::to_string(vocab) + " at depth " + std::to_string(depth) +
                 " needs more than the " + std::to_string(limits.cells) +
                 " cells this case may hold (p and q rows for every prefix, 2 V^(D+1) for the law "
                 "and counts; at most " +
                 std::to_string(kMaxCells) + " per case, kMaxCells, and " +
                 std::to_string(kMaxHeldCells) + " over the cases held at once)");
  }
  std::optional<drafts::Drafting> drafting;
  if (j.contains("drafting")) drafting = read_hint(j["drafting"], depth, at);

  const auto v = static_cast<std::int32_t>(vocab);
  const std::size_t prefixes = drafts::LanguagePair::prefix_count(v, depth + 1);
  const json& rows_j = field(j, "rows", at);
  const char* p_name = engine ? "p_logits" : "p";
  const char* q_name = engine ? "q_logits" : "q";
  if (!rows_j.is_array())
    fail(at, std::string("rows must be an array of {\"prefix\", \"") + p_name + "\", \"" + q_name +
                 "\"} objects");
  if (rows_j.size() > prefixes) {
    fail(at, "rows has " + std::to_string(rows_j.size()) + " entries; a depth-" +
                 std::to_string(depth) + " case over " + std::to_string(vocab) + " tokens has " +
                 std::to_string(prefixes) + " prefixes (lengths 0.." + std::to_string(depth) + ")");
  }
  const auto width = static_cast<std::size_t>(vocab);
  std::vector<double> p(prefixes * width),
      q(prefixes * width);  // (prefixes, V) each, in the pair's prefix order
  ModelLogits logits;       // format 4: the rows as given, the same shape
  if (engine) logits = {std::vector<double>(p.size()), std::vector<double>(q.size())};
  std::vector<std::size_t> row_of(
      prefixes, 0);  // (prefixes) 1 + the rows entry that gave the prefix, 0 while missing
  for (std::size_t k = 0; k < rows_j.size(); ++k) {
    const std::string row_at = at + " rows[" + std::to_string(k) + "]";
    const json& r = rows_j[k];
    if (!r.is_object())
      fail(row_at, std::string("a row entry must be an object {\"prefix\", \"") + p_name +
                       "\", \"" + q_name + "\"}");
    const json& prefix_j = field(r, "prefix", row_at);
    if (!prefix_j.is_array()) fail(row_at, "prefix must be an array of tokens");
    if (static_cast<std::int64_t>(prefix_j.size()) > depth) {
      fail(row_at, "prefix of length " + std::to_string(prefix_j.size()) +
                       " is deeper than the case's depth " + std::to_string(depth));
    }
    std::vector<Token> prefix;
    for (std::size_t i = 0; i < prefix_j.size(); ++i) {
      prefix.push_back(static_cast<Token>(
          integer(prefix_j[i], 0, vocab - 1, row_at, "prefix token " + std::to_string(i))));
    }
    const std::size_t index =
        drafts::LanguagePair::prefix_count(v, static_cast<std::int32_t>(prefix.size())) +
        drafts::sequence_cell(prefix, v);
    if (row_of[index] != 0)
      fail(row_at, "prefix " + prefix_text(prefix) + " already has a row (rows[" +
                       std::to_string(row_of[index] - 1) + "])");
    row_of[index] = k + 1;
    const std::string name = row_at + " (prefix " + prefix_text(prefix) + ")";
    std::span<double> p_row(p.data() + index * width, width),
        q_row(q.data() + index * width, width);
    if (engine) {
      std::span<double> p_logits(logits.p.data() + index * width, width),
          q_logits(logits.q.data() + index * width, width);
      read_logit_row(field(r, p_name, name), vocab, p_logits, name + " " + p_name);
      read_logit_row(field(r, q_name, name), vocab, q_logits, name + " " + q_name);
      process_logits(p_logits, target_sampling, p_row);
      process_logits(q_logits, drafter_sampling, q_row);
    } else {
      read_row(field(r, p_name, name), vocab, {}, p_row, name + " p");
      read_row(field(r, q_name, name), vocab, {}, q_row, name + " q");
    }
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
    fail(at, "no row for prefix " + prefix_text(drafts::LanguagePair::prefix_of(v, first_missing)) +
                 " (" + std::to_string(missing) + " of the " + std::to_string(prefixes) +
                 " prefixes of lengths 0.." + std::to_string(depth) + " missing)");
  }
  return ModelCase{std::move(id),    std::move(label),
                   samples,          depth,
                   drafting,         drafts::LanguagePair(v, depth + 1, std::move(p), std::move(q)),
                   version,          target_sampling,
                   drafter_sampling, std::move(logits)};
}

namespace {

// Each (V) row normalized by its compensated total, as parse_model_case normalizes the rows it reads.
void normalize_rows(std::vector<double>& rows, std::size_t vocab) {
  for (std::size_t at = 0; at < rows.size(); at += vocab) {
    const std::span<double> row(rows.data() + at, vocab);
    const double total = compensated_total(row);
    for (double& x : row) x /= total;
  }
}

// A model case from its rows (prefixes, V) in the pair's prefix order, normalized as read.
ModelCase built_model_case(std::int64_t version, const std::string& id, const std::string& label,
                           const drafts::LanguagePair& pair,
                           const std::optional<drafts::Drafting>& drafting, std::uint64_t samples,
                           std::vector<double> p, std::vector<double> q) {
  const auto vocab = static_cast<std::size_t>(pair.vocab());
  normalize_rows(p, vocab);
  normalize_rows(q, vocab);
  const std::int32_t depth = pair.horizon() - 1;
  std::optional<drafts::Drafting> hint;
  if (drafting) hint = drafts::Drafting{drafting->policy, drafting->width, depth};
  ModelCase c{
      id,      label,
      samples, depth,
      hint,    drafts::LanguagePair(pair.vocab(), pair.horizon(), std::move(p), std::move(q)),
      version, {},
      {},      {}};
  return c;
}

}  // namespace

ModelCase make_model_case(const std::string& id, const std::string& label,
                          const drafts::LanguagePair& pair,
                          const std::optional<drafts::Drafting>& drafting, std::uint64_t samples) {
  std::vector<double> p, q;  // (prefixes, V) each
  for (std::size_t i = 0; i < pair.prefixes(); ++i) {
    const std::vector<Token> prefix = pair.prefix(i);
    p.insert(p.end(), pair.p(prefix).begin(), pair.p(prefix).end());
    q.insert(q.end(), pair.q(prefix).begin(), pair.q(prefix).end());
  }
  return built_model_case(kModelFormatVersion, id, label, pair, drafting, samples, std::move(p),
                          std::move(q));
}

ModelCase make_engine_model_case(const std::string& id, const std::string& label,
                                 const drafts::LanguagePair& pair,
                                 const std::optional<drafts::Drafting>& drafting,
                                 std::span<const double> p_logits, std::span<const double> q_logits,
                                 const SamplingParams& target, const SamplingParams& drafter,
                                 std::uint64_t samples) {
  const auto vocab = static_cast<std::size_t>(pair.vocab());
  std::vector<double> p(p_logits.size()), q(q_logits.size());  // (prefixes, V) each
  for (std::size_t at = 0; at < p.size(); at += vocab) {
    process_logits(p_logits.subspan(at, vocab), target, std::span<double>(p).subspan(at, vocab));
    process_logits(q_logits.subspan(at, vocab), drafter, std::span<double>(q).subspan(at, vocab));
  }
  ModelCase c = built_model_case(kEngineModelFormatVersion, id, label, pair, drafting, samples,
                                 std::move(p), std::move(q));
  c.target_sampling = target;
  c.drafter_sampling = drafter;
  c.logits = {{p_logits.begin(), p_logits.end()}, {q_logits.begin(), q_logits.end()}};
  return c;
}

namespace {

json model_case_json(std::int64_t version, const std::string& id, const std::string& label,
                     const drafts::LanguagePair& pair,
                     const std::optional<drafts::Drafting>& drafting, std::uint64_t samples) {
  json j;
  j["format_version"] = version;
  j["case_id"] = id;
  if (!label.empty()) j["label"] = label;
  j["vocab"] = pair.vocab();
  j["depth"] = pair.horizon() - 1;
  j["samples"] = samples;
  if (drafting)
    j["drafting"] = {{"policy", policy_name(drafting->policy)}, {"width", drafting->width}};
  j["rows"] = json::array();
  return j;
}

}  // namespace

std::string write_model_case(const std::string& id, const std::string& label,
                             const drafts::LanguagePair& pair,
                             const std::optional<drafts::Drafting>& drafting,
                             std::uint64_t samples) {
  json j = model_case_json(kModelFormatVersion, id, label, pair, drafting, samples);
  for (std::size_t i = 0; i < pair.prefixes(); ++i) {
    const std::vector<Token> prefix = pair.prefix(i);
    const auto p = pair.p(prefix), q = pair.q(prefix);
    j["rows"].push_back({{"prefix", prefix},
                         {"p", std::vector<double>(p.begin(), p.end())},
                         {"q", std::vector<double>(q.begin(), q.end())}});
  }
  return j.dump();
}

std::string write_engine_model_case(const std::string& id, const std::string& label,
                                    const drafts::LanguagePair& pair,
                                    const std::optional<drafts::Drafting>& drafting,
                                    std::span<const double> p_logits,
                                    std::span<const double> q_logits, const SamplingParams& target,
                                    const SamplingParams& drafter, std::uint64_t samples) {
  json j = model_case_json(kEngineModelFormatVersion, id, label, pair, drafting, samples);
  j["sampling"] = {{"target", sampling_json(target)}, {"drafter", sampling_json(drafter)}};
  const auto vocab = static_cast<std::size_t>(pair.vocab());
  if (p_logits.size() != pair.prefixes() * vocab || q_logits.size() != p_logits.size())
    throw std::invalid_argument("write_engine_model_case: one logit row per prefix");
  for (std::size_t i = 0; i < pair.prefixes(); ++i) {
    const auto p = p_logits.subspan(i * vocab, vocab), q = q_logits.subspan(i * vocab, vocab);
    j["rows"].push_back({{"prefix", pair.prefix(i)},
                         {"p_logits", std::vector<double>(p.begin(), p.end())},
                         {"q_logits", std::vector<double>(q.begin(), q.end())}});
  }
  return j.dump();
}

std::int64_t cases_file_version(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError("cannot read " + path);
  std::string line;
  for (std::size_t k = 1;
       read_bounded_line(in, line, kMaxCaseLineBytes, path + ":" + std::to_string(k)); ++k) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = path + ":" + std::to_string(k);
    return format_version(parse_bounded(line, kMaxJsonValues, where), where);
  }
  throw InputError(path + ": no cases");
}

}  // namespace tev::conformance
