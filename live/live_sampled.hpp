#pragma once
// `tevsuite live --drafts sampled`: q-based verifiers (core/rejection_sampling.hpp) and TEV on draft
// trees *sampled* from a real drafter's rows after a real context (drafts/drafting.hpp's policies over
// live rows), against the real target (the Sphinx trigram by default).
// - First word: a q-based verifier is exact only over the drafter's randomness, so every sample
//   drafts a fresh tree; the first emitted word is tested against the target's exact next-word row
//   (Pearson χ², pooled), judged by the verdict policy (judging/verdict_policy.hpp) with power at its
//   level. The first word's exact law over the root's drafts and tests is enumerated beside it.
// - Tokens per round: rounds of speculative generation (TEV's text advances), every round's one
//   drafted tree verified by TEV and by the q-based verifier, side by side.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/philox.hpp"
#include "stats/goodness_of_fit.hpp"
#include "models/models.hpp"
#include "models/language_model.hpp"
#include "drafts/sampled_verifiers.hpp"
#include "judging/verdict_policy.hpp"
#include "live/live_language_pair.hpp"

namespace tev::live {

struct LiveSampledOptions {
  std::int32_t context_length =
      5;  // tokens sampled from the target after <s> (the first-word context, the rounds' prompt)
  std::int32_t draft_depth = 2;  // D: the rounds' trees
  // The first-word test's trees. A q-based verifier decides the first word at the root, so its
  // first word's law is the same at any depth; a target-only verifier pays O(N·V) per fresh tree.
  std::int32_t first_word_depth = 1;
  std::int32_t draft_width = 2;              // k: drafts per node (i.i.d. and without replacement)
  std::int32_t top_k = 8;                    // the drafter's rows cut to their top_k words
  double temperature = 1.0;                  // target and drafter alike
  std::uint64_t first_word_samples = 12000;  // per case, each with a freshly sampled tree
  std::int32_t rounds = 40;                  // speculative generation rounds per drafter × policy
  std::int32_t draws_per_round = 20;         // verifications of each round's tree per verifier
  bool mutants = true;                       // two q-based mutants in the first-word test
  std::uint32_t seed = kDefaultSeed;
  int threads = 1;
  double alpha = judging::kDefaultAlpha;  // family-wise over the whole run
  double max_detectable_tv =
      judging::VerdictPolicy{}
          .max_detectable_tv;  // the TV every first-word case must guarantee for 'exact'
};

// One first-word case: a verifier on trees one drafter samples by one policy.
struct FirstWordCase {
  std::string drafter;
  drafts::SampledCase c;
  drafts::SampledKind kind = drafts::SampledKind::q_based;
  std::vector<std::uint64_t> counts;  // (V) first emitted word
  judging::TreeEvidence evidence;     // the χ² and the detectable TV the verdict policy reads
  std::optional<double>
      exact_tv;  // TV(first word's exact law, target row); none for target-only (exact on every tree)
  double predicted_power = 0.0;  // of the χ² at its level, from the exact law
  judging::Verdict verdict = judging::Verdict::
      inconclusive;  // the policy's: not exact, inconclusive, or exact (shown as such)
  bool caught_by_sampling = false;
  bool as_expected = false;
};

// Tokens per round on the same sampled trees: TEV and one q-based verifier, per drafter × policy.
struct RoundsComparison {
  std::string drafter;
  drafts::Drafting drafting;
  drafts::SampledVerifierId q_verifier = drafts::SampledVerifierId::speculative_sampling;
  std::int32_t rounds = 0, draws = 0;
  double tev_mean = 0.0,
         tev_se = 0.0;        // measured, standard error over rounds of the per-round means
  double ceiling_mean = 0.0;  // mean over rounds of 1 + C_p(T): TEV's exact E[L | T]
  double q_mean = 0.0, q_se = 0.0;
  double difference_mean = 0.0, difference_se = 0.0;  // q-based − TEV, paired by round
  double tev_p = 1.0;  // TEV's Σ L against the rounds' exact length laws (two-sided Chernoff bound)
  bool tev_holds = true;      // after Holm over the comparisons, at the saturation half of α
  std::vector<Token> tokens;  // prompt ‖ TEV's generated text
  std::string prompt_text,
      continuation_text;  // tokens rendered by the target: the prompt, and what TEV generated after it
};

struct LiveSampledResult {
  std::string target, description;
  std::vector<std::string> drafters;
  std::vector<double>
      root_tv;  // (drafters) TV(p, top-k q) at the first-word context: speculative sampling's rejection rate there
  std::vector<Token> context;     // the first-word context; also the rounds' prompt
  std::string context_text;       // the context rendered by the target
  double chi_square_level = 0.0;  // the Bonferroni level one first-word χ² is held to
  double exact_tolerance = 1e-12;
  std::vector<FirstWordCase> first_word;
  std::vector<RoundsComparison> rounds;
  double row_deviation = 0.0;
  judging::Verdict first_word_verdict =
      judging::Verdict::exact_saturated;  // worst over the exact verifiers
  bool passed = false;
  bool only_inconclusive = false;  // nothing fails but some exact verifier is unpowered
  double seconds = 0.0;  // wall time of the run (loading the models included where it loads them)
  // 0 when every verdict is the one its kind calls for, 4 when only unpowered ('inconclusive')
  // exact verifiers stand in the way, 1 otherwise.
  int exit_code() const;
};

// The first word's exact law (V) of a q-based verifier or mutant on trees the policy samples after
// the pair's context: enumerated over the root's drafts and tests (the first word is decided at the
// root), the root's bonus kept as one weighted row. None for target-only verifiers.
std::optional<std::vector<double>> first_word_law(const LiveLanguagePair& pair,
                                                  const drafts::SampledCase& c);

LiveSampledResult run_live_sampled(const models::ModelSet& models,
                                   const LiveSampledOptions& options, std::ostream& progress);
// Loads the models the request names, then runs the above (`tevsuite live --drafts sampled`).
LiveSampledResult run_live_sampled(const models::ModelRequest& request,
                                   const LiveSampledOptions& options, std::ostream& progress);

}  // namespace tev::live
