// The engine's own tests: its verifiers checked by tevsuite's GoogleTest assertions, and each
// planted bug shown to be caught.
#include <gtest/gtest-spi.h>

#include <tevsuite/gtest.hpp>

#include "engine_adapters.hpp"

namespace {

using engine::ChainBug;
using engine::TreeBug;

TEST(EngineTreeVerifier, IsExactAndSaturated) {
  EXPECT_TREE_VERIFIER_EXACT_AND_SATURATED(engine::tree_verifier(TreeBug::none), tevsuite::TreeCheckOptions{});
}

TEST(EngineTreeVerifier, FullRowBonusIsCaught) {
  EXPECT_NONFATAL_FAILURE(EXPECT_TREE_VERIFIER_EXACT(engine::tree_verifier(TreeBug::full_row_bonus), tevsuite::TreeCheckOptions{}),
                          "first failing case");
}

// Run on its own by the ctest engine_bug_shows_failure_message, which reads the message.
TEST(EngineTreeVerifier, DISABLED_FullRowBonusFailureMessage) {
  EXPECT_TREE_VERIFIER_EXACT(engine::tree_verifier(TreeBug::full_row_bonus), tevsuite::TreeCheckOptions{});
}

// Engine-shaped cases: the engine's sampler front end processes the logits; the default budgets.
TEST(EngineTreeVerifier, OnLogitsWithSamplingParametersIsExactAndSaturated) {
  tevsuite::TreeCheckOptions options;
  options.engine_inputs = true;
  EXPECT_TREE_VERIFIER_EXACT_AND_SATURATED(engine::tree_verifier_on_logits(engine::SamplingBug::none), options);
}

TEST(EngineTreeVerifier, TemperatureAfterSoftmaxIsCaught) {
  tevsuite::TreeCheckOptions options;
  options.engine_inputs = true;
  EXPECT_NONFATAL_FAILURE(EXPECT_TREE_VERIFIER_EXACT(engine::tree_verifier_on_logits(engine::SamplingBug::temperature_after_softmax), options),
                          "not exact");
}

TEST(EngineChainVerifier, IsExactMarginally) {
  EXPECT_MODEL_VERIFIER_EXACT(engine::chain_verifier(ChainBug::none), tevsuite::ModelCheckOptions{});
}

TEST(EngineChainVerifier, BonusFromTargetIsCaught) {
  EXPECT_NONFATAL_FAILURE(EXPECT_MODEL_VERIFIER_EXACT(engine::chain_verifier(ChainBug::bonus_from_target), tevsuite::ModelCheckOptions{}),
                          "first failing case");
}

}  // namespace
