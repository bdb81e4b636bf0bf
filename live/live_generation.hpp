#pragma once
// The generation-level check (generation/check.hpp) on live's real models: a target and a drafter
// of models/ as a generation case's model pair, a prompt from real text, and requests whose
// processed rows (top-k small, a few new tokens) keep the enumeration of every loop exact over the
// full vocabulary.
#include <cstdint>
#include <iosfwd>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "generation/check.hpp"
#include "models/models.hpp"

namespace tev::live {

// A target and a drafter as the loops read them: a row's logits are the log of the model's row
// after the sequence, normalized (models::normalize_row at `row_tolerance`); −∞ where it has no
// mass. Penalties therefore act on log-probabilities (≤ 0). Every loop and request on the pair
// asks for the same few hundred rows, so the last `cache_rows` are kept (shared by all threads).
// Throws std::invalid_argument on a missing model, on models of two vocabularies and on a sequence
// holding a token outside the vocabulary; normalize_row's std::runtime_error on a broken row.
class LanguageModelPair final : public generation::ModelPair {
 public:
  LanguageModelPair(std::shared_ptr<const models::LanguageModel> target,
                    std::shared_ptr<const models::LanguageModel> drafter, double row_tolerance,
                    std::size_t cache_rows = 512);
  std::int32_t vocab() const override { return target_->vocab(); }
  std::vector<double> target_logits(std::span<const Token> sequence) const override;
  std::vector<double> draft_logits(std::span<const Token> sequence) const override;

 private:
  std::vector<double> logits(bool target, std::span<const Token> sequence) const;

  std::shared_ptr<const models::LanguageModel> target_, drafter_;
  double row_tolerance_;
  std::size_t cache_rows_;
  mutable std::mutex cache_mutex_;
  // Key: 1 for the target or 0 for the drafter, then the sequence. Emptied when full: rows are a
  // function of their key, so what is dropped is recomputed to the same numbers.
  mutable std::map<std::vector<Token>, std::shared_ptr<const std::vector<double>>> cache_;
};

// The model's begin token, then one token per word of `text` (split at spaces): the token whose
// text is the word, or the word after a space (a llama2.c tokenizer's pieces). Throws
// std::invalid_argument naming the first word no token spells.
std::vector<Token> encode_prompt(const models::LanguageModel& model, std::string_view text);

inline constexpr std::string_view kDefaultPrompt = "i think that";

// The requests on one pair, one per semantics and kind of carried state, as the synthetic cases
// (generation::default_generation_cases) have them; each request's stop word and grammar are read
// off the target's row after the prompt (its likeliest tokens), so they are the model's own.
// Case ids are "drafter/request".
std::vector<generation::GenerationCase> live_generation_cases(
    std::shared_ptr<const generation::ModelPair> pair, const models::LanguageModel& target,
    Token end_token, std::string_view drafter, std::span<const Token> prompt);

// Each generation draws over the full vocabulary (O(V) per draw), so fewer than check's default.
inline constexpr std::uint64_t kLiveGenerationSamples = 2000;

struct LiveGenerationOptions {
  models::ModelRequest models;
  std::string prompt{kDefaultPrompt};
  generation::GenerationCheckOptions check{.samples = kLiveGenerationSamples};
  double row_tolerance = models::kModelRowTolerance;
};

// Loads the models, builds the cases for each drafter and runs the check; the result's `models`
// names the target, the drafters and the prompt.
generation::GenerationCheckResult run_live_generation(const LiveGenerationOptions& options,
                                                      std::ostream& progress);

}  // namespace tev::live
