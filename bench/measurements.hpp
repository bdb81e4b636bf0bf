#pragma once
// Timings behind `tevsuite bench` and the Google Benchmark programs: wall-clock medians over
// batches, measured side by side in one process.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench/workloads.hpp"
#include "sim/power.hpp"
#include "sim/suite.hpp"

namespace tev {

struct StageTiming {
  std::string verifier;
  int threads = 1;
  double micros_per_call = 0.0;  // median over batches: CPU time of the calling thread at 1 thread, wall time at 2
  double wall_micros_per_call = 0.0;  // median over batches, wall clock (what this run got on a shared machine)
  std::uint64_t calls = 0;
};

struct StageReport {
  std::int32_t budget = 0;
  double temperature = 1.0;
  std::int32_t vocab = 0;
  std::int32_t nodes = 0;
  std::int32_t internal = 0;  // rows TEV must normalize
  double ceiling = 0.0;       // 1 + C_p
  double mean_top1 = 0.0;
  std::vector<StageTiming> timings;
  // Per row, cycling over the workload's rows so each comes from memory as in a call (medians of
  // the calling thread's CPU time):
  double floor_micros = 0.0;     // the row floor: RowKernels::logsumexp, one blocked pass
  double internal_micros = 0.0;  // TEV's work on an internal row (total, rest, child masses)
  double draw_micros = 0.0;      // one draw: the blocked pass and the inverse CDF over its blocks
  double micros(const std::string& verifier, int threads) const;
};

// TEV (1 and 2 threads, level-parallel), lazy walk, eager predraw (1 and 2 threads), lazy
// predraw and sequential residual, each called repeatedly for about seconds_each.
StageReport measure_verifier_stage(const LiveWorkload& workload, double seconds_each);

struct ThroughputTiming {
  std::string verifier;  // or "philox-only" for the floor
  int threads = 1;
  double samples_per_second = 0.0;  // wall clock
  double core_rate = 0.0;           // threads × samples per CPU second: the rate on `threads` cores of one's own
};

struct ThroughputReport {
  std::int32_t budget = 64;
  std::int32_t vocab = 64;
  std::uint64_t samples = 0;
  std::vector<ThroughputTiming> timings;
  double rate(const std::string& verifier, int threads) const;
  double core_rate(const std::string& verifier, int threads) const;
};

// Fixed tree (DDTree, B = 64, V = 64): the Monte Carlo engine's samples per second for each
// fast-path verifier and for the same loop with the verifier replaced by Philox output alone.
ThroughputReport measure_montecarlo(std::uint64_t samples, int repeats);

// The fixed Monte Carlo tree: DDTree, B = 64, V = 64, Gaussian logits.
CheckCase montecarlo_case();

// What one minute of TEV sampling detects on the default `check` suite: the engine's rate measured
// for `seconds` over the suite's trees (all hardware threads, tables built per run as check does;
// by process CPU time, so other programs on a shared machine do not count),
// extrapolated to `budget_seconds`, the samples split evenly over the trees, and per tree the
// smallest contamination TV its χ² detects with 99 % power at the level check tests it at
// (verdict_policy's chi_square_level over the whole check's α); then a Monte Carlo spot check of
// the predicted power on the worst tree at a small budget.
struct DetectablePerMinute {
  double samples_per_second = 0.0;       // threads × samples per CPU second: on that many cores of one's own
  double wall_samples_per_second = 0.0;  // what this run got on the (shared) machine
  int threads = 1;
  double seconds_measured = 0.0;
  double budget_seconds = 60.0;
  std::uint64_t samples_per_tree = 0;
  double level = 0.0;                           // one tree's χ² level in the default check
  std::vector<std::optional<double>> tv;        // (trees) detectable TV; none: not detectable
  std::size_t worst_tree = 0;
  std::uint64_t spot_samples = 0;               // per replicate
  double spot_tv = 0.0;                         // detectable TV of the worst tree at spot_samples
  PowerSpotCheck spot;
};
DetectablePerMinute measure_detectable_per_minute(double seconds, double budget_seconds, int replicates);

// TEV and eager predraw on the GPU (CUDA events, median of `calls`), logits already on the device.
StageReport measure_verifier_stage_gpu(const LiveWorkload& workload, std::int32_t calls);

struct GpuThroughput {
  std::string verifier;
  double gpu_rate = 0.0;  // samples per second of the sampling kernel (best of the repeats)
  double cpu_rate = 0.0;  // samples per second of the CPU engine on cpu_threads threads, sampling alone as on the GPU
  int cpu_threads = 1;
  bool identical = true;  // GPU histograms == CPU histograms in every repeat
};

// GPU Monte Carlo against the CPU engine (all hardware threads) on the fixed tree, per fast-path verifier.
std::vector<GpuThroughput> measure_montecarlo_gpu(std::uint64_t samples, int repeats);

}  // namespace tev
