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
  std::int32_t vocab() const override { return spec_.vocab; }
  const NgramSpec& spec() const { return spec_; }
  // Only the sequence's last `context` tokens matter.
  std::vector<double> target_logits(std::span<const Token> sequence) const override;
  std::vector<double> draft_logits(std::span<const Token> sequence) const override;

 private:
  std::vector<double> row(const std::vector<double>& table, std::span<const Token> sequence) const;
  NgramSpec spec_;
  std::vector<double> target_;  // ((V + 1)^context, V): context read as base-(V + 1) digits
  std::vector<double> draft_;   // the same layout
};

}  // namespace tev::generation
