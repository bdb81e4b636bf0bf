#pragma once
// The prefix-dependent models a generation case runs: a synthetic target and drafter whose logits
// are a fixed function of the last few tokens of the sequence (prompt ‖ output ‖ drafts), an n-gram
// tabulated at construction so that lookups are lock-free and enumeration reads the numbers the
// Monte Carlo reads.
#include <cstdint>
#include <span>
#include <vector>

#include "core/block.hpp"

namespace tev::generation {

struct NgramSpec {
  std::int32_t vocab = 6;
  std::int32_t context = 2;  // the tokens the logits depend on (fewer at the very start)
  double logit_sd = 1.5;     // target logits: logit_sd · z, z ~ N(0, 1) per (context, token)
  double draft_noise = 0.8;  // drafter logits: the target's plus draft_noise · z'
  std::uint32_t seed = 1;
};

class NgramPair {
 public:
  explicit NgramPair(const NgramSpec& spec);
  // A pair given by its tables, as a generation case file holds them (spec() then gives only the
  // vocabulary and the context). Throws std::invalid_argument when a table's size is not
  // (V + 1)^context · V or a logit is not finite.
  NgramPair(std::int32_t vocab, std::int32_t context, std::vector<double> target,
            std::vector<double> draft);
  std::int32_t vocab() const { return spec_.vocab; }
  std::int32_t context() const { return spec_.context; }
  const NgramSpec& spec() const { return spec_; }
  // ((V + 1)^context, V) the raw logits after each context, in context_index order.
  std::span<const double> target_table() const { return target_; }
  std::span<const double> draft_table() const { return draft_; }
  // (V + 1)^context: the rows of each table.
  static std::size_t contexts(std::int32_t vocab, std::int32_t context);
  // (V) raw logits after `sequence`; only its last `context` tokens matter.
  std::span<const double> target_logits(std::span<const Token> sequence) const;
  std::span<const double> draft_logits(std::span<const Token> sequence) const;

 private:
  // The row of the context `sequence` ends in: its last `context` tokens as base-(V + 1) digits,
  // the oldest first; positions before the sequence's start read 0, token t reads t + 1.
  std::size_t context_index(std::span<const Token> sequence) const;
  NgramSpec spec_;
  std::vector<double> target_;  // ((V + 1)^context, V): context read as base-(V + 1) digits
  std::vector<double> draft_;   // the same layout
};

}  // namespace tev::generation
