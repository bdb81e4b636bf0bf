// exittrain/exittrain_runs: --mode live's defaults (one list, read by the help text too) and the
// checks made before any training.
#include <gtest/gtest.h>

#include <sstream>

#include "exittrain/exittrain_runs.hpp"

namespace tev::exittrain {
namespace {

TEST(ExitTrainRuns, LiveDefaultsApplyOnlyWhereNoFlagWasGiven) {
  ExitTrainOptions options;
  options.budget = 40;
  options.steps = 7;
  const ExitTrainOptions live =
      with_live_defaults(options, [](std::string_view flag) { return flag == "--budget"; });
  EXPECT_EQ(live.budget, 40);  // given: kept
  EXPECT_EQ(live.steps, 100);
  EXPECT_EQ(live.warmup_steps, 500);
  EXPECT_EQ(live.seeds, 3);
  EXPECT_EQ(live.vocab, 1024);
  EXPECT_EQ(live.horizon, 4);
  EXPECT_EQ(live.batch, 4);
  EXPECT_EQ(live.test_contexts, 32);
  EXPECT_EQ(live.context_length, 16);
  EXPECT_EQ(exittrain_live_defaults().size(), 9u);
  EXPECT_EQ(live.learning_rate, options.learning_rate);  // not a live default
}

TEST(ExitTrainRuns, RefusesSettingsBeforeTraining) {
  std::ostringstream progress;
  ExitTrainOptions bad_mode;
  bad_mode.mode = "gpu";
  EXPECT_THROW(run_exittrain(bad_mode, montecarlo::RunContext{}, progress), std::invalid_argument);
  ExitTrainOptions too_wide;
  too_wide.budget = 300;  // 2B > V x H = 64 x 8
  EXPECT_THROW(run_exittrain(too_wide, montecarlo::RunContext{}, progress), std::invalid_argument);
  EXPECT_EQ(progress.str(), "");
}

TEST(ExitTrainRuns, ASmallSimRunGivesOneComparisonPerSeed) {
  ExitTrainOptions o;
  o.budget = 4;
  o.steps = 2;
  o.warmup_steps = 2;
  o.seeds = 2;
  o.vocab = 16;
  o.horizon = 3;
  o.batch = 2;
  o.test_contexts = 2;
  o.tev_samples = 50;
  std::ostringstream progress;
  const ExitTrainRuns runs = run_exittrain(o, montecarlo::RunContext{}, progress);
  ASSERT_EQ(runs.runs.size(), 2u);
  EXPECT_EQ(runs.runs[0].seed, o.seed);
  EXPECT_EQ(runs.runs[1].seed, o.seed + 1);
  EXPECT_EQ(runs.lambda, 4.0);  // λ = B unless set
  EXPECT_EQ(runs.target_vocab, 16);
}

}  // namespace
}  // namespace tev::exittrain
