// The GPU against the CPU: the same histograms bit for bit, and valid verifier-stage blocks.
// Every test skips, saying why, where no GPU can run.
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>

#include "bench/workloads.hpp"
#include "gpu/gpu_engine.hpp"

namespace tev {
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

TEST_F(Gpu, MonteCarloHistogramsEqualTheCpuEngineBitForBit) {
  const std::vector<SuiteCase> suite = make_suite({.trees = 8, .vocab = 24, .budget = 20, .seed = 4242});
  const MonteCarloPlan plan{.seed = 77, .tree_id = 3, .samples = samples_per_tree(), .first_sample = (std::uint64_t{1} << 32) - 1000,
                            .threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))};
  for (const VerifierInfo& info : verifier_catalog()) {
    if (info.fast_path == FastPath::none) continue;
    const std::vector<BlockCounts> on_gpu = gpu::monte_carlo_batch(info.id, suite, plan);
    ASSERT_EQ(on_gpu.size(), suite.size());
    for (std::size_t i = 0; i < suite.size(); ++i) {
      MonteCarloPlan one = plan;
      one.tree_id = plan.tree_id + static_cast<std::uint32_t>(i);
      EXPECT_EQ(on_gpu[i], run_monte_carlo(info.id, suite[i].tree, suite[i].rows, one)) << info.name << " tree " << i;
      EXPECT_EQ(on_gpu[i].samples, plan.samples);
    }
  }
}

TEST_F(Gpu, EngineRunsVerifiersWithoutKernelsOnTheCpu) {
  const std::vector<SuiteCase> suite = make_suite({.trees = 1, .vocab = 12, .budget = 8, .seed = 5});
  const MonteCarloPlan plan{.seed = 1, .tree_id = 0, .samples = 5000, .first_sample = 0, .threads = 1};
  for (VerifierId id : {VerifierId::first_child_chain, VerifierId::tree_exit}) {
    EXPECT_EQ(gpu::run_monte_carlo(id, suite[0].tree, suite[0].rows, plan), run_monte_carlo(id, suite[0].tree, suite[0].rows, plan))
        << verifier_info(id).name;
  }
}

// Both verifiers are saturated: the bonus is never a drafted child's token of the exit (TEV
// draws it from the residual, predraw would have followed that child).
TEST_F(Gpu, VerifierStageBlocksAreValidAndSaturated) {
  const LiveWorkload w = make_live_workload(32, 1.0, 5000);
  const gpu::StageTimings t = gpu::time_verifier_stage(w.tree, w.view(), 50);
  ASSERT_EQ(t.tev_blocks.size(), 50u);
  ASSERT_EQ(t.predraw_blocks.size(), 50u);
  for (const auto* blocks : {&t.tev_blocks, &t.predraw_blocks}) {
    for (const Block& b : *blocks) {
      ASSERT_GE(b.exit, 0);
      ASSERT_LT(b.exit, w.tree.size());
      ASSERT_GE(b.bonus, 0);
      ASSERT_LT(b.bonus, w.tree.vocab);
      EXPECT_EQ(w.tree.child_with_token(b.exit, b.bonus), kNoNode) << "bonus " << b.bonus << " is a drafted child's token at node " << b.exit;
    }
  }
  EXPECT_GT(t.tev_micros, 0.0);
  EXPECT_GT(t.predraw_micros, 0.0);
}

}  // namespace
}  // namespace tev
