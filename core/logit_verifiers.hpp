#pragma once
// Verifier decisions straight from float32 logit rows at a temperature, the way an engine holds
// them after the target's tree forward pass: N = B + 1 rows of V logits (V = 151,936 for a
// Qwen-sized vocabulary). Nothing is copied into doubles; each row costs one vectorized pass
// (max, exp, sum) when a verifier needs it, and a blocked scan for a draw.
#include <cstdint>
#include <span>
#include <vector>

#include "core/block.hpp"
#include "core/draft_tree.hpp"
#include "core/philox.hpp"

namespace tev {

// A view over caller memory.
struct LogitRows {
  const float* data = nullptr;  // (N, V) row-major logits
  std::int32_t rows = 0;
  std::int32_t vocab = 0;
  double temperature = 1.0;
  std::span<const float> row(NodeId v) const {
    return {data + static_cast<std::size_t>(v) * static_cast<std::size_t>(vocab),
            static_cast<std::size_t>(vocab)};
  }
};

// One row's unnormalized probabilities e_a = exp((l_a − m) / T), m the row maximum, from one
// blocked pass (RowKernels::blocks): per block of kRowBlock tokens its maximum, factor and sum.
// The exponentials themselves are not stored: a draw re-computes the one block it lands in, and a
// few blocks holding excluded tokens are re-summed without them, so every row costs one read.
class RowExps {
 public:
  explicit RowExps(std::int32_t vocab);
  // The row's block sums and total (one pass; the logits must outlive the draws that follow).
  void compute(std::span<const float> logits, double temperature);
  double total() const { return total_; }
  // e_a, through the same exponential as the block sums.
  double at(Token a) const;
  // Σ e over the row without the given tokens, summed directly (never total − Σ excluded): the
  // blocks without one add their sums, the few with one are re-summed with those tokens at −inf.
  double total_without(std::span<const Token> excluded) const;
  // What TEV needs of an internal row: the total, the non-child mass and each child's e.
  void sums_only(std::span<const float> logits, double temperature, std::span<const Token> children,
                 double& total, double& rest, std::span<double> child_exps);
  // Inverse-CDF draw with u ∈ (0, 1] over the row without `excluded` (whose mass is `mass`):
  // block sums up to the block holding u · mass, then that block's exponentials in token order.
  Token draw(double u, std::span<const Token> excluded, double mass) const;

 private:
  // Block b's sum without `excluded` (its sum when none is in it).
  double block_without(std::size_t b, std::span<const Token> excluded) const;
  std::span<const float> logits_;
  float scale_ = 1.0f;
  std::vector<float> block_max_, block_factor_;  // (V / kRowBlock)
  std::vector<double> block_sums_;    // (V / kRowBlock) Σ e per block, relative to the row maximum
  mutable std::vector<float> block_;  // (kRowBlock) one block's exponentials, for a draw
  double total_ = 0.0;
};

// Per-call scratch for the calling thread, so no call allocates (worker threads of the
// level-parallel paths keep their own).
struct LogitScratch {
  explicit LogitScratch(std::int32_t vocab, std::int32_t nodes)
      : row(vocab),
        exit(static_cast<std::size_t>(nodes)),
        prefix(static_cast<std::size_t>(nodes)),
        cumulative(static_cast<std::size_t>(nodes)) {}
  RowExps row;
  std::vector<double> exit;        // (N) w
  std::vector<double> prefix;      // (N) P
  std::vector<double> cumulative;  // (N) cumulative w for the exit draw
  std::vector<Token> children;     // tokens of one node's children
};

// TEV, level by level: every internal row once (all of them: the exit law needs them), one exit
// draw, one residual bonus draw (the exit's row once more). `threads` > 1 spreads the internal
// rows over threads (level-parallel); the result does not depend on it.
Block tev_from_logits(const DraftTree& tree, const LogitRows& logits, DrawCounter& draws,
                      LogitScratch& scratch, int threads = 1);
// Pathwise walk: only the rows on the realized path.
Block walk_from_logits(const DraftTree& tree, const LogitRows& logits, DrawCounter& draws,
                       LogitScratch& scratch);
// Predraw-and-follow as DDTree runs it: a draw from every row, then follow the matches.
Block predraw_eager_from_logits(const DraftTree& tree, const LogitRows& logits, DrawCounter& draws,
                                LogitScratch& scratch, int threads = 1);
// Predraw drawing only at the nodes it visits (same law).
Block predraw_lazy_from_logits(const DraftTree& tree, const LogitRows& logits, DrawCounter& draws,
                               LogitScratch& scratch);
// Sequential residual (stored child order): rows on the path, one test per child.
Block sequential_residual_from_logits(const DraftTree& tree, const LogitRows& logits,
                                      DrawCounter& draws, LogitScratch& scratch);

}  // namespace tev
