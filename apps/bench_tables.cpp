#include "apps/bench_tables.hpp"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <ostream>
#include <stdexcept>
#include <thread>

#include "bench/measurements.hpp"
#include "core/row_kernels.hpp"
#include "reports/results_writer.hpp"

namespace tev {

namespace {

std::string fmt(double x, const char* spec = "%.3g") {
  char buf[48];
  std::snprintf(buf, sizeof buf, spec, x);
  return buf;
}

std::string goal(bool met) { return met ? "met" : "NOT met"; }


}  // namespace

int run_bench_verifier(std::int32_t vocab, double seconds_each, ResultsWriter& json, std::ostream& out, std::ostream& progress) {
  nlohmann::json j;
  j["format_version"] = 1;
  j["command"] = "bench verifier";
  j["hardware_threads"] = std::thread::hardware_concurrency();
  j["row_kernels"] = row_kernels().name;
  out << "Verifier stage: N = B + 1 rows of V = " << vocab << " float32 logits, DDTree trees; median microseconds per call\n"
      << "Row kernels: " << row_kernels().name << " (TEV_ROW_KERNEL=baseline|avx2|avx512 picks another)\n";
  std::vector<StageReport> reports;
  for (double temperature : {0.6, 1.0}) {
    for (std::int32_t budget : {32, 64, 128}) {
      progress << "  B = " << budget << ", T = " << temperature << " ..." << std::flush;
      reports.push_back(measure_verifier_stage(make_live_workload(budget, temperature, vocab), seconds_each));
      progress << " done\n";
    }
  }
  const std::vector<std::pair<std::string, int>> columns = {{"tev (level-parallel)", 1}, {"tev (level-parallel)", 2}, {"walk (lazy)", 1},
                                                            {"predraw (eager)", 1},      {"predraw (eager)", 2},      {"predraw (lazy)", 1},
                                                            {"sequential residual", 1}};
  out << "\n   B    T  nodes internal  1+C_p  top-1 |";
  for (const auto& [name, threads] : columns) out << ' ' << name << " x" << threads << " |";
  out << '\n';
  for (const StageReport& r : reports) {
    out << fmt(r.budget, "%4.0f") << ' ' << fmt(r.temperature, "%4.1f") << ' ' << fmt(r.nodes, "%6.0f") << ' ' << fmt(r.internal, "%8.0f") << ' '
        << fmt(r.ceiling, "%6.3f") << ' ' << fmt(r.mean_top1, "%6.3f") << " |";
    for (const auto& [name, threads] : columns) out << ' ' << fmt(r.micros(name, threads), "%8.0f") << " |";
    out << '\n';
    nlohmann::json row = {{"budget", r.budget}, {"temperature", r.temperature}, {"vocab", r.vocab}, {"nodes", r.nodes},
                          {"internal_nodes", r.internal}, {"ceiling", r.ceiling}, {"mean_top1", r.mean_top1}};
    for (const StageTiming& t : r.timings) row["micros_per_call"].push_back({{"verifier", t.verifier}, {"threads", t.threads}, {"micros", t.micros_per_call}, {"calls", t.calls}});
    j["workloads"].push_back(row);
  }
  out << "\nRatios (measured side by side in this run):\n";
  bool all_met = true;
  for (const StageReport& r : reports) {
    const double eager = r.micros("predraw (eager)", 1);
    const double tev1 = r.micros("tev (level-parallel)", 1), tev2 = r.micros("tev (level-parallel)", 2);
    const double walk = r.micros("walk (lazy)", 1);
    const double tev_ratio = eager / tev1;
    out << "  B = " << r.budget << ", T = " << r.temperature << ": eager predraw / TEV = " << fmt(tev_ratio, "%.2f") << " (1 thread; goal >= 2: "
        << goal(tev_ratio >= 2.0) << "), with 2 threads TEV " << fmt(tev2, "%.0f") << " us; eager predraw / lazy walk = " << fmt(eager / walk, "%.1f");
    all_met = all_met && tev_ratio >= 2.0;
    if (r.budget == 64) {
      double fastest = walk;
      for (const auto& [name, threads] : columns) {
        if (threads == 1) fastest = std::min(fastest, r.micros(name, threads));
      }
      out << " (goal >= 10 at B = 64: " << goal(eager / walk >= 10.0) << "); fastest exact verifier " << fmt(fastest, "%.0f")
          << " us per call on one core (goal < 500: " << goal(fastest < 500.0) << ")";
      all_met = all_met && eager / walk >= 10.0 && fastest < 500.0;
    }
    out << '\n';
  }
  j["all_goals_met"] = all_met;
  json.write(j, out);
  return 0;
}

int run_bench_montecarlo(std::uint64_t samples, int repeats, ResultsWriter& json, std::ostream& out) {
  const ThroughputReport r = measure_montecarlo(samples, repeats);
  out << "Monte Carlo throughput: DDTree B = " << r.budget << ", V = " << r.vocab << ", " << samples << " samples per run, best of " << repeats
      << "; million samples per second\n\n";
  out << "verifier              1 thread   2 threads\n";
  nlohmann::json j;
  j["format_version"] = 1;
  j["command"] = "bench montecarlo";
  j["samples"] = samples;
  for (const char* name : {"tev", "predraw", "sequential-residual", "walk", "philox-only"}) {
    out << std::string(name) + std::string(std::max<std::size_t>(1, 21 - std::string(name).size()), ' ') << fmt(r.rate(name, 1) / 1e6, "%8.1f") << "   "
        << fmt(r.rate(name, 2) / 1e6, "%8.1f") << '\n';
    j["rates"].push_back({{"verifier", name}, {"threads_1", r.rate(name, 1)}, {"threads_2", r.rate(name, 2)}});
  }
  const double tev2 = r.rate("tev", 2), floor2 = r.rate("philox-only", 2);
  out << "\nTEV on 2 threads: " << fmt(tev2 / 1e6, "%.1f") << " M samples/s (goal >= 100: " << goal(tev2 >= 1e8) << "); Philox-only / TEV = "
      << fmt(floor2 / tev2, "%.2f") << " (goal <= 3: " << goal(floor2 / tev2 <= 3.0) << ")\n";
  j["tev_2_threads"] = tev2;
  j["floor_over_tev"] = floor2 / tev2;
  json.write(j, out);
  return 0;
}

int run_bench_verifier_gpu(std::int32_t vocab, ResultsWriter& json, std::ostream& out, std::ostream& progress) {
  constexpr std::int32_t kCalls = 200;
  nlohmann::json j;
  j["format_version"] = 1;
  j["command"] = "bench verifier --device gpu";
  out << "Verifier stage on the GPU: N = B + 1 rows of V = " << vocab << " float32 logits already on the device, DDTree trees;\n"
      << "median microseconds per call over " << kCalls << " calls (CUDA events)\n\n   B    T  nodes internal  1+C_p |      TEV | predraw (eager) | predraw / TEV\n";
  for (double temperature : {0.6, 1.0}) {
    for (std::int32_t budget : {32, 64, 128}) {
      progress << "  B = " << budget << ", T = " << temperature << " ..." << std::flush;
      const StageReport r = measure_verifier_stage_gpu(make_live_workload(budget, temperature, vocab), kCalls);
      progress << " done\n";
      const double tev = r.micros("tev (gpu)", 1), predraw = r.micros("predraw (eager, gpu)", 1);
      out << fmt(r.budget, "%4.0f") << ' ' << fmt(r.temperature, "%4.1f") << ' ' << fmt(r.nodes, "%6.0f") << ' ' << fmt(r.internal, "%8.0f") << ' '
          << fmt(r.ceiling, "%6.3f") << " | " << fmt(tev, "%8.1f") << " | " << fmt(predraw, "%14.1f") << " | " << fmt(predraw / tev, "%13.2f") << '\n';
      j["workloads"].push_back({{"budget", r.budget}, {"temperature", r.temperature}, {"vocab", r.vocab}, {"nodes", r.nodes},
                                {"internal_nodes", r.internal}, {"ceiling", r.ceiling}, {"tev_micros", tev}, {"predraw_micros", predraw}});
    }
  }
  json.write(j, out);
  return 0;
}

int run_bench_montecarlo_gpu(std::uint64_t samples, int repeats, ResultsWriter& json, std::ostream& out) {
  const std::vector<GpuThroughput> rates = measure_montecarlo_gpu(samples, repeats);
  const ThroughputReport fixed;
  out << "Monte Carlo on the GPU against the CPU engine: DDTree B = " << fixed.budget << ", V = " << fixed.vocab << ", " << samples
      << " samples per run, best of " << repeats << "; million samples per second\n(sampling alone, tables built beforehand; GPU: the sampling kernel, CUDA events)\n\n"
      << "verifier              GPU        CPU (threads)   GPU / CPU   identical histograms\n";
  nlohmann::json j;
  j["format_version"] = 1;
  j["command"] = "bench montecarlo --device gpu";
  j["samples"] = samples;
  bool identical = true;
  for (const GpuThroughput& r : rates) {
    out << r.verifier << std::string(std::max<std::size_t>(1, 20 - r.verifier.size()), ' ') << fmt(r.gpu_rate / 1e6, "%9.1f") << "  "
        << fmt(r.cpu_rate / 1e6, "%9.1f") << " (" << r.cpu_threads << ")" << fmt(r.gpu_rate / r.cpu_rate, "%11.1f") << "   "
        << (r.identical ? "yes" : "NO") << '\n';
    j["rates"].push_back({{"verifier", r.verifier}, {"gpu", r.gpu_rate}, {"cpu", r.cpu_rate}, {"cpu_threads", r.cpu_threads}, {"identical", r.identical}});
    identical = identical && r.identical;
  }
  j["identical"] = identical;
  json.write(j, out);
  return identical ? 0 : 1;
}

}  // namespace tev
