#pragma once
// A language pair over two live models after one context: the rows sampled drafts read, each
// computed once and kept.
#include <cstdint>
#include <map>
#include <mutex>
#include <span>
#include <vector>

#include "core/block.hpp"
#include "models/language_model.hpp"

namespace tev::live {

// The rows a sampled tree after one context reads, computed on first use and kept for the pair's
// life: p(· | context ‖ prefix), the target's row; q(· | context ‖ prefix), the drafter's row cut to
// its top_k words (as engines sample drafts with top-k) and renormalized. Safe to share between
// threads. LazyDrafts's Pair.
class LiveLanguagePair {
 public:
  LiveLanguagePair(const models::LanguageModel& target, const models::LanguageModel& drafter,
                   std::span<const Token> context, std::int32_t top_k, std::int32_t draft_depth,
                   double temperature, double row_tolerance = models::kModelRowTolerance);

  std::int32_t vocab() const { return target_.vocab(); }
  std::span<const double> p(std::span<const Token> prefix) const;
  // Empty at the drafting depth: leaves draft nothing and no verifier tests drafts there.
  std::span<const double> q(std::span<const Token> prefix) const;
  // The node's number in the tree of every top-k path: Σ_i (rank of token i among its parent's
  // top-k + 1)·(k + 1)^i; keys the node's drafting draws, so they depend on the prefix alone.
  std::size_t index(std::span<const Token> prefix) const;
  // Computes, in parallel, every row a tree of the drafting depth can read (1 + k + k² + … of p).
  void prefetch() const;
  // Largest |Σ row − 1| of either model's rows so far, before normalization.
  double row_deviation() const;

 private:
  struct DraftRow {
    std::vector<double> q;   // (V) top-k, renormalized
    std::vector<Token> top;  // the k tokens, by decreasing q (ties: smaller token first)
  };
  const DraftRow& draft_row(std::span<const Token> prefix) const;
  DraftRow top_k_row(const std::vector<double>& full) const;
  std::vector<double> model_row(const models::LanguageModel& model, std::span<const Token> prefix,
                                double& deviation) const;
  // rows[prefix], computed by compute(deviation) on first use.
  template <class Row, class Compute>
  const Row& cached(std::map<std::vector<Token>, Row>& rows, std::span<const Token> prefix,
                    Compute&& compute) const;
  std::vector<Token> extended(std::span<const Token> prefix) const;

  const models::LanguageModel& target_;
  const models::LanguageModel& drafter_;
  std::vector<Token> context_;
  std::int32_t top_k_, draft_depth_;
  double temperature_, row_tolerance_;
  mutable std::mutex mutex_;
  mutable std::map<std::vector<Token>, std::vector<double>>
      target_rows_;  // prefix → (V) p; std::map: stable references
  mutable std::map<std::vector<Token>, DraftRow> draft_rows_;  // prefix → q (depth < D)
  mutable double row_deviation_ = 0.0;
};

}  // namespace tev::live
