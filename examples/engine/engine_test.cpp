// The engine's own tests: its verifiers checked by tevsuite's GoogleTest assertions, and each
// planted bug shown to be caught.
#include <gtest/gtest-spi.h>

#include <regex>
#include <string>

#include <tevsuite/gtest.hpp>

#include "engine_adapters.hpp"

namespace {

using engine::ChainBug;
using engine::TreeBug;

TEST(EngineTreeVerifier, IsExactAndSaturated) {
  EXPECT_TREE_VERIFIER_EXACT_AND_SATURATED(engine::tree_verifier(TreeBug::none),
                                           tevsuite::TreeCheckOptions{});
}

// The failure is caught, and its message names the first failing case and its chi-square p.
TEST(EngineTreeVerifier, FullRowBonusIsCaughtWithItsFirstFailingCase) {
  ::testing::TestPartResultArray failures;
  {
    const ::testing::ScopedFakeTestPartResultReporter intercept(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &failures);
    EXPECT_TREE_VERIFIER_EXACT(engine::tree_verifier(TreeBug::full_row_bonus),
                               tevsuite::TreeCheckOptions{});
  }
  ASSERT_EQ(failures.size(), 1);
  const std::string message = failures.GetTestPartResult(0).message();
  EXPECT_TRUE(
      std::regex_search(message, std::regex(R"(first failing case: c[0-9]+[\s\S]*chi-square p)")))
      << message;
}

// Engine-shaped cases: the engine's sampler front end processes the logits; the default budgets.
TEST(EngineTreeVerifier, OnLogitsWithSamplingParametersIsExactAndSaturated) {
  tevsuite::TreeCheckOptions options;
  options.engine_inputs = true;
  EXPECT_TREE_VERIFIER_EXACT_AND_SATURATED(
      engine::tree_verifier_on_logits(engine::SamplingBug::none), options);
}

TEST(EngineTreeVerifier, TemperatureAfterSoftmaxIsCaught) {
  tevsuite::TreeCheckOptions options;
  options.engine_inputs = true;
  EXPECT_NONFATAL_FAILURE(
      EXPECT_TREE_VERIFIER_EXACT(
          engine::tree_verifier_on_logits(engine::SamplingBug::temperature_after_softmax), options),
      "not exact");
}

// A batch of requests verified together (2 batches of 4, 100,000 rounds): exact, independent; one
// seed for the whole batch is caught by the independence of two requests, not by either alone.
TEST(EngineBatchVerifier, RequestsVerifiedTogetherAreExactAndIndependent) {
  EXPECT_BATCH_VERIFIER_EXACT_AND_SATURATED(engine::batch_verifier(engine::BatchBug::none),
                                            tevsuite::BatchCheckOptions{});
}

TEST(EngineBatchVerifier, OneSeedForTheBatchIsCaught) {
  EXPECT_NONFATAL_FAILURE(
      EXPECT_BATCH_VERIFIER_EXACT(engine::batch_verifier(engine::BatchBug::one_seed_for_the_batch),
                                  tevsuite::BatchCheckOptions{}),
      "dependent (a leak)");
}

// The vectorized path, 4,096 samples a call, on 40,000 samples a case and the sparse case over
// V = 64 (the engine's walk reads whole dense rows): exact and saturated. With its offset advanced
// every other sample each block keeps the canonical law, and only the tests of independence
// (consecutive blocks, pairs (2k, 2k+1)) can see it.
tevsuite::TreeCheckOptions vectorized_options() {
  tevsuite::TreeCheckOptions options;
  options.samples = 40000;
  options.large_vocab = 64;
  options.large_vocab_factor = 1;
  return options;
}

TEST(EngineBatchedTreeVerifier, IsExactAndSaturated) {
  const tevsuite::Report report = tevsuite::check_tree_verifier_batched(
      engine::batched_tree_verifier(engine::OffsetBug::none), vectorized_options(), 4096);
  EXPECT_EQ(report.verdict, tevsuite::Verdict::exact_saturated) << report.description;
}

TEST(EngineBatchedTreeVerifier, AnOffsetAdvancedEveryOtherSampleIsCaught) {
  const tevsuite::Report report = tevsuite::check_tree_verifier_batched(
      engine::batched_tree_verifier(engine::OffsetBug::advanced_every_other_sample),
      vectorized_options(), 4096);
  EXPECT_EQ(report.verdict, tevsuite::Verdict::not_exact) << report.description;
  EXPECT_NE(report.description.find("pairs (2k, 2k+1) p"), std::string::npos) << report.description;
}

TEST(EngineChainVerifier, IsExactMarginally) {
  EXPECT_MODEL_VERIFIER_EXACT(engine::chain_verifier(ChainBug::none),
                              tevsuite::ModelCheckOptions{});
}

TEST(EngineChainVerifier, BonusFromTargetIsCaught) {
  EXPECT_NONFATAL_FAILURE(
      EXPECT_MODEL_VERIFIER_EXACT(engine::chain_verifier(ChainBug::bonus_from_target),
                                  tevsuite::ModelCheckOptions{}),
      "first failing case");
}

}  // namespace
