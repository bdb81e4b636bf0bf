#include "bench/stage_timing.hpp"

#include <algorithm>
#include <chrono>
#include <span>
#include <thread>

#include "core/sampling_tables.hpp"
#include "gpu/gpu_engine.hpp"
#include "montecarlo/monte_carlo.hpp"

namespace tev::bench {

StageReport measure_verifier_stage_gpu(const LiveWorkload& w, std::int32_t calls) {
  StageReport report = describe_workload(w);
  const gpu::StageTimings t = gpu::time_verifier_stage(w.tree, w.view(), calls);
  const auto counted = static_cast<std::uint64_t>(calls);
  report.gpu_floor_micros = t.floor_micros;
  report.timings.push_back({"tev (gpu)", 1, t.tev_micros, t.tev_micros, counted});
  report.timings.push_back(
      {"predraw (eager, gpu)", 1, t.predraw_micros, t.predraw_micros, counted});
  return report;
}

std::vector<GpuThroughput> measure_montecarlo_gpu(std::uint64_t samples, int repeats) {
  const workloads::CheckCase c = montecarlo_case();
  const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const montecarlo::MonteCarloPlan plan{
      .seed = 1, .tree_id = 0, .samples = samples, .first_sample = 0, .threads = threads};
  std::vector<GpuThroughput> rates;
  for (VerifierId id : {VerifierId::tree_exit, VerifierId::predraw, VerifierId::sequential_residual,
                        VerifierId::pathwise_walk}) {
    GpuThroughput r{std::string(verifier_info(id).name), 0.0, 0.0, threads, true};
    // Both rates time sampling alone: the CPU's tables are built here, outside its clock, as the
    // GPU's kernel time leaves out building and uploading them (run_monte_carlo's fast path otherwise).
    const FastPath path = verifier_info(id).fast_path;
    const TreeTables tables(c.tree, c.rows, child_order_for(id, c.tree, c.rows));
    montecarlo::BlockCounts cpu;
    for (int k = 0; k < repeats; ++k) {
      const auto start = std::chrono::steady_clock::now();
      cpu = montecarlo::tally_fast_path(path, c.tree, c.rows, tables.view(), plan);
      r.cpu_rate = std::max(
          r.cpu_rate,
          static_cast<double>(samples) /
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      double kernel_seconds = 0.0;
      const montecarlo::BlockCounts on_gpu =
          gpu::monte_carlo_batch(id, std::span(&c, 1), plan, &kernel_seconds).front();
      r.gpu_rate = std::max(r.gpu_rate, static_cast<double>(samples) / kernel_seconds);
      r.identical = r.identical && on_gpu == cpu;
    }
    rates.push_back(r);
  }
  return rates;
}

}  // namespace tev::bench
