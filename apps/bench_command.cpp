// `tevsuite bench [--device cpu|gpu] verifier | montecarlo`: measured speed (never part of ctest).
#include <iostream>
#include <memory>
#include <string>

#include "apps/bench_tables.hpp"
#include "apps/commands.hpp"

namespace tev::apps {

namespace {
struct BenchState {
  std::string device = "cpu";
  std::string json_path;
  std::int32_t vocab = 151936;
  double seconds = 0.5;
  std::uint64_t samples = std::uint64_t{1} << 24;
  int repeats = 3;
};
}  // namespace

Command register_bench(CLI::App& app, const RunContext& context) {
  auto s = std::make_shared<BenchState>();
  auto* bench = app.add_subcommand("bench", "Measure speed (never part of ctest): the verifier stage on Qwen-sized logit rows, or Monte Carlo throughput.");
  bench->require_subcommand(1);
  bench->add_option("--device", s->device, "cpu, or gpu: the GPU kernels (TEV and predraw verifier stage; Monte Carlo against the CPU engine)")
      ->check(CLI::IsMember({"cpu", "gpu"}))->capture_default_str();
  auto* bench_verifier = bench->add_subcommand(
      "verifier", "TEV level-parallel, lazy walk, eager and lazy predraw, sequential residual on B + 1 rows of V float32 logits\n"
                  "(B = 32, 64, 128; T = 0.6, 1.0), 1 and 2 threads, with the ratios of the performance goals.");
  bench_verifier->add_option("--vocab", s->vocab, "vocabulary size")->check(CLI::Range(64, 1 << 20))->capture_default_str();
  bench_verifier->add_option("--seconds", s->seconds, "time per verifier and workload")->check(CLI::Range(0.05, 60.0))->capture_default_str();
  auto* bench_mc = bench->add_subcommand("montecarlo", "Monte Carlo samples per second per verifier and for the Philox-only floor, 1 and 2 threads.");
  bench_mc->add_option("--samples", s->samples, "samples per timed run")->check(CLI::Range(std::uint64_t{1000}, std::uint64_t{1} << 34))->capture_default_str();
  bench_mc->add_option("--repeats", s->repeats, "runs per measurement (best is kept)")->check(CLI::Range(1, 100))->capture_default_str();
  for (CLI::App* cmd : {bench_verifier, bench_mc}) {
    cmd->add_option("--json", s->json_path, "also write the measurements as JSON");
    cmd->fallthrough();  // `bench verifier --device gpu` as well as `bench --device gpu verifier`
  }

  return {bench, [s, bench_verifier, context] {
            const bool gpu = s->device == "gpu";
            if (gpu && gpu_unavailable(std::cerr)) return 2;
            ResultsWriter json(s->json_path, context);
            if (bench_verifier->parsed()) {
              return gpu ? run_bench_verifier_gpu(s->vocab, json, std::cout, std::cerr)
                         : run_bench_verifier(s->vocab, s->seconds, json, std::cout, std::cerr);
            }
            return gpu ? run_bench_montecarlo_gpu(s->samples, s->repeats, json, std::cout) : run_bench_montecarlo(s->samples, s->repeats, json, std::cout);
          }};
}

}  // namespace tev::apps
