#pragma once
// A language pair for sampled drafts: target p and drafter q, each a function of the whole prefix,
// tabulated for every prefix shorter than the horizon H (the completion depth), so that lookups are
// lock-free in the Monte Carlo and exact enumeration reads the same numbers.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/block.hpp"
#include "workloads/synthetic.hpp"

namespace tev::drafts {

enum class DrafterKind {
  perturbed,  // q = p perturbed in log space (KL stated)
  misses_target_tokens,  // q as above with its ⌈V/4⌉ least likely tokens zeroed (a top-k drafter): q = 0 where p > 0
  drafts_forbidden_tokens,  // p zeroes its ⌈V/4⌉ least likely tokens (a top-k target), q keeps them: q > 0 where p = 0
};

struct LanguagePairSpec {
  workloads::RowFamilySpec family;
  std::int32_t vocab = 4;
  double draft_noise = 0.5;  // standard deviation of the log-space perturbation of q
  DrafterKind drafter = DrafterKind::perturbed;
  std::uint32_t seed = 1;
  std::int32_t horizon = 3;  // H: rows are tabulated for prefixes of length < H
  std::string label() const;
};

std::string drafter_name(DrafterKind kind);

class LanguagePair {
 public:
  explicit LanguagePair(const LanguagePairSpec& spec);
  // A pair given by its rows (a conformance model case): p and q are (prefix_count(vocab, horizon), V)
  // in this class's prefix order, each row already normalized.
  LanguagePair(std::int32_t vocab, std::int32_t horizon, std::vector<double> p,
               std::vector<double> q);

  // Σ_{l<H} V^l, the number of rows a pair over V tokens tabulates for horizon H.
  static std::size_t prefix_count(std::int32_t vocab, std::int32_t horizon);

  std::int32_t vocab() const { return spec_.vocab; }
  std::int32_t horizon() const { return spec_.horizon; }
  const LanguagePairSpec& spec() const { return spec_; }
  // Number of tabulated prefixes: Σ_{l<H} V^l.
  std::size_t prefixes() const { return offsets_.back(); }
  // Row index of a prefix: offset of its length plus its tokens read as a base-V number.
  std::size_t index(std::span<const Token> prefix) const;
  // The prefix of row `index` (the inverse of index()).
  std::vector<Token> prefix(std::size_t index) const;
  // The same for any pair over V tokens: row `index` in this class's order, whatever the horizon.
  static std::vector<Token> prefix_of(std::int32_t vocab, std::size_t index);
  std::span<const double> p(std::span<const Token> prefix) const { return row(p_, index(prefix)); }
  std::span<const double> q(std::span<const Token> prefix) const { return row(q_, index(prefix)); }

  // p's law of H tokens drawn autoregressively: (V^H) cells, cell = the tokens read as a base-V number.
  std::vector<double> sequence_law() const;
  // Mean KL(p ‖ q) over the prefixes shorter than `depth` (infinite when q misses mass p has).
  double mean_kl(std::int32_t depth) const;

 private:
  void set_offsets();
  std::span<const double> row(const std::vector<double>& rows, std::size_t i) const {
    return {rows.data() + i * static_cast<std::size_t>(spec_.vocab),
            static_cast<std::size_t>(spec_.vocab)};
  }
  LanguagePairSpec spec_;
  std::vector<std::size_t>
      offsets_;            // (H + 1) first row index of each prefix length; back() = row count
  std::vector<double> p_;  // (prefixes, V) target rows
  std::vector<double> q_;  // (prefixes, V) draft rows
};

// The language pairs the sampled-drafts checks run on (check --drafts sampled, theorem1): one per
// drafter kind. Their rows are fixed (seed 7) so that the instances where each mutant is visible
// do not move with a run's seed, which keys its Monte Carlo alone.
std::vector<LanguagePairSpec> default_language_pairs(std::int32_t vocab, std::int32_t horizon);

// Index of the H-token cell of a completed sequence (its tokens as a base-V number).
std::size_t sequence_cell(std::span<const Token> tokens, std::int32_t vocab);

}  // namespace tev::drafts
