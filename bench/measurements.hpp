#pragma once
// Timings behind `tevsuite bench` and the Google Benchmark programs: wall-clock medians over
// batches, measured side by side in one process.
#include <cstdint>
#include <string>
#include <vector>

#include "bench/workloads.hpp"
#include "sim/suite.hpp"

namespace tev {

struct StageTiming {
  std::string verifier;
  int threads = 1;
  double micros_per_call = 0.0;  // median over batches
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
  double micros(const std::string& verifier, int threads) const;
};

// TEV (1 and 2 threads, level-parallel), lazy walk, eager predraw (1 and 2 threads), lazy
// predraw and sequential residual, each called repeatedly for about seconds_each.
StageReport measure_verifier_stage(const LiveWorkload& workload, double seconds_each);

struct ThroughputTiming {
  std::string verifier;  // or "philox-only" for the floor
  int threads = 1;
  double samples_per_second = 0.0;
};

struct ThroughputReport {
  std::int32_t budget = 64;
  std::int32_t vocab = 64;
  std::uint64_t samples = 0;
  std::vector<ThroughputTiming> timings;
  double rate(const std::string& verifier, int threads) const;
};

// Fixed tree (DDTree, B = 64, V = 64): the Monte Carlo engine's samples per second for each
// fast-path verifier and for the same loop with the verifier replaced by Philox output alone.
ThroughputReport measure_montecarlo(std::uint64_t samples, int repeats);

// The fixed Monte Carlo tree: DDTree, B = 64, V = 64, Gaussian logits.
SuiteCase montecarlo_case();

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
