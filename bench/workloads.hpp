#pragma once
// Benchmark workloads: the verifier stage as an engine sees it (B + 1 rows of V float32 logits
// on a DDTree-built tree), and a fixed tree for Monte Carlo throughput.
#include <cstdint>
#include <vector>

#include "core/draft_tree.hpp"
#include "sim/logit_verifiers.hpp"

namespace tev {

inline constexpr std::int32_t kQwenVocab = 151936;

struct LiveWorkload {
  std::int32_t budget = 0;
  double temperature = 1.0;
  DraftTree tree;
  std::vector<float> logits;  // (N, V) row-major, the target's row at each node
  double mean_top1 = 0.0;     // mean top-1 probability of the rows at this temperature
  double ceiling = 0.0;       // 1 + C_p of the tree under these rows

  LogitRows view() const { return {logits.data(), tree.size(), tree.vocab, temperature}; }
};

// Live-like rows: a fixed pool of N(0, 1) logits, rotated per prefix, plus a favored token and a
// runner-up chosen by the prefix, boosted so that the mean top-1 probability at this temperature
// is about 0.6 (runner-up about 0.15). The drafter is the target with extra logit noise; DDTree
// builds the tree from its per-depth marginals along its own most likely chain.
LiveWorkload make_live_workload(std::int32_t budget, double temperature, std::int32_t vocab = kQwenVocab, std::uint32_t seed = 20261130);

}  // namespace tev
