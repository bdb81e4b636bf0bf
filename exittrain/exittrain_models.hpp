#pragma once
// The simulated side of ExitTrain: a synthetic autoregressive target with context-dependent rows,
// a small linear block drafter, and example sets drawn from the target itself.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "exittrain/exittrain.hpp"
#include "core/philox_engine.hpp"

namespace tev::exittrain {

// An order-k Markov target: the next token's logits are Σ_{j<k} scale · G_j[x_{−1−j}, ·], with
// G_j (V, V) tables of standard Gaussians drawn from the seed. Lags missing from a short
// sequence contribute nothing.
class MarkovTarget final : public models::LanguageModel {
 public:
  MarkovTarget(std::int32_t vocab, std::int32_t order, double scale, std::uint32_t seed);
  std::string name() const override { return "order-" + std::to_string(order_) + " Markov target"; }
  std::int32_t vocab() const override { return vocab_; }
  std::string token_text(Token t) const override { return std::to_string(t); }
  // No start token: a context begins with a uniform token (sample_context).
  Token begin_token() const override { return kNoToken; }
  std::vector<double> next_row(std::span<const Token> sequence) const override;

 private:
  std::int32_t vocab_;
  std::int32_t order_;
  std::vector<double> tables_;  // (order, V, V) scale · G_j[previous token, next token]
};

// A linear block drafter: position h's logits are a bias plus one embedding row per looked-back
// token, z_h = b_h + Σ_{j<lookback} E_{h,j}[x_{−1−j}] (a linear map of the one-hot features of
// the last `lookback` tokens). Starts at zero: uniform rows.
class LinearBlockDrafter final : public BlockDrafter {
 public:
  LinearBlockDrafter(std::int32_t vocab, std::int32_t horizon, std::int32_t lookback);
  std::int32_t vocab() const override { return vocab_; }
  std::int32_t horizon() const override { return horizon_; }
  void logits(std::span<const Token> context, std::span<double> out) const override;
  void backpropagate(std::span<const Token> context, std::span<const double> logit_gradient,
                     std::span<double> gradient) const override;
  std::span<double> parameters() override { return weights_; }
  std::span<const double> parameters() const override { return weights_; }

 private:
  // Offsets into weights_ of the rows position h reads for this context: the bias, then one per lag.
  std::vector<std::size_t> active_rows(std::span<const Token> context, std::int32_t h) const;

  std::int32_t vocab_;
  std::int32_t horizon_;
  std::int32_t lookback_;
  std::vector<double>
      weights_;  // (H, lookback · V + 1, V): per position, embeddings by (lag, token), then the bias
};

// A token from a probability row with a uniform u ∈ (0, 1].
Token sample_token(std::span<const double> row, double u);

// A sequence from the target: a uniform first token, then length − 1 target draws.
std::vector<Token> sample_context(const models::LanguageModel& target, std::int32_t length,
                                  PhiloxEngine& engine);

// `count` contexts of `context_length` tokens, each with the target's continuation of `horizon` tokens.
std::vector<TrainingExample> sample_examples(const models::LanguageModel& target,
                                             std::int32_t count, std::int32_t context_length,
                                             std::int32_t horizon, PhiloxEngine& engine);

}  // namespace tev::exittrain
