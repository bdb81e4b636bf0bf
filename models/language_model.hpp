#pragma once
// The suite's one next-token-model interface: the live harness's real targets and drafters (Sphinx,
// llama2.c), ExitTrain's frozen targets (synthetic and real), each a law over a fixed vocabulary.
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/draft_tree.hpp"

namespace tev::models {

class LanguageModel {
 public:
  virtual ~LanguageModel() = default;
  virtual std::string name() const = 0;
  virtual std::int32_t vocab() const = 0;
  virtual std::string token_text(Token t) const = 0;
  // The token every context starts from (<s>, BOS).
  virtual Token begin_token() const = 0;
  // p(· | context) over the whole vocabulary, as the model computes it: it may miss summing to 1
  // by the model's own rounding. Safe to call from several threads at once.
  virtual std::vector<double> next_row(std::span<const Token> context) const = 0;
  // Longest context ‖ path the model can read (a transformer's seq_len).
  virtual std::size_t max_length() const { return std::numeric_limits<std::size_t>::max(); }
  // Row of every node of a tree hung under the context (the root is the context's last token):
  // (N, V) row-major, row v = next_row(context ‖ π(v)). Transformers override this with one
  // tree-attention pass; the default asks next_row for each node, in parallel.
  virtual std::vector<double> tree_rows(std::span<const Token> context,
                                        const DraftTree& tree) const;
};

// context ‖ π(v): the context followed by the tokens on the path from the root to v.
std::vector<Token> context_with_path(std::span<const Token> context, const DraftTree& tree,
                                     NodeId v);

// Tokens as text joined by spaces (words for the Sphinx model).
std::string render_tokens(const LanguageModel& model, std::span<const Token> tokens);

// Largest |Σ row − 1| a model's own row may show. The Sphinx model's pruned backoff weights leave
// most rows within ~1e-3 of 1 but some far off (7.5e-2 seen after "must have able"); only a broken
// model goes past this.
inline constexpr double kModelRowTolerance = 0.25;

// Scales `row`, the model's row after `context`, to sum to 1 and returns how far its own total
// was from 1. Throws std::runtime_error naming the model and the context when that is beyond
// `tolerance`.
double normalize_row(std::span<double> row, const LanguageModel& model,
                     std::span<const Token> context, double tolerance = kModelRowTolerance);

// A model whose rows are normalized: every row of `model` through normalize_row, which throws on
// a row further than `tolerance` from 1 (ExitTrain needs exact laws; the Sphinx rows miss by ~1e-3).
class NormalizedModel final : public LanguageModel {
 public:
  NormalizedModel(std::shared_ptr<const LanguageModel> model, double tolerance);
  std::string name() const override { return model_->name(); }
  std::int32_t vocab() const override { return model_->vocab(); }
  std::string token_text(Token t) const override { return model_->token_text(t); }
  Token begin_token() const override { return model_->begin_token(); }
  std::size_t max_length() const override { return model_->max_length(); }
  std::vector<double> next_row(std::span<const Token> context) const override;
  std::vector<double> tree_rows(std::span<const Token> context,
                                const DraftTree& tree) const override;

 private:
  std::shared_ptr<const LanguageModel> model_;
  double tolerance_;
};

}  // namespace tev::models
