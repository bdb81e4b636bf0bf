#include "live/live_language_pair.hpp"

#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "core/compensated_sum.hpp"
#include "live/live.hpp"

namespace tev::live {

LiveLanguagePair::LiveLanguagePair(const models::LanguageModel& target,
                                   const models::LanguageModel& drafter,
                                   std::span<const Token> context, std::int32_t top_k,
                                   std::int32_t draft_depth, double temperature,
                                   double row_tolerance)
    : target_(target),
      drafter_(drafter),
      context_(context.begin(), context.end()),
      top_k_(top_k),
      draft_depth_(draft_depth),
      temperature_(temperature),
      row_tolerance_(row_tolerance) {
  if (target.vocab() != drafter.vocab())
    throw std::invalid_argument("target and drafter have different vocabularies");
  if (top_k < 1 || draft_depth < 1)
    throw std::invalid_argument("sampled live drafts: top-k and drafting depth must be at least 1");
  // Node numbers stay below 2^24, the tree words of the verifier draws (core/random_streams.hpp).
  if (std::pow(top_k + 1.0, draft_depth) >= 16777216.0)
    throw std::invalid_argument("sampled live drafts: (top-k + 1)^depth must stay below 2^24");
}

std::vector<Token> LiveLanguagePair::extended(std::span<const Token> prefix) const {
  std::vector<Token> tokens = context_;
  tokens.insert(tokens.end(), prefix.begin(), prefix.end());
  return tokens;
}

template <class Row, class Compute>
const Row& LiveLanguagePair::cached(std::map<std::vector<Token>, Row>& rows,
                                    std::span<const Token> prefix, Compute&& compute) const {
  std::vector<Token> key(prefix.begin(), prefix.end());
  {
    const std::lock_guard lock(mutex_);
    if (const auto it = rows.find(key); it != rows.end()) return it->second;
  }
  // Rows cost milliseconds: computed outside the lock (prefetch computes each once).
  double deviation = 0.0;
  Row row = compute(deviation);
  const std::lock_guard lock(mutex_);
  row_deviation_ = std::max(row_deviation_, deviation);
  return rows.emplace(std::move(key), std::move(row)).first->second;
}

// The model's row after context ‖ prefix, normalized (its deviation from 1 reported), at temperature.
std::vector<double> LiveLanguagePair::model_row(const models::LanguageModel& model,
                                                std::span<const Token> prefix,
                                                double& deviation) const {
  const std::vector<Token> tokens = extended(prefix);
  std::vector<double> row = model.next_row(tokens);
  deviation = models::normalize_row(row, model, tokens, row_tolerance_);
  return apply_temperature(row, temperature_);
}

std::span<const double> LiveLanguagePair::p(std::span<const Token> prefix) const {
  return cached(target_rows_, prefix,
                [&](double& deviation) { return model_row(target_, prefix, deviation); });
}

const LiveLanguagePair::DraftRow& LiveLanguagePair::draft_row(std::span<const Token> prefix) const {
  return cached(draft_rows_, prefix, [&](double& deviation) {
    return top_k_row(model_row(drafter_, prefix, deviation));
  });
}

LiveLanguagePair::DraftRow LiveLanguagePair::top_k_row(const std::vector<double>& full) const {
  DraftRow row;
  row.top.resize(full.size());
  std::iota(row.top.begin(), row.top.end(), 0);
  const auto k = std::min<std::size_t>(static_cast<std::size_t>(top_k_), full.size());
  std::partial_sort(row.top.begin(), row.top.begin() + static_cast<std::ptrdiff_t>(k),
                    row.top.end(), [&](Token a, Token b) {
                      const double qa = full[static_cast<std::size_t>(a)],
                                   qb = full[static_cast<std::size_t>(b)];
                      return qa > qb || (qa == qb && a < b);
                    });
  row.top.resize(k);
  while (!row.top.empty() && !(full[static_cast<std::size_t>(row.top.back())] > 0.0))
    row.top.pop_back();
  row.q.assign(full.size(), 0.0);
  for (Token t : row.top) row.q[static_cast<std::size_t>(t)] = full[static_cast<std::size_t>(t)];
  const double total = compensated_total(row.q);
  for (double& x : row.q) x /= total;
  return row;
}

std::span<const double> LiveLanguagePair::q(std::span<const Token> prefix) const {
  if (static_cast<std::int32_t>(prefix.size()) >= draft_depth_) return {};
  return draft_row(prefix).q;
}

std::size_t LiveLanguagePair::index(std::span<const Token> prefix) const {
  std::size_t id = 0, scale = 1;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    const std::vector<Token>& top = draft_row(prefix.first(i)).top;
    const auto it = std::find(top.begin(), top.end(), prefix[i]);
    if (it == top.end())
      throw std::logic_error("sampled live drafts: a drafted token outside its parent's top-k");
    id += static_cast<std::size_t>(it - top.begin() + 1) * scale;
    scale *= static_cast<std::size_t>(top_k_ + 1);
  }
  return id;
}

void LiveLanguagePair::prefetch() const {
  std::vector<std::vector<Token>> level = {{}};
  for (std::int32_t depth = 0; depth <= draft_depth_ && !level.empty(); ++depth) {
    oneapi::tbb::parallel_for(std::size_t{0}, level.size(), [&](std::size_t i) {
      p(level[i]);
      if (depth < draft_depth_) draft_row(level[i]);
    });
    if (depth == draft_depth_) break;
    std::vector<std::vector<Token>> next;
    for (const std::vector<Token>& prefix : level) {
      for (Token t : draft_row(prefix).top) {
        next.push_back(prefix);
        next.back().push_back(t);
      }
    }
    level = std::move(next);
  }
}

double LiveLanguagePair::row_deviation() const {
  const std::lock_guard lock(mutex_);
  return row_deviation_;
}

}  // namespace tev::live
