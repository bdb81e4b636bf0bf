#pragma once
// Timings behind `tevsuite bench --device gpu`: the GPU's verifier stage and Monte Carlo rate on
// the same workloads as the CPU timings in bench/ (plain C++ in both builds; without CUDA each
// throws gpu::unavailable_reason's message through the stub).
#include <cstdint>
#include <string>
#include <vector>

#include "bench/logit_workloads.hpp"

namespace tev::bench {

// TEV and eager predraw on the GPU (CUDA events, median of `calls`), logits already on the device.
StageReport measure_verifier_stage_gpu(const LiveWorkload& workload, std::int32_t calls);

struct GpuThroughput {
  std::string verifier;
  double gpu_rate = 0.0;  // samples per second of the sampling kernel (best of the repeats)
  double cpu_rate =
      0.0;  // samples per second of the CPU engine on cpu_threads threads, sampling alone as on the GPU
  int cpu_threads = 1;
  bool identical = true;  // GPU histograms == CPU histograms in every repeat
};

// GPU Monte Carlo against the CPU engine (all hardware threads) on the fixed tree, per fast-path verifier.
std::vector<GpuThroughput> measure_montecarlo_gpu(std::uint64_t samples, int repeats);

}  // namespace tev::bench
