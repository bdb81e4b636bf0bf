#include "exittrain/exittrain_models.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

#include "core/sampling.hpp"
#include "core/softmax.hpp"

namespace tev::exittrain {

MarkovTarget::MarkovTarget(std::int32_t vocab, std::int32_t order, double scale, std::uint32_t seed)
    : vocab_(vocab), order_(order) {
  if (vocab < 2 || order < 1)
    throw std::invalid_argument("MarkovTarget needs vocab >= 2 and order >= 1");
  PhiloxEngine engine(seed, uses::exittrain_sim_data, 0);
  std::normal_distribution<double> normal(0.0, scale);
  tables_.resize(static_cast<std::size_t>(order) * static_cast<std::size_t>(vocab) *
                 static_cast<std::size_t>(vocab));
  for (double& g : tables_) g = normal(engine);
}

std::vector<double> MarkovTarget::next_row(std::span<const Token> sequence) const {
  const auto v = static_cast<std::size_t>(vocab_);
  std::vector<double> out(v, 0.0);
  for (std::int32_t j = 0; j < order_ && static_cast<std::size_t>(j) < sequence.size(); ++j) {
    const auto previous =
        static_cast<std::size_t>(sequence[sequence.size() - 1 - static_cast<std::size_t>(j)]);
    const double* table = tables_.data() + (static_cast<std::size_t>(j) * v + previous) * v;
    for (std::size_t a = 0; a < v; ++a) out[a] += table[a];
  }
  softmax(out, out);
  return out;
}

LinearBlockDrafter::LinearBlockDrafter(std::int32_t vocab, std::int32_t horizon,
                                       std::int32_t lookback)
    : vocab_(vocab), horizon_(horizon), lookback_(lookback) {
  if (vocab < 2 || horizon < 1 || lookback < 0)
    throw std::invalid_argument("LinearBlockDrafter needs vocab >= 2, horizon >= 1, lookback >= 0");
  weights_.assign(static_cast<std::size_t>(horizon) *
                      (static_cast<std::size_t>(lookback) * static_cast<std::size_t>(vocab) + 1) *
                      static_cast<std::size_t>(vocab),
                  0.0);
}

std::vector<std::size_t> LinearBlockDrafter::active_rows(std::span<const Token> context,
                                                         std::int32_t h) const {
  const auto v = static_cast<std::size_t>(vocab_);
  const std::size_t features = static_cast<std::size_t>(lookback_) * v + 1;
  const std::size_t position = static_cast<std::size_t>(h) * features;
  std::vector<std::size_t> rows = {(position + features - 1) * v};  // the bias
  for (std::int32_t j = 0; j < lookback_ && static_cast<std::size_t>(j) < context.size(); ++j) {
    const auto token =
        static_cast<std::size_t>(context[context.size() - 1 - static_cast<std::size_t>(j)]);
    rows.push_back((position + static_cast<std::size_t>(j) * v + token) * v);
  }
  return rows;
}

void LinearBlockDrafter::logits(std::span<const Token> context, std::span<double> out) const {
  const auto v = static_cast<std::size_t>(vocab_);
  std::fill(out.begin(), out.end(), 0.0);
  for (std::int32_t h = 0; h < horizon_; ++h) {
    double* z = out.data() + static_cast<std::size_t>(h) * v;
    for (std::size_t offset : active_rows(context, h)) {
      for (std::size_t a = 0; a < v; ++a) z[a] += weights_[offset + a];
    }
  }
}

void LinearBlockDrafter::backpropagate(std::span<const Token> context,
                                       std::span<const double> logit_gradient,
                                       std::span<double> gradient) const {
  const auto v = static_cast<std::size_t>(vocab_);
  for (std::int32_t h = 0; h < horizon_; ++h) {
    const double* g = logit_gradient.data() + static_cast<std::size_t>(h) * v;
    for (std::size_t offset : active_rows(context, h)) {
      for (std::size_t a = 0; a < v; ++a) gradient[offset + a] += g[a];
    }
  }
}

Token sample_token(std::span<const double> row, double u) {
  std::vector<double> cum(row.size());
  cumulate(row.data(), static_cast<std::int32_t>(row.size()), cum.data());
  return pick_cumulative(cum.data(), static_cast<std::int32_t>(row.size()), u);
}

std::vector<Token> sample_context(const models::LanguageModel& target, std::int32_t length,
                                  PhiloxEngine& engine) {
  std::vector<Token> sequence = {
      static_cast<Token>(engine() % static_cast<std::uint32_t>(target.vocab()))};
  while (static_cast<std::int32_t>(sequence.size()) < length) {
    sequence.push_back(sample_token(target.next_row(sequence), engine.uniform()));
  }
  return sequence;
}

std::vector<TrainingExample> sample_examples(const models::LanguageModel& target,
                                             std::int32_t count, std::int32_t context_length,
                                             std::int32_t horizon, PhiloxEngine& engine) {
  std::vector<TrainingExample> examples;
  for (std::int32_t i = 0; i < count; ++i) {
    std::vector<Token> sequence = sample_context(target, context_length + horizon, engine);
    const auto split = sequence.begin() + context_length;
    examples.push_back(
        {std::vector<Token>(sequence.begin(), split), std::vector<Token>(split, sequence.end())});
  }
  return examples;
}

}  // namespace tev::exittrain
