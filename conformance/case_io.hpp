#pragma once
// The conformance contract's case format: one JSON object per line,
//   {"format_version": 1, "case_id": "c17", "vocab": V, "parents": [-1, 0, 0, 1, ...],
//    "tokens": [null, t1, t2, ...], "probs": [row_0, row_1, ...], "samples": n}
// where row_i is a dense array of V probabilities or a sparse object
//   {"tokens": [...], "probs": [...]} listing every child token of node i (and any others), the
// remaining mass spread uniformly over the unlisted tokens. Format 3 (engine-shaped) gives
// "logits" rows instead of "probs" (dense, or sparse {"tokens", "logits", "fill"}) and an optional
// "sampling" object; the case's rows are the logits processed by it.
#include <cstdint>
#include <algorithm>
#include <istream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/draft_tree.hpp"
#include "core/sampling_params.hpp"
#include "core/target_rows.hpp"

namespace tev::conformance {

inline constexpr int kFormatVersion = 1;
inline constexpr int kModelFormatVersion = 2;  // model cases: conformance/model_case.hpp
// Engine-shaped cases: formats 1 and 2 with logit rows and sampling parameters, which the target
// (and the drafter) rows are processed by (core/sampling_params.hpp) before anything is judged.
inline constexpr int kEngineFormatVersion = 3;
inline constexpr int kEngineModelFormatVersion = 4;
// A batch of fixed-tree requests verified together (conformance/batch_case.hpp).
inline constexpr int kBatchFormatVersion = 5;
// One generation request whose whole generations an engine runs (conformance/generation_case.hpp).
inline constexpr int kGenerationFormatVersion = 6;
// A cases file holds fixed-tree cases (formats 1 and 3) or model cases (2 and 4), not both.
inline bool is_model_format(std::int64_t version) {
  return version == kModelFormatVersion || version == kEngineModelFormatVersion;
}
// Rows in a case must sum to 1 within this (dense), or list at most 1 + this (sparse).
inline constexpr double kRowTolerance = 1e-6;
// Input limits. Every integer is range-checked as the JSON number it is, before it is narrowed.
inline constexpr std::int64_t kMaxVocab = 1 << 24;
inline constexpr std::int64_t kMaxNodes = 1 << 16;
inline constexpr std::int64_t kMaxSamples = std::int64_t{1} << 53;  // counts stay exact as doubles
// Memory. A case of N nodes over V tokens is held as N × V doubles (its rows) with a count per
// cell beside them while judged (BlockCounts), and one more copy of the rows while read; a sparse
// row of a few bytes still fills V cells. So cells are limited per case and over every case a
// command holds at once (each refused before anything of that size is allocated):
inline constexpr std::int64_t kMaxCells = std::int64_t{1}
                                          << 24;  // N × V of one case: 128 MiB as doubles
inline constexpr std::int64_t kMaxHeldCells = std::int64_t{1}
                                              << 26;  // Σ N × V of the cases held at once
// The text: a case line is read no further than this, and its JSON tree (about 32 bytes a value)
// holds at most kMaxJsonValues values: every probability, sparse token, parent and token of a
// case within kMaxCells, and some to spare.
inline constexpr std::size_t kMaxCaseLineBytes = std::size_t{1} << 29;
inline constexpr std::int64_t kMaxJsonValues = 2 * kMaxCells + 4 * kMaxNodes + 64;
inline constexpr std::size_t kMaxSampleLineBytes = std::size_t{1}
                                                   << 20;  // a path of kMaxNodes tokens fits

// The memory limits a read applies: the constants above, smaller in tests.
struct CaseLimits {
  std::int64_t cells = kMaxCells;
  std::int64_t held_cells = kMaxHeldCells;
  std::int64_t json_values = kMaxJsonValues;
  std::size_t line_bytes = kMaxCaseLineBytes;
};

// Malformed input: the message names the file and line (or field) and the problem.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Case {
  std::string id;
  std::string label;  // optional "label" field: what the case exercises
  std::uint64_t samples = 0;
  std::int64_t format_version = kFormatVersion;
  SamplingParams sampling;  // format 3: what the rows were processed by
  std::vector<double>
      logits;       // format 3: (N, V) the rows as given, in the tree's order; empty otherwise
  DraftTree tree;   // level order
  TargetRows rows;  // in the tree's order
  std::vector<NodeId> order;  // (N) tree node i is the case's node order[i]
};

// Parses one case line; `where` prefixes every message ("cases.jsonl:3"). A JSON tree of more than
// limits.json_values values is refused while it grows, a case of more than limits.cells (N × V)
// before its rows are allocated.
Case parse_case(std::string_view line, const std::string& where, const CaseLimits& limits = {});
// The same from a parsed case object (a request of a batch case, conformance/batch_case.hpp).
Case case_from_json(const nlohmann::json& j, const std::string& where,
                    const CaseLimits& limits = {});

// An engine-shaped case (format 3) with its rows processed from its logits in `order` instead of
// the order it states.
void restate_order(Case& c, FilterOrder order);

// Reads one line (without its newline) into `line`; false at the end of the input. A line longer
// than max_bytes is refused (InputError naming `where` and the limit) without reading further.
bool read_bounded_line(std::istream& in, std::string& line, std::size_t max_bytes,
                       const std::string& where);

// Hands out the cases of a JSON-lines stream one at a time (blank lines skipped), so no case's text
// or JSON tree outlives its parse. Refuses, naming source:line, a line over limits.line_bytes, a
// case_id used before, and a case that takes the cells of the cases handed out so far past
// limits.held_cells: callers that keep every case alive (the judge needs each until the end) stay
// within it. Parse reads one line of CaseT's format; held_cells(const CaseT&) counts what it holds.
template <class CaseT, CaseT (*Parse)(std::string_view, const std::string&, const CaseLimits&)>
class BasicCaseReader {
 public:
  BasicCaseReader(std::istream& in, std::string source, const CaseLimits& limits = {})
      : in_(in), source_(std::move(source)), limits_(limits), cells_left_(limits.held_cells) {}
  // The next case; nullopt at the end of the input (InputError when the input held no case).
  std::optional<CaseT> next() {
    for (;;) {
      const std::string where = source_ + ":" + std::to_string(++line_number_);
      if (!read_bounded_line(in_, line_, limits_.line_bytes, where)) break;
      if (line_.find_first_not_of(" \t\r") == std::string::npos) continue;
      CaseLimits limits = limits_;
      limits.cells = std::min(limits.cells, cells_left_);
      CaseT c = Parse(line_, where, limits);
      const auto [first, fresh] = seen_.emplace(c.id, line_number_);
      if (!fresh)
        throw InputError(where + ": case_id \"" + c.id + "\" already used on line " +
                         std::to_string(first->second));
      cells_left_ -= held_cells(c);
      ++cases_;
      return c;
    }
    if (cases_ == 0) throw InputError(source_ + ": no cases");
    return std::nullopt;
  }
  // The line the last case came from, as read (for streaming to a verifier).
  const std::string& line() const { return line_; }
  std::size_t cases() const { return cases_; }
  const std::string& source() const { return source_; }

 private:
  std::istream& in_;
  std::string source_;
  CaseLimits limits_;
  std::int64_t cells_left_;
  std::size_t line_number_ = 0;
  std::size_t cases_ = 0;
  std::string line_;
  std::map<std::string, std::size_t> seen_;  // case_id → the line it was first used on
};

// Rows, and the logits a format-3 case keeps beside them.
inline std::int64_t held_cells(const Case& c) {
  return (c.logits.empty() ? 1 : 2) * static_cast<std::int64_t>(c.tree.size()) * c.tree.vocab;
}
using CaseReader = BasicCaseReader<Case, parse_case>;

// A sparse row's tail: the mass the listed tokens leave of 1 (listed_mass, their compensated sum
// in the order listed), spread uniformly over the tokens not listed (none when every one is).
void fill_unlisted(std::span<double> row, const std::set<Token>& listed, double listed_mass);

// The cases write_case and write_engine_case write, as the lines read back (parse_case of the line
// equals the case, field for field), built directly from the same arguments: the in-process check
// takes its cases so, without the JSON.
Case make_case(const std::string& id, const std::string& label, const DraftTree& tree,
               const TargetRows& rows, std::uint64_t samples,
               const std::vector<std::vector<Token>>* sparse_listed = nullptr);
Case make_engine_case(const std::string& id, const std::string& label, const DraftTree& tree,
                      std::span<const double> logits, const SamplingParams& sampling,
                      std::uint64_t samples);

// Writes a case as one JSON line in the tree's numbering. Rows are dense unless sparse_listed is
// given: then row v lists sparse_listed[v] (which must include v's child tokens) and the rest of
// its mass must already be uniform over the unlisted tokens.
std::string write_case(const std::string& id, const std::string& label, const DraftTree& tree,
                       const TargetRows& rows, std::uint64_t samples,
                       const std::vector<std::vector<Token>>* sparse_listed = nullptr);

// Writes a format-3 case: logit rows (tree.size(), V) in the tree's numbering and the sampling
// parameters (only those switched on). Rows are dense unless sparse_listed is given: then row v
// lists sparse_listed[v] and every other token of the row must hold one logit, written as "fill".
std::string write_engine_case(const std::string& id, const std::string& label,
                              const DraftTree& tree, std::span<const double> logits,
                              const SamplingParams& sampling, std::uint64_t samples,
                              const std::vector<std::vector<Token>>* sparse_listed = nullptr);

// The "sampling" object of params: only the parameters switched on (order when min-p is, or when
// it is not the default).
nlohmann::json sampling_json(const SamplingParams& params);

}  // namespace tev::conformance
