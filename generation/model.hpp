#pragma once
// The prefix-dependent models a generation case runs: a target and a drafter, each a function from
// the sequence (prompt ‖ output ‖ drafts) to a raw logit row over one vocabulary. The loops and the
// enumeration read them through ModelPair alone; NgramPair is the synthetic pair, an n-gram
// tabulated at construction so that lookups are lock-free and enumeration reads the numbers the
// Monte Carlo reads (real language models: live/live_generation.hpp).
#include <cstdint>
#include <span>
#include <vector>

#include "core/block.hpp"

namespace tev::generation {

// Rows must be a deterministic function of the sequence and safe to ask from several threads at
// once: sampling and enumeration must read the same numbers.
class ModelPair {
 public:
  virtual ~ModelPair() = default;
  virtual std::int32_t vocab() const = 0;
  // (V) raw logits after `sequence` (−∞ where the model gives a token no mass).
  virtual std::vector<double> target_logits(std::span<const Token> sequence) const = 0;
  virtual std::vector<double> draft_logits(std::span<const Token> sequence) const = 0;
};

struct NgramSpec {
  std::int32_t vocab = 6;
  std::int32_t context = 2;  // the tokens the logits depend on (fewer at the very start)
  double logit_sd = 1.5;     // target logits: logit_sd · z, z ~ N(0, 1) per (context, token)
  double draft_noise = 0.8;  // drafter logits: the target's plus draft_noise · z'
  std::uint32_t seed = 1;
};

class NgramPair final : public ModelPair {
 public:
  explicit NgramPair(const NgramSpec& spec);
  // A pair given by its tables, as a generation case file holds them (spec() then gives only the
  // vocabulary and the context). Throws std::invalid_argument when a table's size is not
  // (V + 1)^context · V or a logit is not finite.
  NgramPair(std::int32_t vocab, std::int32_t context, std::vector<double> target,
            std::vector<double> draft);
  std::int32_t vocab() const override { return spec_.vocab; }
  std::int32_t context() const { return spec_.context; }
  const NgramSpec& spec() const { return spec_; }
  // ((V + 1)^context, V) the raw logits after each context, in context_index order.
  std::span<const double> target_table() const { return target_; }
  std::span<const double> draft_table() const { return draft_; }
  // (V + 1)^context: the rows of each table.
  static std::size_t contexts(std::int32_t vocab, std::int32_t context);
  // Only the sequence's last `context` tokens matter.
  std::vector<double> target_logits(std::span<const Token> sequence) const override;
  std::vector<double> draft_logits(std::span<const Token> sequence) const override;

 private:
  // The row of the context `sequence` ends in: its last `context` tokens as base-(V + 1) digits,
  // the oldest first; positions before the sequence's start read 0, token t reads t + 1.
  std::size_t context_index(std::span<const Token> sequence) const;
  std::vector<double> row(const std::vector<double>& table, std::span<const Token> sequence) const;
  NgramSpec spec_;
  std::vector<double> target_;  // ((V + 1)^context, V): context read as base-(V + 1) digits
  std::vector<double> draft_;   // the same layout
};

}  // namespace tev::generation
