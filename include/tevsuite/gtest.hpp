#pragma once
// GoogleTest assertions for an engine's own tests (link tevsuite::gtest):
//   EXPECT_TREE_VERIFIER_EXACT(verifier, options)
//   EXPECT_TREE_VERIFIER_EXACT_AND_SATURATED(verifier, options)
//   EXPECT_MODEL_VERIFIER_EXACT(model_verifier, model_options)   (marginally, on model cases)
//   EXPECT_BATCH_VERIFIER_EXACT(batch_verifier, batch_options)   (every request, and independent)
//   EXPECT_BATCH_VERIFIER_EXACT_AND_SATURATED(batch_verifier, batch_options)
// (and ASSERT_ forms), where verifier is a tevsuite::TreeVerifier (seeded) or drawing(f) (drawn
// through tevsuite's Draws) and options a tevsuite::TreeCheckOptions. They run the check and pass
// only on the verdict asked for: "inconclusive" (too few samples for the policy's power) is a
// failure, never a pass. The failure message is describe()'s: the first failing case, its p-values
// and power, its largest cell deviations; for a drawing verifier also a shrunk counterexample, the
// smallest tree RapidCheck finds on which the verifier's exact law differs from the canonical law
// (or, for the saturated form, misses the ceiling 1 + C_p). The search calls the verifier on trees
// of its own (case id "shrunk", V ≤ 4, ≤ 6 nodes), not only on the emitted cases.
#include <gtest/gtest.h>

#include <string>

#include <tevsuite/check.hpp>

namespace tevsuite::testing {

enum class Requirement { exact, exact_and_saturated };

// The assertions behind the macros: the check's verdict meets the requirement.
::testing::AssertionResult tree_verifier_meets(Requirement requirement,
                                               const TreeVerifier& verifier,
                                               const TreeCheckOptions& options);
::testing::AssertionResult tree_verifier_meets(Requirement requirement,
                                               const DrawingVerifier& verifier,
                                               const TreeCheckOptions& options);
// The batch check: every request meets the requirement and no two requests of a batch depend on
// each other within a round.
::testing::AssertionResult batch_verifier_meets(Requirement requirement,
                                                const RequestBatchVerifier& verifier,
                                                const BatchCheckOptions& options);
// The model-case check passes only on "exact (marginally)".
::testing::AssertionResult model_verifier_meets(const ModelVerifier& verifier,
                                                const ModelCheckOptions& options);

// RapidCheck's search (fixed seed: the same answer every run) for the smallest case on which a
// drawing verifier's exact law fails the requirement, within `tolerance`: the case in words, or ""
// when its 100 cases find none.
std::string shrunk_counterexample(const DrawingVerifier& verifier, Requirement requirement,
                                  double tolerance);

}  // namespace tevsuite::testing

#define EXPECT_TREE_VERIFIER_EXACT(verifier, options)                                           \
  EXPECT_TRUE(::tevsuite::testing::tree_verifier_meets(::tevsuite::testing::Requirement::exact, \
                                                       (verifier), (options)))
#define EXPECT_TREE_VERIFIER_EXACT_AND_SATURATED(verifier, options) \
  EXPECT_TRUE(::tevsuite::testing::tree_verifier_meets(             \
      ::tevsuite::testing::Requirement::exact_and_saturated, (verifier), (options)))
#define ASSERT_TREE_VERIFIER_EXACT(verifier, options)                                           \
  ASSERT_TRUE(::tevsuite::testing::tree_verifier_meets(::tevsuite::testing::Requirement::exact, \
                                                       (verifier), (options)))
#define ASSERT_TREE_VERIFIER_EXACT_AND_SATURATED(verifier, options) \
  ASSERT_TRUE(::tevsuite::testing::tree_verifier_meets(             \
      ::tevsuite::testing::Requirement::exact_and_saturated, (verifier), (options)))
#define EXPECT_MODEL_VERIFIER_EXACT(verifier, options) \
  EXPECT_TRUE(::tevsuite::testing::model_verifier_meets((verifier), (options)))
#define ASSERT_MODEL_VERIFIER_EXACT(verifier, options) \
  ASSERT_TRUE(::tevsuite::testing::model_verifier_meets((verifier), (options)))
#define EXPECT_BATCH_VERIFIER_EXACT(verifier, options)                                           \
  EXPECT_TRUE(::tevsuite::testing::batch_verifier_meets(::tevsuite::testing::Requirement::exact, \
                                                        (verifier), (options)))
#define EXPECT_BATCH_VERIFIER_EXACT_AND_SATURATED(verifier, options) \
  EXPECT_TRUE(::tevsuite::testing::batch_verifier_meets(             \
      ::tevsuite::testing::Requirement::exact_and_saturated, (verifier), (options)))
#define ASSERT_BATCH_VERIFIER_EXACT(verifier, options)                                           \
  ASSERT_TRUE(::tevsuite::testing::batch_verifier_meets(::tevsuite::testing::Requirement::exact, \
                                                        (verifier), (options)))
#define ASSERT_BATCH_VERIFIER_EXACT_AND_SATURATED(verifier, options) \
  ASSERT_TRUE(::tevsuite::testing::batch_verifier_meets(             \
      ::tevsuite::testing::Requirement::exact_and_saturated, (verifier), (options)))
