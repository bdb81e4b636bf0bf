#pragma once
// The conformance contract's case format: one JSON object per line,
//   {"format_version": 1, "case_id": "c17", "vocab": V, "parents": [-1, 0, 0, 1, ...],
//    "tokens": [null, t1, t2, ...], "probs": [row_0, row_1, ...], "samples": n}
// where row_i is a dense array of V probabilities or a sparse object
//   {"tokens": [...], "probs": [...]} listing every child token of node i (and any others), the
// remaining mass spread uniformly over the unlisted tokens.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/draft_tree.hpp"
#include "core/target_rows.hpp"

namespace tev::conformance {

inline constexpr int kFormatVersion = 1;
// Rows in a case must sum to 1 within this (dense), or list at most 1 + this (sparse).
inline constexpr double kRowTolerance = 1e-6;
inline constexpr std::int64_t kMaxVocab = 1 << 24;
inline constexpr std::int64_t kMaxNodes = 1 << 16;
inline constexpr std::int64_t kMaxCells = std::int64_t{1} << 28;  // nodes × vocab held densely

// Malformed input: the message names the file and line (or field) and the problem.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Case {
  std::string id;
  std::string label;           // optional "label" field: what the case exercises
  std::uint64_t samples = 0;
  DraftTree tree;              // level order
  TargetRows rows;             // in the tree's order
  std::vector<NodeId> order;   // (N) tree node i is the case's node order[i]
};

// Parses one case line; `where` prefixes every message ("cases.jsonl:3").
Case parse_case(std::string_view line, const std::string& where);

// Writes a case as one JSON line in the tree's numbering. Rows are dense unless sparse_listed is
// given: then row v lists sparse_listed[v] (which must include v's child tokens) and the rest of
// its mass must already be uniform over the unlisted tokens.
std::string write_case(const std::string& id, const std::string& label, const DraftTree& tree, const TargetRows& rows,
                       std::uint64_t samples, const std::vector<std::vector<Token>>* sparse_listed = nullptr);

}  // namespace tev::conformance
