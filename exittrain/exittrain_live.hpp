#pragma once
// ExitTrain on a real model (part B of the ExitTrain comparison): a LanguageModel as the trainer's frozen target, a small
// block drafter over its real vocabulary, and training examples cut from the model's own samples.
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "models/language_model.hpp"
#include "exittrain/exittrain.hpp"

namespace tev::exittrain {

// A block drafter over a frequency-truncated vocabulary: the K most frequent words each get a
// bucket, every other word shares bucket K ("other"). Position h's bucket logits are
// y_h = b_h + U_h e with e = Σ_{j<lookback} E_j[bucket(x_{−1−j})] (D), and its row over the full
// vocabulary gives a frequent word its bucket's logit and an other word y_hK − log(V − K): the
// other bucket's mass spread evenly, so the row is a proper law over the real vocabulary, the
// dense loss can score any word, and no placeholder token can enter a tree.
class FrequentWordsDrafter final : public BlockDrafter {
 public:
  struct Shape {
    std::int32_t horizon = 4;     // H
    std::int32_t lookback = 1;    // words the embedding sums
    std::int32_t embedding = 32;  // D
  };
  // frequent_words: the K distinct words with buckets, 1 <= K < vocab. Embeddings and heads start
  // as Gaussians of sd init_scale drawn from the seed, biases at 0.
  FrequentWordsDrafter(std::int32_t vocab, std::span<const Token> frequent_words,
                       const Shape& shape, double init_scale, std::uint32_t seed);
  std::int32_t vocab() const override { return vocab_; }
  std::int32_t horizon() const override { return shape_.horizon; }
  void logits(std::span<const Token> context, std::span<double> out) const override;
  void backpropagate(std::span<const Token> context, std::span<const double> logit_gradient,
                     std::span<double> gradient) const override;
  std::span<double> parameters() override { return weights_; }
  std::span<const double> parameters() const override { return weights_; }

 private:
  // Offsets into weights_ of the embedding rows (D each) the context reads.
  std::vector<std::size_t> embedding_rows(std::span<const Token> context) const;
  // e (D): the sum of the context's embedding rows.
  std::vector<double> embed(std::span<const Token> context) const;
  std::size_t head_offset(std::int32_t h) const;  // U_h (K + 1, D)
  std::size_t bias_offset(std::int32_t h) const;  // b_h (K + 1)

  std::int32_t vocab_;
  Shape shape_;
  std::int32_t other_;                // K: the other bucket's index
  double log_other_words_;            // log(V − K)
  std::vector<std::int32_t> bucket_;  // (V) each word's bucket, K for the other words
  // Flat parameters: embeddings (lookback, K + 1, D), then heads (H, K + 1, D), then biases (H, K + 1).
  std::vector<double> weights_;
};

// Every (context, next H tokens) pair of each sequence whose context holds at least two tokens
// (begin_token and a word), in an order shuffled so that a minibatch mixes sequences: each example
// set its own shuffle, id `set` of uses::exittrain_live_shuffles.
enum class ExampleSet : std::uint32_t { warmup = 0, training = 1 };
std::vector<TrainingExample> examples_from_sequences(std::span<const std::vector<Token>> sequences,
                                                     std::int32_t horizon, std::uint32_t seed,
                                                     ExampleSet set);

}  // namespace tev::exittrain
