#include <gtest/gtest.h>

#include "core/choosers.hpp"
#include "core/sampling_tables.hpp"
#include "montecarlo/monte_carlo.hpp"
#include "workloads/suite.hpp"

namespace tev::montecarlo {
namespace {

std::vector<workloads::CheckCase> small_suite() {
  return workloads::make_suite({.trees = 8, .vocab = 12, .budget = 10, .seed = 404}).cases;
}

TEST(MonteCarlo, HistogramsDoNotDependOnTheThreadCount) {
  const auto suite = small_suite();
  for (VerifierId id : {VerifierId::tree_exit, VerifierId::first_child_chain,
                        VerifierId::mutant_bonus_from_full_row}) {
    for (std::size_t i = 0; i < suite.size(); i += 3) {
      MonteCarloPlan plan{.seed = 17,
                          .tree_id = static_cast<std::uint32_t>(i),
                          .samples = 30001,
                          .first_sample = 5,
                          .threads = 1};
      const BlockCounts one = run_monte_carlo(id, suite[i].tree, suite[i].rows, plan);
      EXPECT_EQ(one.samples, 30001u);
      for (int threads : {2, 4}) {
        plan.threads = threads;
        EXPECT_EQ(run_monte_carlo(id, suite[i].tree, suite[i].rows, plan), one)
            << verifier_info(id).name << " tree " << i << " threads " << threads;
      }
    }
  }
}

TEST(MonteCarlo, DisjointSampleRangesAddUpToTheWholeRun) {
  const auto suite = small_suite();
  const MonteCarloPlan whole{
      .seed = 3, .tree_id = 1, .samples = 20000, .first_sample = 0, .threads = 2};
  MonteCarloPlan first = whole, second = whole;
  first.samples = 7000;
  second.first_sample = 7000;
  second.samples = 13000;
  BlockCounts merged = run_monte_carlo(VerifierId::predraw, suite[1].tree, suite[1].rows, first);
  merged.merge(run_monte_carlo(VerifierId::predraw, suite[1].tree, suite[1].rows, second));
  EXPECT_EQ(merged, run_monte_carlo(VerifierId::predraw, suite[1].tree, suite[1].rows, whole));
}

// The fast per-sample kernels (and their table-driven completion) must reproduce their
// chooser-path verifiers and complete_block block for block, both drawing two uniforms per Philox
// block (the fast path's layout).
TEST(FastPath, EqualsTheChooserPathSampleBySample) {
  const auto suite = small_suite();
  for (const VerifierInfo& info : verifier_catalog()) {
    if (info.fast_path == FastPath::none) continue;
    for (std::size_t i = 0; i < suite.size(); ++i) {
      const workloads::CheckCase& c = suite[i];
      const auto tree_id = static_cast<std::uint32_t>(i);
      const TreeTables tables(c.tree, c.rows, child_order_for(info.id, c.tree, c.rows));
      PhiloxChooser chooser({0, Stream::verifier, 0, 0}, DrawLayout::two_per_block);
      PhiloxChooser completion({0, Stream::completion, 0, 0}, DrawLayout::two_per_block);
      for (std::uint64_t s = 0; s < 20000; ++s) {
        chooser.restart({99, Stream::verifier, tree_id, s});
        completion.restart({99, Stream::completion, tree_id, s});
        const Block slow = run_verifier(info.id, c.tree, c.rows, chooser);
        const SampledBlock fast = sample_fast(info.fast_path, tables.view(), 99, tree_id, s);
        ASSERT_EQ(slow, fast.returned) << info.name << " tree " << i << " sample " << s;
        ASSERT_EQ(complete_block(c.tree, c.rows, slow, completion), fast.completed)
            << info.name << " tree " << i << " sample " << s;
      }
    }
  }
}

// The plan's samples of sample_fast (the kernel the GPU runs) tallied one by one.
BlockCounts tally_of_sample_fast(FastPath path, const DraftTree& tree, const TreeTablesView& view,
                                 const MonteCarloPlan& plan) {
  BlockCounts counts(tree.size(), tree.vocab);
  for (std::uint64_t s = plan.first_sample; s < plan.first_sample + plan.samples; ++s) {
    const SampledBlock b = sample_fast(path, view, plan.seed, plan.tree_id, s);
    counts.add(tree, b.returned, b.completed);
  }
  return counts;
}

// The engine draws in batches (TEV phase by phase over kSampleBatch samples); its histograms must
// be a tally of sample_fast, sample by sample — the kernel the GPU runs — for every fast path, with
// a sample range that starts and ends inside a batch.
TEST(FastPath, EngineHistogramsTallySampleFastSampleBySample) {
  const auto suite = small_suite();
  for (const VerifierInfo& info : verifier_catalog()) {
    if (info.fast_path == FastPath::none) continue;
    for (std::size_t i = 0; i < suite.size(); i += 2) {
      const workloads::CheckCase& c = suite[i];
      const MonteCarloPlan plan{.seed = 23,
                                .tree_id = static_cast<std::uint32_t>(i),
                                .samples = 12347,
                                .first_sample = 9,
                                .threads = 2};
      const TreeTables tables(c.tree, c.rows, child_order_for(info.id, c.tree, c.rows));
      EXPECT_EQ(run_monte_carlo(info.id, c.tree, c.rows, plan),
                tally_of_sample_fast(info.fast_path, c.tree, tables.view(), plan))
          << info.name << " tree " << i;
    }
  }
}

// TEV's batches skip completion when no block of the batch needs it. With its bonus drawn from the
// full row p_v instead of the residual (a broken table), blocks do need it: the engine must then
// complete and count exactly as sample_fast does, sample by sample.
TEST(FastPath, TevBatchesCompleteBlocksWhenATableIsBroken) {
  const auto suite = small_suite();
  std::uint64_t completions = 0;
  for (std::size_t i = 0; i < suite.size(); i += 2) {
    const workloads::CheckCase& c = suite[i];
    const MonteCarloPlan plan{.seed = 29,
                              .tree_id = static_cast<std::uint32_t>(i),
                              .samples = 5003,
                              .first_sample = 3,
                              .threads = 2};
    const TreeTables tables(c.tree, c.rows, child_order_for(VerifierId::tree_exit, c.tree, c.rows));
    TreeTablesView broken = tables.view();
    broken.residual_cum = broken.row_cum;
    broken.residual_guide = broken.row_guide;
    const BlockCounts got = tally_fast_path(FastPath::tree_exit, c.tree, c.rows, broken, plan);
    EXPECT_EQ(got, tally_of_sample_fast(FastPath::tree_exit, c.tree, broken, plan)) << "tree " << i;
    completions += got.completions;
  }
  EXPECT_GT(completions, 0u)
      << "the broken table never drew a drafted token: this test exercises nothing";
}

}  // namespace
}  // namespace tev::montecarlo
