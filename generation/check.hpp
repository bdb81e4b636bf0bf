#pragma once
// `tevsuite check --generation`: every generation loop of the catalog (generation/loops.hpp) on
// the default generation cases, each judged against the exact law of plain generation under the
// same request: by enumeration (to the verdict policy's tolerance) and by sampling (the identity
// test over emitted sequences and the tests of independence over consecutive generations), one
// subject of the verdict policy per loop.
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "generation/judge.hpp"

namespace tev::generation {

// The default generation cases: one request per semantics and per kind of carried state (stops
// and min_tokens, penalties, a grammar), over synthetic n-gram pairs of V = 5 tokens; with
// `semantics`, only its requests (a loop that implements one engine's sampler is judged on that
// engine's requests alone).
std::vector<GenerationCase> default_generation_cases(
    std::optional<Semantics> semantics = std::nullopt);

struct GenerationCheckOptions {
  std::uint64_t samples = 40000;  // generations per loop and case
  std::uint32_t seed = kDefaultSeed;
  double alpha = judging::kDefaultAlpha;  // family-wise, split evenly over the loops judged
  // Sampling calls a loop exact only where every law (and dependence between consecutive
  // generations) this far from plain generation's is rejected with 99 % power.
  double max_detectable_tv = judging::VerdictPolicy{}.max_detectable_tv;
  int threads = 1;
  // Only the requests in these semantics (all when empty).
  std::optional<Semantics> semantics = std::nullopt;
};

struct CaseOutcome {
  judging::TreeEvidence evidence;  // samples, impossible ones, identity and independence tests,
                                   // exact TV and the sampled test's power against the exact law
  std::string first_impossible;
  double exact_tokens_per_round = 0.0;  // E[length] / E[rounds] by enumeration (descriptive)
  double tokens_per_round = 0.0;        // the same, sampled
  LargestDifference largest;            // the sequence the loop moves most
  double enumeration_seconds = 0.0;     // wall time of the loop's exact law
  double sampling_seconds = 0.0;        // wall time of its generations
};

struct LoopOutcome {
  Loop loop;
  std::vector<CaseOutcome> cases;  // one per case, in case order
  judging::SubjectVerdict verdict;
  double max_exact_tv = 0.0;
  std::size_t worst_case = 0;  // the case of the largest exact TV
  bool caught_by_enumeration = false;
  bool caught_by_sampling = false;
  bool sampling_missed = false;  // some case predicted ≥ 99 % power and sampling did not reject
  // A faulty loop whose law equals plain generation's on every request judged (exact TV within
  // the policy's tolerance): its fault never shows in them. Only a selection of the requests may
  // leave a fault unexercised; the default requests exercise every one.
  bool exercised = true;
  // Judged as an exact loop: an exact loop, or, on a selection, a fault it does not exercise.
  bool judged_exact = false;
  bool as_expected = false;  // exact loops exact; faulty ones caught by enumeration and by
                             // sampling wherever its predicted power is ≥ 99 %; on a selection,
                             // a fault it does not exercise judged exact
};

struct GenerationCheckResult {
  std::string models;  // what the cases run on, in words; empty for the synthetic pairs
  std::vector<GenerationCase> cases;
  std::vector<ExactGeneration> references;  // (cases) plain generation's exact law
  std::vector<double> reference_seconds;    // (cases) wall time of each reference law
  std::vector<LoopOutcome> loops;
  judging::VerdictPolicy policy;  // one loop's share of α
  bool passed() const;
  // Every loop as expected but for loops judged exact that the sampled tests cannot yet call exact
  // (their enumeration found them exact): too few generations, not a failure.
  bool inconclusive() const;
  int exit_code() const { return passed() ? 0 : inconclusive() ? 4 : 1; }
};

// The seed of an engine loop's call `call` on request `request` (its index among the requests
// judged), 64 bits of the engine_generation_loops stream keyed by the check's seed.
std::uint64_t loop_call_seed(std::uint32_t seed, std::size_t request, std::uint64_t call);

// Progress names each loop as it is judged, with its time. On the default cases, or on `cases`
// (each validated against its models' vocabulary); either way only the requests in
// options.semantics where it is set. Throws std::invalid_argument when no request is left.
GenerationCheckResult run_generation_check(const GenerationCheckOptions& options,
                                           std::ostream& progress);
GenerationCheckResult run_generation_check(std::vector<GenerationCase> cases,
                                           const GenerationCheckOptions& options,
                                           std::ostream& progress);

// The generations of one loop on one case, on the generation_runs stream (tree word: the loop's
// index · cases + the case's), identical for any thread count.
GenerationSamples sample_generations(const GenerationCase& c, const Loop& loop,
                                     const SequenceCells& cells, std::uint64_t samples,
                                     std::uint32_t seed, std::uint32_t site, int threads);

}  // namespace tev::generation
