#include "bench/measurements.hpp"

#include <algorithm>
#include <chrono>
#include <functional>
#include <thread>

#include "core/sampling_tables.hpp"
#include "gpu/gpu_engine.hpp"
#include "sim/monte_carlo.hpp"
#include "sim/suite.hpp"

namespace tev {

namespace {

using Clock = std::chrono::steady_clock;

// Results land here so the optimizer cannot drop the timed calls.
volatile std::uint64_t g_sink = 0;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Median seconds per call over batches of calls; a batch lasts at least 20 ms.
double median_seconds_per_call(const std::function<void(std::uint64_t)>& call, double seconds_total, std::uint64_t& calls) {
  std::vector<double> per_call;
  const auto start = Clock::now();
  std::uint64_t index = 0;
  while (seconds_since(start) < seconds_total || per_call.size() < 3) {
    const auto batch_start = Clock::now();
    std::uint64_t in_batch = 0;
    while (seconds_since(batch_start) < 0.02 || in_batch == 0) {
      call(index++);
      ++in_batch;
    }
    per_call.push_back(seconds_since(batch_start) / static_cast<double>(in_batch));
  }
  calls = index;
  std::sort(per_call.begin(), per_call.end());
  return per_call[per_call.size() / 2];
}

// The workload's columns of a report, before any timing.
StageReport describe_workload(const LiveWorkload& w) {
  StageReport report;
  report.budget = w.budget;
  report.temperature = w.temperature;
  report.vocab = w.tree.vocab;
  report.nodes = w.tree.size();
  report.internal = static_cast<std::int32_t>(std::count_if(w.tree.child_count.begin(), w.tree.child_count.end(), [](std::int32_t c) { return c > 0; }));
  report.ceiling = w.ceiling;
  report.mean_top1 = w.mean_top1;
  return report;
}

}  // namespace

SuiteCase montecarlo_case() {
  const ThroughputReport defaults;
  const SuiteConfig config{.trees = 1, .vocab = defaults.vocab, .budget = defaults.budget, .seed = 20261130};
  return make_case(TreeShape::ddtree, {RowFamily::gaussian_logits, 3.0, 1.0}, 2, config, 0);
}

double StageReport::micros(const std::string& verifier, int threads) const {
  for (const StageTiming& t : timings) {
    if (t.verifier == verifier && t.threads == threads) return t.micros_per_call;
  }
  return 0.0;
}

double ThroughputReport::rate(const std::string& verifier, int threads) const {
  for (const ThroughputTiming& t : timings) {
    if (t.verifier == verifier && t.threads == threads) return t.samples_per_second;
  }
  return 0.0;
}

StageReport measure_verifier_stage(const LiveWorkload& w, double seconds_each) {
  StageReport report = describe_workload(w);
  LogitScratch scratch(w.tree.vocab, w.tree.size());
  const LogitRows rows = w.view();
  using Verify = std::function<Block(DrawCounter&)>;
  const std::vector<std::tuple<std::string, int, Verify>> cases = {
      {"tev (level-parallel)", 1, [&](DrawCounter& d) { return tev_from_logits(w.tree, rows, d, scratch, 1); }},
      {"tev (level-parallel)", 2, [&](DrawCounter& d) { return tev_from_logits(w.tree, rows, d, scratch, 2); }},
      {"walk (lazy)", 1, [&](DrawCounter& d) { return walk_from_logits(w.tree, rows, d, scratch); }},
      {"predraw (eager)", 1, [&](DrawCounter& d) { return predraw_eager_from_logits(w.tree, rows, d, scratch, 1); }},
      {"predraw (eager)", 2, [&](DrawCounter& d) { return predraw_eager_from_logits(w.tree, rows, d, scratch, 2); }},
      {"predraw (lazy)", 1, [&](DrawCounter& d) { return predraw_lazy_from_logits(w.tree, rows, d, scratch); }},
      {"sequential residual", 1, [&](DrawCounter& d) { return sequential_residual_from_logits(w.tree, rows, d, scratch); }},
  };
  for (const auto& [name, threads, verify] : cases) {
    StageTiming t{name, threads, 0.0, 0};
    t.micros_per_call = 1e6 * median_seconds_per_call(
                                  [&](std::uint64_t i) {
                                    DrawCounter draws({20261130, Stream::verifier, 0, i});
                                    const Block b = verify(draws);
                                    g_sink = g_sink + static_cast<std::uint64_t>(b.exit) + static_cast<std::uint64_t>(b.bonus);
                                  },
                                  seconds_each, t.calls);
    report.timings.push_back(t);
  }
  return report;
}

ThroughputReport measure_montecarlo(std::uint64_t samples, int repeats) {
  ThroughputReport report;
  report.samples = samples;
  const SuiteCase c = montecarlo_case();
  const NodeId leaf = c.tree.size() - 1;  // the last node in level order is a leaf: no completion
  auto best_rate = [&](const std::function<void()>& run) {
    double best = 0.0;
    for (int r = 0; r < repeats; ++r) {
      const auto start = Clock::now();
      run();
      best = std::max(best, static_cast<double>(samples) / seconds_since(start));
    }
    return best;
  };
  for (int threads : {1, 2}) {
    const MonteCarloPlan plan{.seed = 1, .tree_id = 0, .samples = samples, .first_sample = 0, .threads = threads};
    for (VerifierId id : {VerifierId::tree_exit, VerifierId::predraw, VerifierId::sequential_residual, VerifierId::pathwise_walk}) {
      report.timings.push_back({std::string(verifier_info(id).name), threads, best_rate([&] { run_monte_carlo(id, c.tree, c.rows, plan); })});
    }
    report.timings.push_back({"philox-only", threads, best_rate([&] {
                                count_blocks(c.tree, c.rows, plan, [&](const DrawSite& site, PhiloxChooser&) {
                                  DrawCounter draws(site);
                                  const auto token = static_cast<Token>(draws.next() * c.tree.vocab);
                                  return Block{leaf, std::min(token, c.tree.vocab - 1)};
                                });
                              })});
  }
  return report;
}

StageReport measure_verifier_stage_gpu(const LiveWorkload& w, std::int32_t calls) {
  StageReport report = describe_workload(w);
  const gpu::StageTimings t = gpu::time_verifier_stage(w.tree, w.view(), calls);
  const auto counted = static_cast<std::uint64_t>(calls);
  report.timings.push_back({"tev (gpu)", 1, t.tev_micros, counted});
  report.timings.push_back({"predraw (eager, gpu)", 1, t.predraw_micros, counted});
  return report;
}

std::vector<GpuThroughput> measure_montecarlo_gpu(std::uint64_t samples, int repeats) {
  const SuiteCase c = montecarlo_case();
  const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const MonteCarloPlan plan{.seed = 1, .tree_id = 0, .samples = samples, .first_sample = 0, .threads = threads};
  std::vector<GpuThroughput> rates;
  for (VerifierId id : {VerifierId::tree_exit, VerifierId::predraw, VerifierId::sequential_residual, VerifierId::pathwise_walk}) {
    GpuThroughput r{std::string(verifier_info(id).name), 0.0, 0.0, threads, true};
    // Both rates time sampling alone: the CPU's tables are built here, outside its clock, as the
    // GPU's kernel time leaves out building and uploading them (run_monte_carlo's fast path otherwise).
    const FastPath path = verifier_info(id).fast_path;
    const TreeTables tables(c.tree, c.rows, child_order_for(id, c.tree, c.rows));
    BlockCounts cpu;
    for (int k = 0; k < repeats; ++k) {
      const auto start = Clock::now();
      cpu = tally_samples(c.tree, c.rows, plan, [&] {
        return [&](std::uint64_t s) { return sample_fast(path, tables.view(), plan.seed, plan.tree_id, s); };
      });
      r.cpu_rate = std::max(r.cpu_rate, static_cast<double>(samples) / seconds_since(start));
      double kernel_seconds = 0.0;
      const BlockCounts on_gpu = gpu::monte_carlo_batch(id, std::span(&c, 1), plan, &kernel_seconds).front();
      r.gpu_rate = std::max(r.gpu_rate, static_cast<double>(samples) / kernel_seconds);
      r.identical = r.identical && on_gpu == cpu;
    }
    rates.push_back(r);
  }
  return rates;
}

}  // namespace tev
