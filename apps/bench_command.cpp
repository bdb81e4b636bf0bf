// `tevsuite bench [--device cpu|gpu] verifier | montecarlo | power`: measured speed (never part of ctest).
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

#include "bench/tables.hpp"
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
  double power_seconds = 5.0;
  double power_budget = 60.0;
  int power_replicates = 200;
};
}  // namespace

Command register_bench(CLI::App& app, const montecarlo::RunContext& context) {
  auto s = std::make_shared<BenchState>();
  auto* bench = app.add_subcommand(
      "bench",
      "Measure speed (never part of ctest): the verifier stage on Qwen-sized logit rows, Monte "
      "Carlo throughput, or the TV a minute of sampling detects.");
  bench->require_subcommand(1);
  bench
      ->add_option("--device", s->device,
                   "cpu, or gpu: the GPU kernels (TEV and predraw verifier stage; Monte Carlo "
                   "against the CPU engine)")
      ->check(CLI::IsMember({"cpu", "gpu"}))
      ->capture_default_str();
  auto* bench_verifier =
      bench->add_subcommand("verifier",
                            "TEV level-parallel, lazy walk, eager and lazy predraw, sequential "
                            "residual on B + 1 rows of V float32 logits\n"
                            "(B = 32, 64, 128; T = 0.6, 1.0), 1 and 2 threads, with the ratios of "
                            "the performance goals.");
  bench_verifier->add_option("--vocab", s->vocab, "vocabulary size")
      ->check(CLI::Range(64, 1 << 20))
      ->capture_default_str();
  bench_verifier->add_option("--seconds", s->seconds, "time per verifier and workload")
      ->check(CLI::Range(0.05, 60.0))
      ->capture_default_str();
  auto* bench_mc = bench->add_subcommand("montecarlo",
                                         "Monte Carlo samples per second per verifier and for the "
                                         "Philox-only floor, 1 and 2 threads.");
  bench_mc->add_option("--samples", s->samples, "samples per timed run")
      ->check(CLI::Range(std::uint64_t{1000}, std::uint64_t{1} << 34))
      ->capture_default_str();
  bench_mc->add_option("--repeats", s->repeats, "runs per measurement (best is kept)")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  auto* bench_power =
      bench->add_subcommand("power",
                            "Detectable TV per minute: TEV's samples per second on the default "
                            "check suite's trees (measured for --seconds,\n"
                            "extrapolated to --budget seconds), and per tree the worst-direction "
                            "TV detected with 99 % power at the level the\n"
                            "default check tests one tree at; then a Monte Carlo spot check of "
                            "that predicted power at a small budget.");
  bench_power->add_option("--seconds", s->power_seconds, "seconds to measure the sampling rate")
      ->check(CLI::Range(0.5, 600.0))
      ->capture_default_str();
  bench_power
      ->add_option("--budget", s->power_budget, "sampling budget in seconds to extrapolate to")
      ->check(CLI::Range(1.0, 86400.0))
      ->capture_default_str();
  bench_power
      ->add_option("--replicates", s->power_replicates,
                   "spot-check replicates (20,000 samples each)")
      ->check(CLI::Range(10, 10000))
      ->capture_default_str();
  for (CLI::App* cmd : {bench_verifier, bench_mc, bench_power}) {
    cmd->add_option("--json", s->json_path, "also write the measurements as JSON");
    cmd->fallthrough();  // `bench verifier --device gpu` as well as `bench --device gpu verifier`
  }

  return {bench, [s, bench_verifier, bench_power, context] {
            const bool gpu = s->device == "gpu";
            if (gpu && bench_power->parsed())
              throw std::invalid_argument("bench power runs on the CPU only");
            if (gpu && gpu_unavailable(std::cerr)) return 2;
            reports::ResultsWriter json(s->json_path, context);
            if (bench_power->parsed())
              return bench::run_bench_power(s->power_seconds, s->power_budget, s->power_replicates,
                                            json, std::cout);
            if (bench_verifier->parsed()) {
              return gpu ? bench::run_bench_verifier_gpu(s->vocab, json, std::cout, std::cerr)
                         : bench::run_bench_verifier(s->vocab, s->seconds, json, std::cout,
                                                     std::cerr);
            }
            return gpu ? bench::run_bench_montecarlo_gpu(s->samples, s->repeats, json, std::cout)
                       : bench::run_bench_montecarlo(s->samples, s->repeats, json, std::cout);
          }};
}

}  // namespace tev::apps
