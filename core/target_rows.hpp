#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "core/draft_tree.hpp"

namespace tev {

// Largest |row total − 1| accepted on ingestion. Real rows (float32 logits, the Sphinx model's
// fixed-point log base) are off by up to ~1e-3; anything further off is a caller's bug.
inline constexpr double kDefaultRowTolerance = 1e-2;

// Target next-token laws p_v = p(· | c, π(v)) for every tree node, normalized on ingestion by a
// compensated total so that Σ_v w(v) = 1 holds to rounding.
class TargetRows {
 public:
  // probs: (rows, vocab) row-major. Throws std::invalid_argument on a negative or non-finite entry,
  // or on a row whose total deviates from 1 by more than tolerance.
  static TargetRows from_probabilities(std::span<const double> probs, std::int32_t rows,
                                       std::int32_t vocab, double tolerance = kDefaultRowTolerance);
  // logits: (rows, vocab) row-major; softmax(logits / temperature) by a stable log-sum-exp.
  static TargetRows from_logits(std::span<const double> logits, std::int32_t rows,
                                std::int32_t vocab, double temperature);

  std::int32_t rows() const { return rows_; }
  std::int32_t vocab() const { return vocab_; }
  std::span<const double> row(NodeId v) const {
    return {prob_.data() + static_cast<std::size_t>(v) * static_cast<std::size_t>(vocab_),
            static_cast<std::size_t>(vocab_)};
  }
  std::span<const double> data() const { return prob_; }
  // Largest |total − 1| over the rows as they arrived (before normalization), and which row.
  double max_deviation() const { return max_deviation_; }
  std::int32_t worst_row() const { return worst_row_; }

 private:
  std::int32_t rows_ = 0;
  std::int32_t vocab_ = 0;
  std::vector<double> prob_;  // (rows, vocab) row-major, each row normalized
  double max_deviation_ = 0.0;
  std::int32_t worst_row_ = 0;
};

// Checks that rows fit the tree: one row per node, same vocabulary.
void require_rows_match(const DraftTree& tree, const TargetRows& rows);

}  // namespace tev
