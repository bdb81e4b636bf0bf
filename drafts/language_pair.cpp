#include "drafts/language_pair.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "core/compensated_sum.hpp"

namespace tev::drafts {

namespace {
// Zeroes the ⌈V/4⌉ smallest entries of a row (ties: the larger index goes first) and renormalizes.
void zero_least_likely(std::vector<double>& row) {
  std::vector<std::size_t> order(row.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return row[a] > row[b]; });
  const std::size_t dropped = (row.size() + 3) / 4;
  for (std::size_t i = row.size() - dropped; i < row.size(); ++i) row[order[i]] = 0.0;
  const double total = compensated_total(row);
  for (double& x : row) x /= total;
}

// Every prefix of length `length` in base-V order, calling visit(prefix).
template <class Visit>
void for_each_prefix(std::int32_t vocab, std::int32_t length, Visit&& visit) {
  std::vector<Token> prefix(static_cast<std::size_t>(length), 0);
  for (;;) {
    visit(std::span<const Token>(prefix));
    std::int32_t i = length - 1;
    while (i >= 0 && prefix[static_cast<std::size_t>(i)] == vocab - 1)
      prefix[static_cast<std::size_t>(i--)] = 0;
    if (i < 0) return;
    ++prefix[static_cast<std::size_t>(i)];
  }
}
}  // namespace

std::string drafter_name(DrafterKind kind) {
  switch (kind) {
    case DrafterKind::perturbed:
      return "perturbed";
    case DrafterKind::misses_target_tokens:
      return "misses-target-tokens";
    case DrafterKind::drafts_forbidden_tokens:
      return "drafts-forbidden-tokens";
  }
  return "unknown";
}

std::string LanguagePairSpec::label() const {
  return family.label() + ",V=" + std::to_string(vocab) + ",drafter=" + drafter_name(drafter) +
         ",noise=" + std::to_string(draft_noise).substr(0, 4) + ",seed=" + std::to_string(seed);
}

std::vector<LanguagePairSpec> default_language_pairs(std::int32_t vocab, std::int32_t horizon) {
  return {{{workloads::RowFamily::dirichlet, 1.0, 1.0},
           vocab,
           0.8,
           DrafterKind::drafts_forbidden_tokens,
           7,
           horizon},
          {{workloads::RowFamily::gaussian_logits, 2.0, 0.7},
           vocab,
           0.8,
           DrafterKind::perturbed,
           7,
           horizon},
          {{workloads::RowFamily::dirichlet, 1.0, 1.0},
           vocab,
           0.8,
           DrafterKind::misses_target_tokens,
           7,
           horizon}};
}

std::size_t sequence_cell(std::span<const Token> tokens, std::int32_t vocab) {
  std::size_t cell = 0;
  for (Token t : tokens)
    cell = cell * static_cast<std::size_t>(vocab) + static_cast<std::size_t>(t);
  return cell;
}

LanguagePair::LanguagePair(const LanguagePairSpec& spec) : spec_(spec) {
  if (spec.horizon < 1 || spec.horizon > 12)
    throw std::invalid_argument("language pair: horizon must be in [1, 12]");
  const workloads::SyntheticLanguage language(spec.family, spec.vocab, spec.draft_noise, spec.seed);
  set_offsets();
  p_.reserve(prefixes() * static_cast<std::size_t>(spec.vocab));
  q_.reserve(p_.capacity());
  for (std::int32_t l = 0; l < spec.horizon; ++l) {
    for_each_prefix(spec.vocab, l, [&](std::span<const Token> prefix) {
      std::vector<double> p = language.target_row(prefix);
      std::vector<double> q = language.draft_row(prefix);
      if (spec.drafter == DrafterKind::misses_target_tokens) zero_least_likely(q);
      if (spec.drafter == DrafterKind::drafts_forbidden_tokens) zero_least_likely(p);
      p_.insert(p_.end(), p.begin(), p.end());
      q_.insert(q_.end(), q.begin(), q.end());
    });
  }
}

LanguagePair::LanguagePair(std::int32_t vocab, std::int32_t horizon, std::vector<double> p,
                           std::vector<double> q)
    : p_(std::move(p)), q_(std::move(q)) {
  if (horizon < 1 || horizon > 12)
    throw std::invalid_argument("language pair: horizon must be in [1, 12]");
  spec_.vocab = vocab;
  spec_.horizon = horizon;
  set_offsets();
  const std::size_t cells = prefixes() * static_cast<std::size_t>(vocab);
  if (p_.size() != cells || q_.size() != cells)
    throw std::invalid_argument("language pair: p and q need (prefixes, V) rows");
}

void LanguagePair::set_offsets() {
  offsets_.assign(1, 0);
  std::size_t level = 1;
  for (std::int32_t l = 0; l < spec_.horizon; ++l, level *= static_cast<std::size_t>(spec_.vocab)) {
    offsets_.push_back(offsets_.back() + level);
  }
}

std::size_t LanguagePair::prefix_count(std::int32_t vocab, std::int32_t horizon) {
  std::size_t total = 0, level = 1;
  for (std::int32_t l = 0; l < horizon; ++l, level *= static_cast<std::size_t>(vocab))
    total += level;
  return total;
}

std::vector<Token> LanguagePair::prefix(std::size_t index) const {
  if (index >= prefixes()) throw std::out_of_range("language pair: no such row");
  return prefix_of(spec_.vocab, index);
}

std::vector<Token> LanguagePair::prefix_of(std::int32_t vocab, std::size_t index) {
  const auto v = static_cast<std::size_t>(vocab);
  std::size_t length = 0, level = 1;
  for (; index >= level; index -= level, level *= v)
    ++length;  // rows of length l come after the shorter ones
  std::vector<Token> tokens(length);
  for (std::size_t i = length; i-- > 0; index /= v) tokens[i] = static_cast<Token>(index % v);
  return tokens;
}

std::size_t LanguagePair::index(std::span<const Token> prefix) const {
  if (prefix.size() >= offsets_.size() - 1)
    throw std::out_of_range("language pair: prefix reaches the horizon");
  return offsets_[prefix.size()] + sequence_cell(prefix, spec_.vocab);
}

std::vector<double> LanguagePair::sequence_law() const {
  std::vector<double> law(1, 1.0);
  for (std::int32_t l = 0; l < spec_.horizon; ++l) {
    std::vector<double> next;
    next.reserve(law.size() * static_cast<std::size_t>(spec_.vocab));
    for (std::size_t c = 0; c < law.size(); ++c) {
      const auto r = row(p_, offsets_[static_cast<std::size_t>(l)] + c);
      for (double x : r) next.push_back(law[c] * x);
    }
    law = std::move(next);
  }
  return law;
}

double LanguagePair::mean_kl(std::int32_t depth) const {
  const std::size_t rows = offsets_[static_cast<std::size_t>(std::clamp(depth, 1, spec_.horizon))];
  double total = 0.0;
  for (std::size_t i = 0; i < rows; ++i) total += workloads::kl_divergence(row(p_, i), row(q_, i));
  return total / static_cast<double>(rows);
}

}  // namespace tev::drafts
