#pragma once
// Transformers in the llama2.c checkpoint format, with a tree-attention forward pass.
#include <Eigen/Core>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "models/language_model.hpp"

namespace tev::models {

// The 7-int header of a llama2.c checkpoint.
struct Llama2Config {
  std::int32_t dim = 0;
  std::int32_t hidden_dim = 0;
  std::int32_t n_layers = 0;
  std::int32_t n_heads = 0;
  std::int32_t n_kv_heads = 0;
  std::int32_t vocab_size =
      0;  // positive in memory; the file stores it negated for an unshared classifier
  std::int32_t seq_len = 0;
  bool shared_classifier = true;  // the classifier is the token embedding
  std::int32_t head_size() const { return dim / n_heads; }
  std::int32_t kv_dim() const { return head_size() * n_kv_heads; }
  // Floats after the header, in file order (including the unused RoPE tables llama2.c still writes).
  std::size_t weight_floats() const;
};

// A checkpoint in memory: the header and every float of the file in run.c's order.
struct Llama2Checkpoint {
  Llama2Config config;
  std::vector<float> weights;
};

// Reads a checkpoint, refusing (std::runtime_error naming the file) a header that is not a
// transformer (non-positive sizes, heads that do not divide dim, kv heads that do not divide heads,
// odd head size) and a file whose size is not exactly what the header calls for (truncated or not
// a checkpoint).
Llama2Checkpoint read_llama2c(const std::string& path);
void write_llama2c(const std::string& path, const Llama2Checkpoint& checkpoint);
// Small random weights (std 0.2 / sqrt(fan-in), norms near 1): the test models.
Llama2Checkpoint random_llama2c(const Llama2Config& config, std::uint32_t seed);

// llama2.c's tokenizer.bin: the text of every token (for printing only).
std::vector<std::string> read_llama2c_tokenizer(const std::string& path, std::int32_t vocab);

class Llama2Model : public LanguageModel {
 public:
  // Runs the first `layers` layers, then the final norm and the classifier (layers = n_layers: the
  // whole model; fewer: a self-drafter). `token_texts` may be empty (tokens print as <id>).
  Llama2Model(std::shared_ptr<const Llama2Checkpoint> checkpoint, std::int32_t layers,
              std::string name, std::vector<std::string> token_texts = {});

  std::string name() const override { return name_; }
  std::int32_t vocab() const override { return checkpoint_->config.vocab_size; }
  std::string token_text(Token t) const override;
  Token begin_token() const override { return 1; }  // llama2.c's BOS
  std::vector<double> next_row(std::span<const Token> context) const override;
  std::size_t max_length() const override {
    return static_cast<std::size_t>(checkpoint_->config.seq_len);
  }
  std::vector<double> tree_rows(std::span<const Token> context,
                                const DraftTree& tree) const override;

  // (T, V) logits after each prefix of `tokens`, one token at a time with a KV cache (run.c's loop).
  Eigen::MatrixXf sequential_logits(std::span<const Token> tokens) const;
  // (N, V) logits at every tree node in one pass: the context (all but its last token) fills the
  // KV cache, then the root (the context's last token) and every node go through together, node v
  // at position |context| − 1 + depth(v), attending to the cache and to its ancestors and itself.
  Eigen::MatrixXf tree_logits(std::span<const Token> context, const DraftTree& tree) const;

 private:
  struct Cache;
  // Runs `tokens` at `positions` through the layers after `cache`, each seeing the whole cache and
  // the new tokens j with sees(i, j); appends their keys and values to the cache; returns (T, V) logits.
  Eigen::MatrixXf forward(Cache& cache, std::span<const Token> tokens,
                          std::span<const std::int32_t> positions,
                          const std::vector<std::vector<std::int32_t>>& sees) const;
  void require_fits(std::span<const Token> tokens, std::size_t length) const;

  std::shared_ptr<const Llama2Checkpoint> checkpoint_;
  std::int32_t layers_;
  std::string name_;
  std::vector<std::string> token_texts_;
};

}  // namespace tev::models
