#pragma once
// Benchmark workloads: the verifier stage as an engine sees it (B + 1 rows of V float32 logits
// on a DDTree-built tree), and a fixed tree for Monte Carlo throughput, shared by the CPU timings,
// the GPU timings (bench/stage_timing) and the tests on live-sized rows.
#include <cstdint>
#include <string>
#include <vector>

#include "core/draft_tree.hpp"
#include "core/philox.hpp"
#include "core/logit_verifiers.hpp"
#include "workloads/suite.hpp"

namespace tev::bench {

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
LiveWorkload make_live_workload(std::int32_t budget, double temperature,
                                std::int32_t vocab = kQwenVocab, std::uint32_t seed = kDefaultSeed);

struct StageTiming {
  std::string verifier;
  int threads = 1;
  double micros_per_call =
      0.0;  // median over batches: CPU time of the calling thread at 1 thread, wall time at 2
  double wall_micros_per_call =
      0.0;  // median over batches, wall clock (what this run got on a shared machine)
  std::uint64_t calls = 0;
};

// The verifier stage's timings on one workload, on the CPU (bench/measurements) or the GPU
// (bench/stage_timing).
struct StageReport {
  std::int32_t budget = 0;
  double temperature = 1.0;
  std::int32_t vocab = 0;
  std::int32_t nodes = 0;
  std::int32_t internal = 0;  // rows TEV must normalize
  double ceiling = 0.0;       // 1 + C_p
  double mean_top1 = 0.0;
  std::vector<StageTiming> timings;
  double gpu_floor_micros = 0.0;  // on the GPU, per call: every row read once (a log-sum-exp)
  // Per row, cycling over the workload's rows so each comes from memory as in a call (medians of
  // the calling thread's CPU time):
  double floor_micros = 0.0;     // the row floor: RowKernels::logsumexp, one blocked pass
  double internal_micros = 0.0;  // TEV's work on an internal row (total, rest, child masses)
  double draw_micros = 0.0;      // one draw: the blocked pass and the inverse CDF over its blocks
  double micros(const std::string& verifier, int threads) const;
};

// The workload's columns of a report, before any timing.
StageReport describe_workload(const LiveWorkload& workload);

// The fixed Monte Carlo tree: DDTree, B = 64, V = 64, Gaussian logits.
inline constexpr std::int32_t kMonteCarloBudget = 64;
inline constexpr std::int32_t kMonteCarloVocab = 64;
workloads::CheckCase montecarlo_case();

}  // namespace tev::bench
