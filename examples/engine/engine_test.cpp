// The engine's own tests: its verifiers checked by tevsuite's GoogleTest assertions, and each
// planted bug shown to be caught.
#include <gtest/gtest-spi.h>

#include <tevsuite/api/gtest_assertions.hpp>

#include "engine_adapters.hpp"

namespace {

using engine::ChainBug;
using engine::TreeBug;

TEST(EngineTreeVerifier, IsExactAndSaturated) {
  EXPECT_TREE_VERIFIER_EXACT_AND_SATURATED(engine::tree_verifier(TreeBug::none), tev::api::CheckOptions{});
}

TEST(EngineTreeVerifier, FullRowBonusIsCaught) {
  EXPECT_NONFATAL_FAILURE(EXPECT_TREE_VERIFIER_EXACT(engine::tree_verifier(TreeBug::full_row_bonus), tev::api::CheckOptions{}),
                          "first failing case");
}

// Run on its own by the ctest engine_bug_shows_failure_message, which reads the message.
TEST(EngineTreeVerifier, DISABLED_FullRowBonusFailureMessage) {
  EXPECT_TREE_VERIFIER_EXACT(engine::tree_verifier(TreeBug::full_row_bonus), tev::api::CheckOptions{});
}

TEST(EngineChainVerifier, IsExactMarginally) {
  EXPECT_MODEL_VERIFIER_EXACT(engine::chain_verifier(ChainBug::none), tev::api::ModelCheckOptions{});
}

TEST(EngineChainVerifier, BonusFromTargetIsCaught) {
  EXPECT_NONFATAL_FAILURE(EXPECT_MODEL_VERIFIER_EXACT(engine::chain_verifier(ChainBug::bonus_from_target), tev::api::ModelCheckOptions{}),
                          "first failing case");
}

}  // namespace
