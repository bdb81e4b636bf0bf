#pragma once
// `tevsuite live`: the suite's checks on draft trees a real drafter builds for a real target, then
// speculative generation with TEV and the first generated word against the target's row, under one
// family-wise alpha (Bonferroni over the verifiers and the two test families).
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "live/live.hpp"
#include "models/models.hpp"
#include "montecarlo/ranks.hpp"
#include "judging/verdicts.hpp"

namespace tev::live {

struct LiveOptions {
  models::ModelRequest models;
  std::vector<TreeBuilder> builders = {TreeBuilder::ddtree, TreeBuilder::dynamic};
  std::int32_t contexts = 2;        // per drafter × builder
  std::int32_t context_length = 5;  // tokens sampled after the start token
  LiveTreeConfig tree;              // budget and temperature (builder from `builders`)
  judging::JudgingConfig judging;   // samples for fast-path verifiers, seed, threads, alpha
  std::uint64_t chooser_samples =
      2000;                  // samples for verifiers without a fast path (O(V) per draw)
  bool mutants = false;      // also run the planted mutants (O(N·V) per sample for several)
  std::int32_t rounds = 30;  // speculative generation rounds per drafter × builder
  std::uint64_t first_word_samples = 200000;
  std::string dump_dir;  // write every live tree here (on the process that writes files)
  std::string from_dir;  // check dumped trees instead of building them
};

struct LiveCase {
  workloads::CheckCase check_case;
  std::string drafter, builder, context_text;
  double root_kl = 0.0;
  double row_deviation = 0.0;
};

struct LiveGenerationRun {
  std::string drafter, builder;
  Generation generation;
  std::string prompt_text, continuation_text,
      text;  // the rendered prompt, what TEV generated after it, and both
};

// The first generated word of TEV's blocks on tree 0 against the target's exact next-word row.
struct FirstWordTest {
  std::uint64_t samples = 0;
  stats::ChiSquareResult chi_square;
  bool holds = false;
};

struct LiveResult {
  bool from_dumps = false;
  std::string target;  // the target's description (built trees only)
  std::vector<std::pair<std::string, std::string>> drafters;  // (name, model name)
  std::vector<LiveCase> cases;
  int alpha_shares = 1;  // the verifiers, plus the generation and first-word families
  std::vector<judging::VerifierReport> verifiers;
  std::vector<LiveGenerationRun> generations;  // empty for dumps
  double min_length_p_holm = 1.0;              // tokens per round vs 1 + C_p, Holm over the runs
  bool generation_holds = true;
  FirstWordTest first_word;
  double seconds = 0.0;
  bool passed = false;
  bool inconclusive = false;  // only 'inconclusive' verdicts stand in the way of a pass
  double share_alpha(double alpha) const { return alpha / alpha_shares; }
  // 0 every verdict holds, 4 only 'inconclusive' ones stand in the way, 1 otherwise.
  int exit_code() const;
};

// Builds (or reads) the trees, judges every verifier, generates and tests; progress lines go to
// `progress` and verifier_progress. The Monte Carlo runs are split over context.ranks; only a
// context that writes files writes the dumps.
LiveResult run_live_checks(const LiveOptions& options, const montecarlo::RunContext& context,
                           std::ostream& progress,
                           const judging::VerifierProgress& verifier_progress = {});

}  // namespace tev::live
