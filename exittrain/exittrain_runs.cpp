#include "exittrain/exittrain_runs.hpp"

#include <chrono>
#include <memory>
#include <ostream>
#include <stdexcept>

#include "exittrain/exittrain_live.hpp"
#include "live/live.hpp"
#include "models/sphinx_model.hpp"
#include "exittrain/exittrain_models.hpp"
#include "workloads/trees.hpp"

namespace tev::exittrain {

namespace {

// Ids within uses::exittrain_sim_data (id 0: the target's tables).
enum DrawId : std::uint32_t { kWarmupExamples = 1, kTrainingExamples = 2, kTestContexts = 3 };

// The live target's row cache: trees of the four drafters at B/2, B, 2B on the same held-out
// contexts share most rows (32 contexts x 28 nodes at the defaults). 1536 rows of 72,547 doubles
// are about 0.9 GB.
constexpr std::size_t kLiveCacheRows = 1536;

constexpr LiveDefault kLiveDefaults[] = {
    {"--budget", &ExitTrainOptions::budget, 8},
    {"--steps", &ExitTrainOptions::steps, 100},
    {"--warmup-steps", &ExitTrainOptions::warmup_steps, 500},
    {"--seeds", &ExitTrainOptions::seeds, 3},
    {"--vocab", &ExitTrainOptions::vocab, 1024},
    {"--horizon", &ExitTrainOptions::horizon, 4},
    {"--batch", &ExitTrainOptions::batch, 4},
    {"--test-contexts", &ExitTrainOptions::test_contexts, 32},
    {"--context-length", &ExitTrainOptions::context_length, 16}};

ComparisonConfig comparison_config(const ExitTrainOptions& o, std::uint32_t seed, double lambda,
                                   const montecarlo::Ranks& ranks) {
  ComparisonConfig config;
  config.training = {{Objective::token_only, o.budget, lambda}, o.steps, o.batch, o.learning_rate};
  config.warmup_steps = o.warmup_steps;
  config.tev_samples_per_tree = o.tev_samples;
  config.seed = seed;
  config.threads = o.threads;
  config.ranks = ranks;
  return config;
}

std::function<void(std::string_view)> seed_progress(std::ostream& progress, std::uint32_t seed) {
  return [&progress, seed](std::string_view stage) {
    progress << "  seed " << seed << ": " << stage << '\n';
  };
}

ExitTrainSeedRun run_sim_seed(const ExitTrainOptions& o, std::uint32_t seed, double lambda,
                              const montecarlo::Ranks& ranks, std::ostream& progress) {
  const MarkovTarget target(o.vocab, o.target_order, o.target_scale, seed);
  LinearBlockDrafter drafter(o.vocab, o.horizon, o.lookback);
  PhiloxEngine warmup_engine(seed, uses::exittrain_sim_data, kWarmupExamples),
      training_engine(seed, uses::exittrain_sim_data, kTrainingExamples),
      test_engine(seed, uses::exittrain_sim_data, kTestContexts);
  const auto warmup =
      sample_examples(target, o.warmup_steps * o.batch, o.context_length, o.horizon, warmup_engine);
  const auto examples =
      sample_examples(target, o.steps * o.batch, o.context_length, o.horizon, training_engine);
  std::vector<std::vector<Token>> test;
  for (std::int32_t i = 0; i < o.test_contexts; ++i)
    test.push_back(sample_context(target, o.context_length, test_engine));
  return {seed, compare_objectives(drafter, target, warmup, examples, test,
                                   comparison_config(o, seed, lambda, ranks),
                                   seed_progress(progress, seed))};
}

// The real model, loaded once for every seed: the trigram as target, its unigram row's most
// probable words as the drafter's buckets.
struct LiveSetup {
  std::shared_ptr<const models::SphinxModel> model;
  models::NormalizedModel target;
  std::vector<Token> frequent_words;
};

LiveSetup load_live(const ExitTrainOptions& o) {
  auto file = std::make_shared<const models::SphinxFile>();
  if (o.vocab >= file->vocab())
    throw std::invalid_argument(
        "--vocab: the drafter's K frequent words must be fewer than the model's " +
        std::to_string(file->vocab()));
  auto model = std::make_shared<const models::SphinxModel>(file, models::SphinxView::trigram,
                                                           kLiveCacheRows);
  return {model, models::NormalizedModel(model, models::kModelRowTolerance),
          workloads::rank_row(file->scores(1, kNoToken, kNoToken), o.vocab).tokens};
}

// One seed of the live comparison: sequences sampled from the trigram (substream i of the seed
// for sequence i) split into warm-up, training and held-out sets; the target is the same for every seed.
ExitTrainSeedRun run_live_seed(const ExitTrainOptions& o, const LiveSetup& live, std::uint32_t seed,
                               double lambda, const montecarlo::Ranks& ranks,
                               std::ostream& progress) {
  const std::int32_t per_sequence =
      o.context_length - o.horizon;  // examples one sequence of <s> + length words gives
  auto sequences_for = [&](std::int32_t steps) {
    return (steps * o.batch + per_sequence - 1) / per_sequence;
  };
  const std::int32_t warmup_sequences = sequences_for(o.warmup_steps),
                     training_sequences = sequences_for(o.steps);
  const auto say = seed_progress(progress, seed);
  say("sampling " + std::to_string(warmup_sequences + training_sequences + o.test_contexts) +
      " sequences from the trigram");
  const auto sequences =
      live::sample_contexts(*live.model, warmup_sequences + training_sequences + o.test_contexts,
                            o.context_length, seed, live.model->file().sentence_end());
  const std::span<const std::vector<Token>> all(sequences);
  const auto warmup = examples_from_sequences(all.first(static_cast<std::size_t>(warmup_sequences)),
                                              o.horizon, seed, ExampleSet::warmup);
  const auto examples =
      examples_from_sequences(all.subspan(static_cast<std::size_t>(warmup_sequences),
                                          static_cast<std::size_t>(training_sequences)),
                              o.horizon, seed, ExampleSet::training);
  const auto test = all.subspan(static_cast<std::size_t>(warmup_sequences + training_sequences));
  FrequentWordsDrafter drafter(live.target.vocab(), live.frequent_words,
                               {o.horizon, o.lookback, o.embedding}, kLiveInitScale, seed);
  return {seed, compare_objectives(drafter, live.target, warmup, examples, test,
                                   comparison_config(o, seed, lambda, ranks), say)};
}

}  // namespace

std::span<const LiveDefault> exittrain_live_defaults() { return kLiveDefaults; }

ExitTrainOptions with_live_defaults(ExitTrainOptions o,
                                    const std::function<bool(std::string_view flag)>& given) {
  for (const LiveDefault& d : kLiveDefaults) {
    if (!given(d.flag)) o.*d.member = d.value;
  }
  return o;
}

ExitTrainRuns run_exittrain(const ExitTrainOptions& o, const montecarlo::RunContext& context,
                            std::ostream& progress) {
  if (o.mode != "sim" && o.mode != "live")
    throw std::invalid_argument("--mode must be sim or live, got " + o.mode);
  if (o.mode == "sim" && o.vocab > 4096)
    throw std::invalid_argument(
        "--vocab: the synthetic target's tables hold V^2 entries per lag, V at most 4096");
  if (o.mode == "sim" && 2 * o.budget > o.vocab * o.horizon)
    throw std::invalid_argument("--budget: 2B must fit in V x H tree positions");
  if (o.mode == "live" && o.context_length < o.horizon + 1)
    throw std::invalid_argument(
        "--horizon: a sampled sequence must hold a context and H more words");
  ExitTrainRuns result;
  result.lambda = o.lambda.value_or(static_cast<double>(o.budget));
  result.target_vocab = o.vocab;
  const auto start = std::chrono::steady_clock::now();
  std::optional<LiveSetup> live;
  if (o.mode == "live") {
    live = load_live(o);
    result.target_vocab = live->target.vocab();
  }
  for (std::int32_t k = 0; k < o.seeds; ++k) {
    progress << "seed " << (k + 1) << " of " << o.seeds << '\n';
    const std::uint32_t seed = o.seed + static_cast<std::uint32_t>(k);
    result.runs.push_back(
        live ? run_live_seed(o, *live, seed, result.lambda, context.ranks, progress)
             : run_sim_seed(o, seed, result.lambda, context.ranks, progress));
  }
  result.agreement = tev_agreement(result.runs, o.alpha);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace tev::exittrain
