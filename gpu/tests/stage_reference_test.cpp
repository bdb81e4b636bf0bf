// The CPU half of the GPU verifier-stage test (gpu_test.cpp): the double-precision reference and
// the comparison that judge the GPU's blocks, run here on CPU blocks so that a judge that cannot
// fail, or fails right answers, shows without a device. Every mutant (a bug a kernel could have)
// must be caught on the same draws.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <map>

#include "core/sampling.hpp"
#include "gpu/device_api.hpp"
#include "gpu/stage_reference.hpp"
#include "bench/logit_workloads.hpp"

namespace tev::gpu {
namespace {

constexpr std::int32_t kCalls = 60;
constexpr double kTemperature = 0.6;

// Qwen-sized rows (V = 151,936) on a DDTree tree of B = 16, built once.
const bench::LiveWorkload& workload() {
  static const bench::LiveWorkload w = bench::make_live_workload(16, kTemperature);
  return w;
}

// core/logit_verifiers' blocks on the workload, computed once per verifier.
const std::vector<Block>& cpu_blocks(StageVerifier verifier) {
  static std::map<StageVerifier, std::vector<Block>> blocks;
  auto [at, added] = blocks.try_emplace(verifier);
  if (added) at->second = cpu_stage_blocks(verifier, workload().tree, workload().view(), kCalls);
  return at->second;
}

StageAgreement judge(StageVerifier verifier, const std::vector<Block>& device,
                     double device_error = kGpuRowError) {
  const bench::LiveWorkload& w = workload();
  return compare_stage_blocks(verifier, w.tree, w.view(), device, cpu_blocks(verifier),
                              device_error);
}

std::size_t caught(const char* story, const StageAgreement& a) {
  std::cout << story << ": caught in " << a.failures.size() << " of " << a.calls << " calls"
            << (a.failures.empty() ? "" : " (first: " + a.failures.front() + ")") << '\n';
  return a.failures.size();
}

// TEV's bonus at `exit` from the exit's row without its children (residual), or with them.
Token tev_bonus(NodeId exit, double u, bool residual) {
  const bench::LiveWorkload& w = workload();
  RowExps row(w.tree.vocab);
  row.compute(w.view().row(exit), w.temperature);
  std::vector<Token> children;
  for (NodeId c = w.tree.first_child[exit];
       residual && c < w.tree.first_child[exit] + w.tree.child_count[exit]; ++c)
    children.push_back(w.tree.token[c]);
  return row.draw(u, children, row.total_without(children));
}

TEST(StageReference, CpuBlocksAreTheReferenceAnswersUpToTheirRounding) {
  for (StageVerifier verifier : {StageVerifier::tev, StageVerifier::predraw_eager}) {
    const StageAgreement a = judge(verifier, cpu_blocks(verifier), kCpuRowError);
    EXPECT_EQ(a.identical, kCalls);
    EXPECT_TRUE(a.failures.empty()) << a.failures.front();
  }
}

// Logits one ulp up change every e_a by about 1.6e-6 (|l| < 16 at T = 0.6), a rounding-sized change
// within kCpuRowError: blocks may differ from the CPU's, but only as rounding ties.
TEST(StageReference, RoundingSizedChangesAreTiesNotFailures) {
  const bench::LiveWorkload& w = workload();
  std::vector<float> nudged = w.logits;
  for (float& l : nudged) l = std::nextafter(l, INFINITY);
  const LogitRows rows{nudged.data(), w.tree.size(), w.tree.vocab, w.temperature};
  for (StageVerifier verifier : {StageVerifier::tev, StageVerifier::predraw_eager}) {
    const StageAgreement a =
        judge(verifier, cpu_stage_blocks(verifier, w.tree, rows, kCalls), kCpuRowError);
    std::cout << "one ulp up: " << a.identical << " identical, " << a.ties << " ties of " << a.calls
              << '\n';
    EXPECT_EQ(a.identical + a.ties, kCalls);
    EXPECT_TRUE(a.failures.empty()) << a.failures.front();
  }
}

TEST(StageReference, MutantBlocksAreCaught) {
  const bench::LiveWorkload& w = workload();
  for (StageVerifier verifier : {StageVerifier::tev, StageVerifier::predraw_eager}) {
    // A kernel that reads the next call's sample index (random numbers reused across calls).
    std::vector<Block> shifted = cpu_stage_blocks(verifier, w.tree, w.view(), kCalls + 1);
    shifted.erase(shifted.begin());
    EXPECT_GT(caught("next call's draws", judge(verifier, shifted)), 0u);
    // A kernel that ignores the temperature (P, ρ and every draw at T = 1).
    const LogitRows at_one{w.logits.data(), w.tree.size(), w.tree.vocab, 1.0};
    EXPECT_GT(caught("temperature ignored",
                     judge(verifier, cpu_stage_blocks(verifier, w.tree, at_one, kCalls))),
              0u);
    // An off-by-one token index in the draw's scan.
    std::vector<Block> off_by_one = cpu_blocks(verifier);
    for (Block& b : off_by_one) b.bonus = (b.bonus + 1) % w.tree.vocab;
    EXPECT_GT(caught("bonus token off by one", judge(verifier, off_by_one)), 0u);
  }
  std::vector<Block> full_row, reversed_exits, by_depth;
  LogitScratch scratch(w.tree.vocab, w.tree.size());
  for (std::int32_t i = 0; i < kCalls; ++i) {
    const DrawCounter draws(stage_draw_site(static_cast<std::uint64_t>(i)));
    DrawCounter tev_draws = draws;
    const Block b =
        tev_from_logits(w.tree, w.view(), tev_draws, scratch);  // leaves w in scratch.exit
    // TEV's bonus from the exit's full row instead of its residual.
    full_row.push_back({b.exit, tev_bonus(b.exit, draws.at(1), false)});
    // The exit drawn against w cumulated in reverse node order.
    std::vector<double> reversed(scratch.exit.rbegin(), scratch.exit.rend()),
        cumulative(reversed.size());
    cumulate(reversed.data(), w.tree.size(), cumulative.data());
    const NodeId exit =
        w.tree.size() - 1 - pick_cumulative(cumulative.data(), w.tree.size(), draws.at(0));
    reversed_exits.push_back({exit, tev_bonus(exit, draws.at(1), true)});
    // Predraw drawing with the depth as the draw index instead of the node.
    DrawCounter lazy_draws = draws;
    by_depth.push_back(predraw_lazy_from_logits(w.tree, w.view(), lazy_draws, scratch));
  }
  EXPECT_GT(caught("TEV bonus from the full row", judge(StageVerifier::tev, full_row)), 0u);
  EXPECT_GT(caught("TEV exit order reversed", judge(StageVerifier::tev, reversed_exits)), 0u);
  EXPECT_GT(caught("predraw draw index = depth", judge(StageVerifier::predraw_eager, by_depth)),
            0u);
}

// A right device block beside a wrong CPU block is a failure too: the disagreement is no tie.
TEST(StageReference, AWrongCpuBlockIsAFailure) {
  const bench::LiveWorkload& w = workload();
  const std::vector<Block>& right = cpu_blocks(StageVerifier::tev);
  std::vector<Block> wrong = right;
  for (Block& b : wrong) b.bonus = (b.bonus + 1) % w.tree.vocab;
  const StageAgreement a = compare_stage_blocks(StageVerifier::tev, w.tree, w.view(), right, wrong);
  EXPECT_EQ(a.identical, 0);
  ASSERT_FALSE(a.failures.empty());
  EXPECT_NE(a.failures.front().find("no rounding tie"), std::string::npos) << a.failures.front();
}

}  // namespace
}  // namespace tev::gpu
