#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <memory>

#include "core/compensated_sum.hpp"
#include "core/exact_law.hpp"
#include "core/exit_law.hpp"
#include "live/live.hpp"
#include "models/sphinx_model.hpp"
#include "models/tests/scratch_dir.hpp"
#include "models/tests/sphinx_fixture.hpp"

namespace tev::live {
namespace {

using models::testing_fixture::Sphinx;
using models::testing_fixture::sphinx;

TEST(ApplyTemperature, SharpensFlattensAndLeavesOneAlone) {
  const std::vector<double> p = {0.5, 0.3, 0.2, 0.0};
  EXPECT_EQ(apply_temperature(p, 1.0), p);
  const std::vector<double> cold = apply_temperature(p, 0.5);  // p² / Σ p² = (25, 9, 4, 0) / 38
  EXPECT_NEAR(cold[0], 25.0 / 38.0, 1e-15);
  EXPECT_NEAR(cold[2], 4.0 / 38.0, 1e-15);
  EXPECT_EQ(cold[3], 0.0);
  EXPECT_LT(apply_temperature(p, 2.0)[0], 0.5);
  EXPECT_THROW(apply_temperature(p, 0.0), std::invalid_argument);
}

class LiveTreeOnSphinx : public testing::TestWithParam<TreeBuilder> {};

// Each node's row is the target's law at context ‖ π(v), and each drafted token's score is the
// drafter's probability where the builder ranked it.
TEST_P(LiveTreeOnSphinx, RowsAreTheTargetAtEveryNodesRealContext) {
  Sphinx& s = sphinx();
  const LiveTree live = build_live_tree(s.target, s.drafter, s.context, {6, 1.0, GetParam()});
  EXPECT_EQ(live.tree.size(), 7);
  EXPECT_FALSE(live.tree.validate().has_value());
  EXPECT_GT(live.row_deviation, 0.0);
  EXPECT_LT(live.row_deviation, 2e-2);
  for (NodeId v = 0; v < live.tree.size(); ++v) {
    std::vector<double> expected =
        s.target.next_row(models::context_with_path(s.context, live.tree, v));
    const double total = compensated_total(expected);
    for (Token a : {live.tree.token[live.tree.size() - 1], s.file->id("to"), s.file->id("the")}) {
      EXPECT_NEAR(live.rows.row(v)[static_cast<std::size_t>(a)],
                  expected[static_cast<std::size_t>(a)] / total, 1e-15);
    }
  }
  // The root's first child is the drafter's favourite next word after the context.
  const std::vector<double> q = s.drafter.next_row(s.context);
  const Token best = static_cast<Token>(std::max_element(q.begin(), q.end()) - q.begin());
  EXPECT_EQ(live.tree.token[1], best);
  EXPECT_NEAR(live.draft_log_q[1],
              std::log(q[static_cast<std::size_t>(best)] / compensated_total(q)), 1e-12);
}

INSTANTIATE_TEST_SUITE_P(Builders, LiveTreeOnSphinx,
                         testing::Values(TreeBuilder::ddtree, TreeBuilder::dynamic),
                         [](const auto& info) { return builder_name(info.param); });

TEST(LiveDump, RoundTripsTreeRowsContextAndScores) {
  Sphinx& s = sphinx();
  const LiveTree live =
      build_live_tree(s.target, s.drafter, s.context, {4, 0.7, TreeBuilder::dynamic});
  const models::ScratchDir scratch;
  const std::filesystem::path path = scratch.file("live-tree.json");
  write_live_dump(path, live, {"t0", s.target.name(), "bigram", "dynamic", 0.7}, s.target, 1000);
  const LoadedLiveTree back = read_live_dump(path);
  EXPECT_EQ(back.live.tree.parent, live.tree.parent);
  EXPECT_EQ(back.live.tree.token, live.tree.token);
  EXPECT_EQ(back.live.context, live.context);
  EXPECT_EQ(back.info.drafter, "bigram");
  EXPECT_DOUBLE_EQ(back.info.temperature, 0.7);
  for (NodeId v = 0; v < live.tree.size(); ++v) {
    EXPECT_NEAR(back.live.draft_log_q[static_cast<std::size_t>(v)],
                live.draft_log_q[static_cast<std::size_t>(v)], 1e-15);
    for (std::size_t a = 0; a < 100; ++a)
      EXPECT_NEAR(back.live.rows.row(v)[a], live.rows.row(v)[a], 1e-15);
  }
}

TEST(SpeculativeGeneration, AppendsEachRoundsBlockAndCountsItsLength) {
  Sphinx& s = sphinx();
  const Generation g = speculative_generate(
      s.target, s.drafter, s.context, {4, 1.0, TreeBuilder::ddtree}, VerifierId::tree_exit, 3, 9);
  EXPECT_EQ(g.rounds, 3);
  EXPECT_EQ(static_cast<std::int64_t>(g.tokens.size()),
            static_cast<std::int64_t>(s.context.size()) + g.emitted);
  EXPECT_GE(g.mean_length(), 1.0);
  EXPECT_GE(g.mean_ceiling(), 1.0);
  // Same seed, same text: rounds draw from their own verifier substreams.
  EXPECT_EQ(speculative_generate(s.target, s.drafter, s.context, {4, 1.0, TreeBuilder::ddtree},
                                 VerifierId::tree_exit, 3, 9)
                .tokens,
            g.tokens);
}

TEST(SampleContexts, StartAtTheBeginningAndNeverDrawTheAvoidedToken) {
  Sphinx& s = sphinx();
  const auto contexts = sample_contexts(s.target, 3, 4, 17, s.file->sentence_end());
  ASSERT_EQ(contexts.size(), 3U);
  for (const auto& c : contexts) {
    EXPECT_EQ(c.size(), 5U);
    EXPECT_EQ(c.front(), s.file->sentence_start());
    for (std::size_t k = 1; k < c.size(); ++k) {
      EXPECT_NE(c[k], s.file->sentence_end());
      EXPECT_NE(c[k], s.file->sentence_start());
    }
  }
  EXPECT_EQ(sample_contexts(s.target, 3, 4, 17, s.file->sentence_end()), contexts);
}

// Exact laws on a live Sphinx tree (V = 72,547) by lumped enumeration: every exact verifier equals
// the canonical law to 1e-12 and every mutant differs from it.
TEST(LiveTreeEnumeration, HoldsEveryVerifierToTheCanonicalLaw) {
  Sphinx& s = sphinx();
  const LiveTree live =
      build_live_tree(s.target, s.drafter, s.context, {16, 1.0, TreeBuilder::dynamic});
  // Internal nodes below the root are where exit-mass-from-parent-row reads a wrong row.
  ASSERT_GE(live.tree.max_depth(), 2);
  const std::vector<double> canonical =
      canonical_block_law(live.tree, live.rows, ExitLaw::compute(live.tree, live.rows));
  for (const VerifierInfo& info : verifier_catalog()) {
    const ExactOutcome exact = enumerate_verifier(info.id, live.tree, live.rows);
    EXPECT_EQ(exact.token_draws, TokenDraws::lumped) << info.name;
    const double tv = total_variation(exact.completed, canonical);
    if (info.kind == VerifierKind::mutant) {
      EXPECT_GT(tv, 1e-12) << info.name << " is indistinguishable from the canonical law";
    } else {
      EXPECT_LE(tv, 1e-12) << info.name;
    }
  }
}

}  // namespace
}  // namespace tev::live
