#pragma once
// `tevsuite conformance emit`: cases that cover the shapes and rows where verifiers go wrong.
#include <cstdint>
#include <string>
#include <vector>

#include "core/philox.hpp"

namespace tev::conformance {

struct EmitConfig {
  std::int32_t cases = 8;
  std::uint32_t seed = kDefaultSeed;
  std::int32_t vocab = 16;          // V of the small-vocabulary cases (≥ 4: a star needs 4 children)
  std::int32_t budget = 12;         // draft nodes per tree (a deep chain uses at least 6)
  std::uint64_t samples = 100000;   // per case: a stdlib Python TEV answers all 8 in ~10 s
  std::int32_t large_vocab = 50000; // V of the sparse-row case
  // The sparse-row case draws this many times `samples`: a worst-direction guarantee of TV 0.05
  // over its 50,000-token tails needs about 250,000 samples (~100,000 for the small-V cases).
  std::uint64_t large_vocab_sample_factor = 4;
};

// One JSON line per case, cycling through: random tree; DDTree-built; deep chain (depth ≥ 6);
// star with ≥ 4 children; complete 4-ary tree (every leaf at the maximum depth); near-deterministic
// rows (drafted children hold all but 1e-10 of each internal row); a large vocabulary with sparse
// rows; DDTree with near one-hot Dirichlet(0.05) rows.
std::vector<std::string> emit_cases(const EmitConfig& config);

struct ModelEmitConfig {
  std::int32_t cases = 8;          // they cycle through the 8 recipes of emit_model_cases
  std::uint64_t samples = 20000;   // per case: the stdlib Python example answers all 8 in ~10 s
};

// Model cases (format_version 2) over V = 4 with drafting depth D = 2, one JSON line each, covering
// every drafting policy of drafts/drafting.hpp as the case's hint (chain; k independent chains merged;
// k i.i.d. children; k without replacement; deterministic top-k) and every drafter kind of
// drafts/language_pair.hpp (perturbed target; a drafter that drafts tokens the target forbids; one
// that misses target mass). The pairs' rows are fixed (not seeded by the command line), so the
// instances where each planted bug is visible stay where they were measured.
std::vector<std::string> emit_model_cases(const ModelEmitConfig& config);

}  // namespace tev::conformance
