// The GPU against the CPU: the same histograms bit for bit, and the CPU's verifier-stage blocks
// up to rounding.
// Every test skips, saying why, where no GPU can run.
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>
#include <utility>

#include "gpu/gpu_engine.hpp"
#include "gpu/stage_reference.hpp"
#include "bench/logit_workloads.hpp"

namespace tev::gpu {
namespace {

class Gpu : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string why = gpu::unavailable_reason();
    if (!why.empty()) GTEST_SKIP() << "GPU test skipped: " << why;
  }
};

// Samples per tree: TEV_GPU_SAMPLES (scripts/device-check.sh asks for millions), else a modest default.
std::uint64_t samples_per_tree() {
  const char* env = std::getenv("TEV_GPU_SAMPLES");
  const std::uint64_t samples = env ? std::stoull(env) : 200000;
  std::cout << "samples per tree: " << samples << " (TEV_GPU_SAMPLES)\n";
  return samples;
}

// Every fast-path verifier's GPU histograms over the suite, one batch, equal the CPU engine's, and
// so does the order of its samples' cells (serial mutants included: their samples read other
// samples' counters).
void expect_gpu_histograms_equal_cpu(const std::vector<workloads::CheckCase>& suite) {
  const montecarlo::MonteCarloPlan plan{
      .seed = 77,
      .tree_id = 3,
      .samples = samples_per_tree(),
      .first_sample = (std::uint64_t{1} << 32) - 1000,
      .threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency())),
      .record_order = true};
  for (const VerifierInfo& info : verifier_catalog()) {
    if (info.fast_path == FastPath::none) continue;
    const std::vector<montecarlo::BlockCounts> on_gpu =
        gpu::monte_carlo_batch(info.id, suite, plan);
    ASSERT_EQ(on_gpu.size(), suite.size());
    for (std::size_t i = 0; i < suite.size(); ++i) {
      montecarlo::MonteCarloPlan one = plan;
      one.tree_id = plan.tree_id + static_cast<std::uint32_t>(i);
      EXPECT_EQ(on_gpu[i], montecarlo::run_monte_carlo(info.id, suite[i].tree, suite[i].rows, one))
          << info.name << " tree " << i;
      EXPECT_EQ(on_gpu[i].samples, plan.samples);
      EXPECT_EQ(on_gpu[i].order.size(), plan.samples);
    }
  }
}

// Histograms small enough to count per block in shared memory (21 × 24 cells).
TEST_F(Gpu, MonteCarloHistogramsEqualTheCpuEngineBitForBit) {
  expect_gpu_histograms_equal_cpu(
      workloads::make_suite({.trees = 8, .vocab = 24, .budget = 20, .seed = 4242}).cases);
}

// Histograms too large for shared memory (9 × 2,048 cells, 147 KB) count in global memory.
TEST_F(Gpu, WideHistogramsCountedInGlobalMemoryEqualTheCpuEngineBitForBit) {
  expect_gpu_histograms_equal_cpu(
      workloads::make_suite({.trees = 2, .vocab = 2048, .budget = 8, .seed = 4243}).cases);
}

TEST_F(Gpu, EngineRunsVerifiersWithoutKernelsOnTheCpu) {
  const std::vector<workloads::CheckCase> suite =
      workloads::make_suite({.trees = 1, .vocab = 12, .budget = 8, .seed = 5}).cases;
  const montecarlo::MonteCarloPlan plan{
      .seed = 1, .tree_id = 0, .samples = 5000, .first_sample = 0, .threads = 1};
  for (VerifierId id : {VerifierId::first_child_chain, VerifierId::tree_exit}) {
    EXPECT_EQ(gpu::run_monte_carlo(id, suite[0].tree, suite[0].rows, plan),
              montecarlo::run_monte_carlo(id, suite[0].tree, suite[0].rows, plan))
        << verifier_info(id).name;
  }
}

// The verifier stage at V = 151,936 against core/logit_verifiers on the same draws: every GPU
// block must be the double-precision reference's answer up to expf's rounding (kGpuRowError),
// and where it differs from the CPU's block both must be rounding ties (see
// compare_stage_blocks; gpu_reference_tests checks that judge on the CPU, mutants included).
// Saturation is part of it: a bonus that is a drafted child's token is never an answer.
TEST_F(Gpu, VerifierStageBlocksAreTheCpuVerifiersUpToRounding) {
  constexpr std::int32_t kCalls = 200;
  const int threads = static_cast<int>(
      std::max(1u, std::thread::hardware_concurrency()));  // the CPU's blocks do not depend on it
  for (double temperature : {0.6, 1.0}) {
    const bench::LiveWorkload w = bench::make_live_workload(64, temperature);
    const gpu::StageTimings t = gpu::time_verifier_stage(w.tree, w.view(), kCalls);
    EXPECT_GT(t.floor_micros, 0.0);
    EXPECT_GT(t.tev_micros, 0.0);
    EXPECT_GT(t.predraw_micros, 0.0);
    for (const auto& [verifier, blocks] :
         {std::pair{gpu::StageVerifier::tev, &t.tev_blocks},
          std::pair{gpu::StageVerifier::predraw_eager, &t.predraw_blocks}}) {
      ASSERT_EQ(blocks->size(), static_cast<std::size_t>(kCalls));
      const gpu::StageAgreement a = gpu::compare_stage_blocks(
          verifier, w.tree, w.view(), *blocks,
          gpu::cpu_stage_blocks(verifier, w.tree, w.view(), kCalls, threads));
      std::cout << (verifier == gpu::StageVerifier::tev ? "tev" : "predraw")
                << " T = " << temperature << ": " << a.identical
                << " blocks identical to the CPU's, " << a.ties << " rounding ties, "
                << a.failures.size() << " wrong, of " << a.calls << '\n';
      EXPECT_TRUE(a.failures.empty())
          << a.failures.size() << " wrong blocks; first: " << a.failures.front();
    }
  }
}

}  // namespace
}  // namespace tev::gpu
