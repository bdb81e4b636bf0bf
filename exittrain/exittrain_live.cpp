#include "exittrain/exittrain_live.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

#include "core/philox_engine.hpp"

namespace tev::exittrain {

FrequentWordsDrafter::FrequentWordsDrafter(std::int32_t vocab,
                                           std::span<const Token> frequent_words,
                                           const Shape& shape, double init_scale,
                                           std::uint32_t seed)
    : vocab_(vocab), shape_(shape), other_(static_cast<std::int32_t>(frequent_words.size())) {
  if (shape.horizon < 1 || shape.lookback < 0 || shape.embedding < 1)
    throw std::invalid_argument("FrequentWordsDrafter needs H >= 1, lookback >= 0, D >= 1");
  if (other_ < 1 || other_ >= vocab)
    throw std::invalid_argument("FrequentWordsDrafter needs 1 <= K < vocab frequent words");
  log_other_words_ = std::log(static_cast<double>(vocab - other_));
  bucket_.assign(static_cast<std::size_t>(vocab), other_);
  for (std::int32_t k = 0; k < other_; ++k) {
    const Token w = frequent_words[static_cast<std::size_t>(k)];
    if (w < 0 || w >= vocab || bucket_[static_cast<std::size_t>(w)] != other_)
      throw std::invalid_argument("frequent words must be distinct tokens of the vocabulary");
    bucket_[static_cast<std::size_t>(w)] = k;
  }
  const auto buckets = static_cast<std::size_t>(other_ + 1),
             d = static_cast<std::size_t>(shape.embedding);
  weights_.assign(bias_offset(shape.horizon), 0.0);  // up to the biases' end
  PhiloxEngine engine(seed, uses::exittrain_live_init);
  std::normal_distribution<double> normal(0.0, init_scale);
  const std::size_t factors =
      (static_cast<std::size_t>(shape.lookback) + static_cast<std::size_t>(shape.horizon)) *
      buckets * d;
  for (std::size_t i = 0; i < factors; ++i) weights_[i] = normal(engine);
}

std::size_t FrequentWordsDrafter::head_offset(std::int32_t h) const {
  const auto buckets = static_cast<std::size_t>(other_ + 1),
             d = static_cast<std::size_t>(shape_.embedding);
  return (static_cast<std::size_t>(shape_.lookback) + static_cast<std::size_t>(h)) * buckets * d;
}

std::size_t FrequentWordsDrafter::bias_offset(std::int32_t h) const {
  const auto buckets = static_cast<std::size_t>(other_ + 1);
  return head_offset(shape_.horizon) + static_cast<std::size_t>(h) * buckets;
}

std::vector<std::size_t> FrequentWordsDrafter::embedding_rows(
    std::span<const Token> context) const {
  const auto buckets = static_cast<std::size_t>(other_ + 1),
             d = static_cast<std::size_t>(shape_.embedding);
  std::vector<std::size_t> rows;
  // Lags missing from a short context contribute nothing.
  for (std::int32_t j = 0; j < shape_.lookback && static_cast<std::size_t>(j) < context.size();
       ++j) {
    const Token word = context[context.size() - 1 - static_cast<std::size_t>(j)];
    rows.push_back((static_cast<std::size_t>(j) * buckets +
                    static_cast<std::size_t>(bucket_.at(static_cast<std::size_t>(word)))) *
                   d);
  }
  return rows;
}

std::vector<double> FrequentWordsDrafter::embed(std::span<const Token> context) const {
  const auto d = static_cast<std::size_t>(shape_.embedding);
  std::vector<double> e(d, 0.0);
  for (std::size_t row : embedding_rows(context)) {
    for (std::size_t i = 0; i < d; ++i) e[i] += weights_[row + i];
  }
  return e;
}

void FrequentWordsDrafter::logits(std::span<const Token> context, std::span<double> out) const {
  const auto buckets = static_cast<std::size_t>(other_ + 1),
             d = static_cast<std::size_t>(shape_.embedding), v = static_cast<std::size_t>(vocab_);
  const std::vector<double> e = embed(context);
  std::vector<double> y(buckets);  // (K + 1) bucket logits of one position
  for (std::int32_t h = 0; h < shape_.horizon; ++h) {
    const double* head = weights_.data() + head_offset(h);
    const double* bias = weights_.data() + bias_offset(h);
    for (std::size_t k = 0; k < buckets; ++k) {
      double z = bias[k];
      for (std::size_t i = 0; i < d; ++i) z += head[k * d + i] * e[i];
      y[k] = z;
    }
    double* row = out.data() + static_cast<std::size_t>(h) * v;
    const double other_word = y[static_cast<std::size_t>(other_)] - log_other_words_;
    for (std::size_t w = 0; w < v; ++w) {
      const std::int32_t k = bucket_[w];
      row[w] = k == other_ ? other_word : y[static_cast<std::size_t>(k)];
    }
  }
}

void FrequentWordsDrafter::backpropagate(std::span<const Token> context,
                                         std::span<const double> logit_gradient,
                                         std::span<double> gradient) const {
  const auto buckets = static_cast<std::size_t>(other_ + 1),
             d = static_cast<std::size_t>(shape_.embedding), v = static_cast<std::size_t>(vocab_);
  const std::vector<double> e = embed(context);
  std::vector<double> embedding_gradient(d, 0.0);  // (D) ∂/∂e
  std::vector<double> bucket_gradient(
      buckets);  // (K + 1) ∂/∂y_h: a bucket's logit feeds every word in it
  for (std::int32_t h = 0; h < shape_.horizon; ++h) {
    std::fill(bucket_gradient.begin(), bucket_gradient.end(), 0.0);
    const double* g = logit_gradient.data() + static_cast<std::size_t>(h) * v;
    for (std::size_t w = 0; w < v; ++w)
      bucket_gradient[static_cast<std::size_t>(bucket_[w])] += g[w];
    const std::size_t head = head_offset(h), bias = bias_offset(h);
    for (std::size_t k = 0; k < buckets; ++k) {
      const double gk = bucket_gradient[k];
      if (gk == 0.0) continue;
      gradient[bias + k] += gk;
      for (std::size_t i = 0; i < d; ++i) {
        gradient[head + k * d + i] += gk * e[i];
        embedding_gradient[i] += gk * weights_[head + k * d + i];
      }
    }
  }
  for (std::size_t row : embedding_rows(context)) {
    for (std::size_t i = 0; i < d; ++i) gradient[row + i] += embedding_gradient[i];
  }
}

std::vector<TrainingExample> examples_from_sequences(std::span<const std::vector<Token>> sequences,
                                                     std::int32_t horizon, std::uint32_t seed,
                                                     ExampleSet set) {
  std::vector<TrainingExample> examples;
  const auto h = static_cast<std::size_t>(horizon);
  for (const std::vector<Token>& sequence : sequences) {
    for (std::size_t end = 2; end + h <= sequence.size(); ++end) {
      examples.push_back(
          {std::vector<Token>(sequence.begin(),
                              sequence.begin() + static_cast<std::ptrdiff_t>(end)),
           std::vector<Token>(sequence.begin() + static_cast<std::ptrdiff_t>(end),
                              sequence.begin() + static_cast<std::ptrdiff_t>(end + h))});
    }
  }
  PhiloxEngine engine(seed, uses::exittrain_live_shuffles, static_cast<std::uint32_t>(set));
  std::shuffle(examples.begin(), examples.end(), engine);
  return examples;
}

}  // namespace tev::exittrain
