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

// Sample first_sample + k's cell sits at k of the recorded order, whichever thread drew it: the
// same order for any thread count, on the fast path, the chooser path and a serial mutant alike,
// and its tally is the histogram.
TEST(MonteCarlo, RecordedOrderDoesNotDependOnTheThreadCount) {
  const auto suite = small_suite();
  for (VerifierId id : {VerifierId::tree_exit, VerifierId::first_child_chain,
                        VerifierId::mutant_replayed_exit_lag2}) {
    for (std::size_t i = 0; i < suite.size(); i += 3) {
      MonteCarloPlan plan{.seed = 19,
                          .tree_id = static_cast<std::uint32_t>(i),
                          .samples = 20011,
                          .first_sample = 7,
                          .threads = 1,
                          .record_order = true};
      const BlockCounts one = run_monte_carlo(id, suite[i].tree, suite[i].rows, plan);
      ASSERT_EQ(one.order.size(), plan.samples);
      std::vector<std::uint64_t> tally(one.completed.size(), 0);
      for (std::int64_t cell : one.order) ++tally[static_cast<std::size_t>(cell)];
      EXPECT_EQ(tally, one.completed) << verifier_info(id).name << " tree " << i;
      for (int threads : {2, 4}) {
        plan.threads = threads;
        EXPECT_EQ(run_monte_carlo(id, suite[i].tree, suite[i].rows, plan).order, one.order)
            << verifier_info(id).name << " tree " << i << " threads " << threads;
      }
      plan.record_order = false;
      EXPECT_TRUE(run_monte_carlo(id, suite[i].tree, suite[i].rows, plan).order.empty());
    }
  }
}

// On the fast path sample s's recorded cell is sample_fast's completed block for s.
TEST(MonteCarlo, RecordedOrderIsSampleFastSampleBySample) {
  const auto suite = small_suite();
  const workloads::CheckCase& c = suite[2];
  const MonteCarloPlan plan{.seed = 5,
                            .tree_id = 2,
                            .samples = 3001,
                            .first_sample = 60,
                            .threads = 2,
                            .record_order = true};
  for (VerifierId id : {VerifierId::predraw, VerifierId::mutant_mirrored_exit_lag1}) {
    const VerifierInfo& info = verifier_info(id);
    const TreeTables tables(c.tree, c.rows, child_order_for(id, c.tree, c.rows));
    const BlockCounts counts = run_monte_carlo(id, c.tree, c.rows, plan);
    for (std::uint64_t k = 0; k < plan.samples; ++k) {
      const Block b =
          sample_fast(info.fast_path, tables.view(), plan.seed, plan.tree_id, plan.first_sample + k)
              .completed;
      ASSERT_EQ(counts.order[k], std::int64_t{b.exit} * c.tree.vocab + b.bonus)
          << info.name << " sample " << plan.first_sample + k;
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
  for (bool record : {false, true}) {
    first.record_order = second.record_order = record;
    MonteCarloPlan all = whole;
    all.record_order = record;
    BlockCounts merged = run_monte_carlo(VerifierId::predraw, suite[1].tree, suite[1].rows, first);
    merged.merge(run_monte_carlo(VerifierId::predraw, suite[1].tree, suite[1].rows, second));
    EXPECT_EQ(merged, run_monte_carlo(VerifierId::predraw, suite[1].tree, suite[1].rows, all));
  }
}

// The fast per-sample kernels (and their table-driven completion) must reproduce their
// chooser-path verifiers and complete_block block for block, both drawing two uniforms per Philox
// block (the fast path's layout).
TEST(FastPath, EqualsTheChooserPathSampleBySample) {
  const auto suite = small_suite();
  for (const VerifierInfo& info : verifier_catalog()) {
    // A serial mutant's samples draw at other samples' counters (SerialMutant tests below).
    if (info.fast_path == FastPath::none || serial_replay(info.fast_path).lag > 0) continue;
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

// 1 − u on the uniforms' grid: the ends swap, and mirroring twice is the identity.
TEST(SerialMutant, MirroredUniformStaysOnTheGrid) {
  EXPECT_EQ(mirrored_uniform(0x1.0p-53), 1.0);
  EXPECT_EQ(mirrored_uniform(1.0), 0x1.0p-53);
  EXPECT_EQ(mirrored_uniform(0.5), 0.5 + 0x1.0p-53);
  for (std::uint64_t s = 0; s < 1000; ++s) {
    const double u = uniform({3, Stream::verifier, 0, s}, 0);
    EXPECT_EQ(mirrored_uniform(mirrored_uniform(u)), u);
    EXPECT_EQ(mirrored_uniform(u), 1.0 - u + 0x1.0p-53);
  }
}

// A serial mutant's sample that replays nothing is TEV's sample; one that replays draws its exit
// with the replayed sample's exit uniform (mirrored: 1 − u) and its bonus with its own draw 1.
TEST(SerialMutant, ReplaysTheExitUniformOfTheSampleLagBefore) {
  const auto suite = small_suite();
  std::uint64_t replays = 0;
  for (const VerifierInfo& info : verifier_catalog()) {
    const SerialReplay replay = serial_replay(info.fast_path);
    if (replay.lag == 0) continue;
    EXPECT_EQ(info.kind, VerifierKind::serial_mutant) << info.name;
    for (std::size_t i = 0; i < suite.size(); i += 3) {
      const workloads::CheckCase& c = suite[i];
      const auto tree_id = static_cast<std::uint32_t>(i);
      const TreeTables tables(c.tree, c.rows, child_order_for(info.id, c.tree, c.rows));
      const TreeTablesView t = tables.view();
      for (std::uint64_t s = 0; s < 4000; ++s) {
        const SampledBlock got = sample_fast(info.fast_path, t, 31, tree_id, s);
        const std::uint64_t from = replayed_sample(s, replay.lag);
        ASSERT_EQ(from == s, s % (2 * replay.lag) < replay.lag);
        if (from == s) {
          const SampledBlock tev = sample_fast(FastPath::tree_exit, t, 31, tree_id, s);
          ASSERT_EQ(got.returned, tev.returned) << info.name << " sample " << s;
          ASSERT_EQ(got.completed, tev.completed) << info.name << " sample " << s;
          continue;
        }
        ++replays;
        ASSERT_EQ(from, s - replay.lag);
        const double u = uniform(fast_verifier_site(31, tree_id, from), 0);  // its draw 0
        const NodeId exit = pick_guided(t.exit_cum, t.nodes, t.exit_guide, t.exit_buckets,
                                        replay.mirrored ? mirrored_uniform(u) : u);
        DrawCounter own(fast_verifier_site(31, tree_id, s), DrawLayout::two_per_block);
        const Block expected{exit, t.pick_row(t.residual_cum, t.residual_guide, exit, own.at(1))};
        ASSERT_EQ(got.returned, expected) << info.name << " sample " << s;
        if (!replay.mirrored) {
          ASSERT_EQ(got.returned.exit,
                    sample_fast(info.fast_path, t, 31, tree_id, from).returned.exit);
        }
      }
    }
  }
  EXPECT_GT(replays, 0u);
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
