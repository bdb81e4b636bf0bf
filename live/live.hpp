#pragma once
// Live draft trees: a real drafter builds the tree under a context sampled from the real target,
// and the target's rows on every node make it a case the suite's checks run on unchanged.
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "core/draft_tree.hpp"
#include "core/exit_law.hpp"
#include "core/target_rows.hpp"
#include "core/verifier_catalog.hpp"
#include "models/language_model.hpp"

namespace tev::live {

enum class TreeBuilder {
  ddtree,  // DDTree best-first over per-depth marginals of the drafter run along its own argmax chain
  dynamic,  // EAGLE-2-style best-first over the drafter's per-node conditional rows
};
std::string builder_name(TreeBuilder builder);

struct LiveTreeConfig {
  std::int32_t budget = 16;  // non-root nodes
  double temperature = 1.0;  // applied to target and drafter rows alike
  TreeBuilder builder = TreeBuilder::ddtree;
  double row_tolerance =
      models::kModelRowTolerance;  // largest |Σ row − 1| accepted from either model
};

struct LiveTree {
  std::vector<Token> context;  // the committed tokens; the root is the last of them
  DraftTree tree;              // level order
  TargetRows rows;             // target rows at temperature, normalized
  std::vector<double>
      draft_log_q;  // (N) log q(token of v) under the draft row that ranked it; 0 at the root
  double row_deviation = 0.0;  // largest |Σ row − 1| of the target's own rows, before normalization
  double root_kl = 0.0;  // KL(target ‖ drafter) of the next-token rows after the context, nats
};

// p^(1/T) renormalized; T = 1 returns the row unchanged.
std::vector<double> apply_temperature(std::span<const double> row, double temperature);

LiveTree build_live_tree(const models::LanguageModel& target, const models::LanguageModel& drafter,
                         std::span<const Token> context, const LiveTreeConfig& config);

// Contexts drawn from the model itself: begin_token, then `length` tokens sampled from its rows
// with `avoid` (an end-of-text token, or kNoToken) never drawn, so every context is mid-text.
// Context i is id i of uses::sequences.
std::vector<std::vector<Token>> sample_contexts(const models::LanguageModel& model,
                                                std::int32_t count, std::int32_t length,
                                                std::uint32_t seed, Token avoid);

// Speculative generation with one verifier: each round builds a live tree at the current context,
// verifies it once (round r draws from id r of uses::generation_rounds) and appends π(V) ‖ Y.
// Stops early when the next tree would not fit the target's max_length.
struct Generation {
  std::vector<Token> tokens;  // the prompt context followed by everything generated
  std::int64_t rounds = 0;
  std::int64_t emitted = 0;            // Σ L
  double ceiling_sum = 0.0;            // Σ (1 + C_p) of the rounds' trees
  std::vector<LengthLaw> length_laws;  // (rounds) each round's tree's exact law of L
  double row_deviation = 0.0;  // largest |Σ row − 1| of the target's rows over the rounds
  double mean_length() const {
    return rounds ? static_cast<double>(emitted) / static_cast<double>(rounds) : 0.0;
  }
  double mean_ceiling() const { return rounds ? ceiling_sum / static_cast<double>(rounds) : 0.0; }
  // Two-sided p of Σ L against Σ (1 + C_p): rounds are independent given their trees, and the
  // Chernoff bound of the sum under the rounds' exact length laws holds however rare a long path.
  double length_p() const;
};
Generation speculative_generate(const models::LanguageModel& target,
                                const models::LanguageModel& drafter, std::span<const Token> prompt,
                                const LiveTreeConfig& config, VerifierId verifier,
                                std::int32_t rounds, std::uint32_t seed);

// The live-tree dump: a conformance case (format_version, case_id, vocab, parents, tokens, probs
// dense or sparse, samples) with the live fields next to it (kind "tevsuite-live-tree", model,
// drafter, builder, temperature, context, context_text, token_text, draft_log_q). Any stack can
// write one; `tevsuite live --from DIR` and `tevsuite conformance` both read it.
struct LiveDumpInfo {
  std::string id, model, drafter, builder;
  double temperature = 1.0;
};
void write_live_dump(const std::filesystem::path& file, const LiveTree& live,
                     const LiveDumpInfo& info, const models::LanguageModel& target,
                     std::uint64_t samples);
struct LoadedLiveTree {
  LiveTree live;
  LiveDumpInfo info;
};
// Throws conformance::InputError naming the file and the problem.
LoadedLiveTree read_live_dump(const std::filesystem::path& file);

}  // namespace tev::live
