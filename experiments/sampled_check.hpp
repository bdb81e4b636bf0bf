#pragma once
// `tevsuite check --drafts sampled`: verifiers on drafts sampled from q, judged for conditional and
// marginal exactness (judging/sampled_law.hpp), with exact E[L] per (drafting policy, verifier).
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "core/philox.hpp"
#include "drafts/language_pair.hpp"
#include "judging/sampled_law.hpp"
#include "judging/verdict_policy.hpp"

namespace tev::experiments {

struct SampledCheckOptions {
  std::int32_t vocab = 4;  // V: p's H-token law has V^H cells
  std::int32_t depth = 2;  // D: drafting depth limit; H = D + 1
  std::int32_t width = 2;  // k: drafts per node (chains, i.i.d., without replacement, top-k)
  std::uint64_t samples = 200000;  // Monte Carlo samples per (case, language pair)
  std::uint32_t seed = kDefaultSeed;
  int threads = 1;
  double alpha = judging::kDefaultAlpha;  // family-wise over the whole check
};

struct SampledCheckResult {
  std::vector<drafts::LanguagePair> pairs;
  std::vector<judging::SampledEvidence> evidence;  // (cases, pairs) row-major
  std::vector<judging::SampledVerdict> verdicts;   // one per case
  double test_alpha = 0.0;                         // each chi-square test's Bonferroni level
  double seconds = 0.0;
  // target-only: exact conditionally and marginally; q-based: exact marginally only; typical
  // acceptance and mutants: not exact, caught as required.
  bool passed = false;
  int exit_code() const { return passed ? 0 : 1; }
};

// Refuses (std::invalid_argument) a setting whose eager enumeration would draft too many trees;
// progress names each case as it runs.
SampledCheckResult run_sampled_check(const SampledCheckOptions& options, std::ostream& progress);

}  // namespace tev::experiments
