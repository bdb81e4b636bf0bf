#pragma once
// Multi-round composition (paper, appendix A.1): verifiers run round after round on trees a
// different drafter builds, and the law of the first n generated tokens is compared with the exact
// law the target assigns to every sequence of n tokens.
#include <cstdint>
#include <string>
#include <vector>

#include "stats/law_identity.hpp"
#include "core/philox.hpp"
#include "stats/goodness_of_fit.hpp"
#include "core/verifier_catalog.hpp"
#include "montecarlo/ranks.hpp"

namespace tev::experiments {

struct CompositionConfig {
  std::int32_t vocab = 4;   // V; the exact law has V^tokens cells
  std::int32_t tokens = 5;  // n
  std::int32_t budget = 6;  // DDTree budget per round
  std::int32_t depth = 3;   // drafter horizon H
  std::int32_t rounds =
      3;  // every sequence runs this many rounds (tokens per round over fixed rounds)
  std::uint64_t sequences = 100000;
  std::uint32_t seed = kDefaultSeed;
  int threads = 1;
  montecarlo::Ranks ranks{};  // the processes the sequences are split over (montecarlo/ranks.hpp)
  stats::TestLevel
      level{};  // the level each verifier's identity test is held to (its id: the verifier's index)
};

struct CompositionResult {
  std::string verifier;
  bool reuses_randomness = false;     // the planted mutant: every round draws the same uniforms
  stats::ChiSquareResult chi_square;  // identity test: first n tokens vs the exact V^n law
  double tokens_per_round = 0.0;      // mean L over the fixed rounds
  double ceiling_per_round = 0.0;     // mean 1 + C_p of the realized trees over the same rounds
  double exact_mass_checked = 0.0;    // Σ of the exact law (1 up to rounding)
};

// An order-2 autoregressive target over V tokens (rows Dirichlet(0.7) per context pair), a
// drafter with perturbed rows, DDTree from the drafter's per-depth marginals along its own most
// likely chain, and each verifier in `ids` plus the randomness-reusing TEV mutant.
std::vector<CompositionResult> run_composition(const CompositionConfig& config,
                                               const std::vector<VerifierId>& ids);

}  // namespace tev::experiments
