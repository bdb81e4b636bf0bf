#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

#include "exittrain/exittrain.hpp"
#include "exittrain/exittrain_models.hpp"
#include "exittrain/gradient_check.hpp"

namespace tev::exittrain {
namespace {

constexpr std::int32_t kVocab = 12, kHorizon = 4;

// A world small enough for finite differences over every parameter.
struct World {
  MarkovTarget target{kVocab, 2, 1.5, 7};
  LinearBlockDrafter drafter{kVocab, kHorizon, 1};
  std::vector<TrainingExample> examples;
  World() {
    PhiloxEngine engine(DrawSite{7, Stream::generation, 1, 0});
    examples = sample_examples(target, 6, 4, kHorizon, engine);
    // Non-zero parameters, so the trees are not built from ties.
    PhiloxEngine init(DrawSite{7, Stream::generation, 2, 0});
    for (double& w : drafter.parameters()) w = init.uniform() - 0.5;
  }
};

TEST(WeightedCrossEntropy, EqualsTheSumOfPerTermNegativeLogLikelihoods) {
  // Appendix C.2: one log-normalizer per distinct row gives the same value as normalizing per term.
  const std::vector<double> logits = {0.3, -1.2, 2.0, 0.0, 0.5, 0.5, -0.7, 1.1};  // (2, 4)
  const std::vector<RowTerm> terms = {{0, 2, 0.5}, {0, 1, 0.25}, {1, 3, 2.0}, {0, 2, 0.125}};
  double direct = 0.0;
  for (const RowTerm& t : terms) {
    const auto q = marginal_rows(logits, 2, 4)[static_cast<std::size_t>(t.row)];
    direct -= t.weight * std::log(q[static_cast<std::size_t>(t.token)]);
  }
  EXPECT_NEAR(weighted_cross_entropy(logits, 4, terms, {}), direct, 1e-12);
}

TEST(WeightedCrossEntropy, GradientMatchesFiniteDifferences) {
  std::vector<double> logits = {0.3,  -1.2, 2.0, 0.0,  0.5, 0.5,
                                -0.7, 1.1,  4.0, -3.0, 0.0, 0.2};  // (3, 4)
  const std::vector<RowTerm> terms = {
      {0, 2, 0.5}, {0, 1, 0.25}, {2, 3, 2.0}, {0, 2, 0.125}};  // row 1 unused
  std::vector<double> gradient(logits.size(), 0.0);
  weighted_cross_entropy(logits, 4, terms, gradient);
  const std::vector<double> numeric =
      central_differences(logits, [&] { return weighted_cross_entropy(logits, 4, terms, {}); });
  for (std::size_t i = 0; i < logits.size(); ++i)
    EXPECT_NEAR(gradient[i], numeric[i], 1e-8) << "logit " << i;
}

// Central differences of the prepared-batch loss over every drafter parameter, for each objective.
TEST(BatchLoss, DrafterGradientMatchesFiniteDifferencesForEveryObjective) {
  for (Objective objective : kObjectives) {
    World world;
    const std::vector<std::size_t> batch = {0, 1, 2, 3, 4, 5};
    const PreparedBatch prepared =
        prepare_batch(world.drafter, world.target, world.examples, batch, {objective, 10, 3.0});
    std::vector<double> gradient(world.drafter.parameters().size(), 0.0);
    batch_loss(world.drafter, world.examples, prepared, gradient);
    const std::vector<double> numeric = central_differences(world.drafter.parameters(), [&] {
      return batch_loss(world.drafter, world.examples, prepared, {});
    });
    double worst = 0.0;
    for (std::size_t i = 0; i < numeric.size(); ++i)
      worst = std::max(worst, std::abs(gradient[i] - numeric[i]));
    EXPECT_LT(worst, 1e-8) << objective_name(objective);
    EXPECT_GT(std::accumulate(gradient.begin(), gradient.end(), 0.0,
                              [](double s, double g) { return s + std::abs(g); }),
              0.0);
  }
}

TEST(TreeWeights, PrefixWeightsTotalEqualsExitWeightsTotal) {
  World world;
  for (const TrainingExample& example : world.examples) {
    for (std::int32_t budget : {1, 5, 10, 20}) {
      const ContextTree t =
          build_context_tree(world.drafter, world.target, example.context, budget);
      const auto exit = exit_weights(t.law), prefix = prefix_weights(t.law);
      const double exit_total = std::accumulate(exit.begin(), exit.end(), 0.0);
      EXPECT_NEAR(exit_total, 1.0 - t.law.exit[0], 1e-12);
      EXPECT_NEAR(std::accumulate(prefix.begin(), prefix.end(), 0.0), exit_total, 1e-12);
      EXPECT_EQ(exit[0], 0.0);
      EXPECT_EQ(prefix[0], 0.0);
    }
  }
}

TEST(ContextTree, RowsAreTheTargetUnderTheRealTreeParentContext) {
  World world;
  const auto& context = world.examples[0].context;
  const ContextTree t = build_context_tree(world.drafter, world.target, context, 10);
  EXPECT_FALSE(t.tree.validate().has_value());
  EXPECT_EQ(t.tree.size(), 11);
  EXPECT_LE(t.tree.max_depth(), kHorizon);
  for (NodeId v = 0; v < t.tree.size(); ++v) {
    std::vector<Token> sequence = context;
    for (Token x : t.tree.path_tokens(v)) sequence.push_back(x);
    const std::vector<double> expected = world.target.next_row(sequence);
    for (std::int32_t a = 0; a < kVocab; ++a)
      EXPECT_NEAR(t.rows.row(v)[static_cast<std::size_t>(a)], expected[static_cast<std::size_t>(a)],
                  1e-15);
  }
  EXPECT_NEAR(t.law.coverage, t.law.coverage_by_depth, 1e-12);
}

TEST(Train, TreeObjectivesWithLambdaZeroAreTokenOnly) {
  // Matched data, order and initialization: with λ = 0 the three runs must be the same run.
  std::vector<std::vector<double>> finals;
  for (Objective objective : kObjectives) {
    World world;
    TrainingConfig config{{objective, 8, 0.0}, 5, 3, 0.05};
    train(world.drafter, world.target, world.examples, config);
    finals.emplace_back(world.drafter.parameters().begin(), world.drafter.parameters().end());
  }
  EXPECT_EQ(finals[0], finals[1]);
  EXPECT_EQ(finals[0], finals[2]);
}

TEST(EvaluateCoverage, TevMeanLengthAgreesWithTheExactCeiling) {
  // z-test with the exact null variance; seed 11, 16 contexts × 20,000 TEV rounds, α = 1e-3.
  World world;
  PhiloxEngine engine(DrawSite{11, Stream::generation, 3, 0});
  std::vector<std::vector<Token>> contexts;
  for (int i = 0; i < 16; ++i) contexts.push_back(sample_context(world.target, 4, engine));
  const CoverageEvaluation e =
      evaluate_coverage(world.drafter, world.target, contexts, 10, 20000, 11, 2);
  EXPECT_EQ(e.tev_samples, 16u * 20000u);
  EXPECT_GT(e.mean_ceiling, 1.0);
  EXPECT_GT(e.tev_p_value, 1e-3) << "seed 11, mean L " << e.tev_mean_length << " vs 1 + C_p "
                                 << e.mean_ceiling;
}

TEST(Models, BadShapesAreCaught) {
  EXPECT_THROW(MarkovTarget(1, 2, 1.0, 1), std::invalid_argument);
  EXPECT_THROW(LinearBlockDrafter(8, 0, 1), std::invalid_argument);
  const MarkovTarget target(6, 1, 1.0, 1);
  const LinearBlockDrafter other_vocab(8, 2, 1);
  const std::vector<Token> context = {1, 2};
  EXPECT_THROW(build_context_tree(other_vocab, target, context, 4), std::invalid_argument);
}

}  // namespace
}  // namespace tev::exittrain
