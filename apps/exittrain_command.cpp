#include "apps/exittrain_command.hpp"

#include <chrono>
#include <memory>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "apps/results_file.hpp"
#include "harness/exittrain_live.hpp"
#include "harness/live.hpp"
#include "harness/sphinx_model.hpp"
#include "reports/exittrain.hpp"
#include "sim/exittrain_models.hpp"
#include "sim/trees.hpp"

namespace tev {

namespace {

// Why λ defaults to B, fixed before any run: L_tok puts total weight 1 on a batch (1/(nH) per
// row term), while eq. 14's denominator Σ(|V_i| − 1) = nB leaves the tree term a total of
// mean(1 − w(r))/B. λ = B gives both terms the same order of total weight.
constexpr const char* kLambdaRationale =
    "fixed in advance at lambda = B, so the tree term's total weight per batch, mean(1 - w(r)), matches the token term's 1; not tuned";

// Ids within uses::exittrain_sim_data (id 0: the target's tables).
enum DrawId : std::uint32_t { kWarmupExamples = 1, kTrainingExamples = 2, kTestContexts = 3 };

// The live target's row cache: trees of the four drafters at B/2, B, 2B on the same held-out
// contexts share most rows (32 contexts x 28 nodes at the defaults). 1536 rows of 72,547 doubles
// are about 0.9 GB.
constexpr std::size_t kLiveCacheRows = 1536;
// The frequent-words drafter's embeddings and heads start as Gaussians of this sd, small enough
// for near-uniform rows, nonzero so both factors get gradients.
constexpr double kLiveInitScale = 0.1;

ComparisonConfig comparison_config(const ExitTrainOptions& o, std::uint32_t seed, double lambda) {
  ComparisonConfig config;
  config.training = {{Objective::token_only, o.budget, lambda}, o.steps, o.batch, o.learning_rate};
  config.warmup_steps = o.warmup_steps;
  config.tev_samples_per_tree = o.tev_samples;
  config.seed = seed;
  config.threads = o.threads;
  return config;
}

std::function<void(std::string_view)> seed_progress(std::ostream& progress, std::uint32_t seed) {
  return [&progress, seed](std::string_view stage) { progress << "  seed " << seed << ": " << stage << '\n'; };
}

ExitTrainSeedRun run_sim_seed(const ExitTrainOptions& o, std::uint32_t seed, double lambda, std::ostream& progress) {
  const MarkovTarget target(o.vocab, o.target_order, o.target_scale, seed);
  LinearBlockDrafter drafter(o.vocab, o.horizon, o.lookback);
  PhiloxEngine warmup_engine(seed, uses::exittrain_sim_data, kWarmupExamples), training_engine(seed, uses::exittrain_sim_data, kTrainingExamples),
      test_engine(seed, uses::exittrain_sim_data, kTestContexts);
  const auto warmup = sample_examples(target, o.warmup_steps * o.batch, o.context_length, o.horizon, warmup_engine);
  const auto examples = sample_examples(target, o.steps * o.batch, o.context_length, o.horizon, training_engine);
  std::vector<std::vector<Token>> test;
  for (std::int32_t i = 0; i < o.test_contexts; ++i) test.push_back(sample_context(target, o.context_length, test_engine));
  return {seed, compare_objectives(drafter, target, warmup, examples, test, comparison_config(o, seed, lambda), seed_progress(progress, seed))};
}

// The real model, loaded once for every seed: the trigram as target, its unigram row's most
// probable words as the drafter's buckets.
struct LiveSetup {
  std::shared_ptr<const SphinxModel> model;
  NormalizedModel target;
  std::vector<Token> frequent_words;
};

LiveSetup load_live(const ExitTrainOptions& o) {
  auto file = std::make_shared<const SphinxFile>();
  if (o.vocab >= file->vocab()) throw std::invalid_argument("--vocab: the drafter's K frequent words must be fewer than the model's " + std::to_string(file->vocab()));
  auto model = std::make_shared<const SphinxModel>(file, SphinxView::trigram, kLiveCacheRows);
  return {model, NormalizedModel(model, kModelRowTolerance), rank_row(file->scores(1, kNoToken, kNoToken), o.vocab).tokens};
}

// One seed of the live comparison: sequences sampled from the trigram (substream i of the seed
// for sequence i) split into warm-up, training and held-out sets; the target is the same for every seed.
ExitTrainSeedRun run_live_seed(const ExitTrainOptions& o, const LiveSetup& live, std::uint32_t seed, double lambda, std::ostream& progress) {
  const std::int32_t per_sequence = o.context_length - o.horizon;  // examples one sequence of <s> + length words gives
  auto sequences_for = [&](std::int32_t steps) { return (steps * o.batch + per_sequence - 1) / per_sequence; };
  const std::int32_t warmup_sequences = sequences_for(o.warmup_steps), training_sequences = sequences_for(o.steps);
  const auto say = seed_progress(progress, seed);
  say("sampling " + std::to_string(warmup_sequences + training_sequences + o.test_contexts) + " sequences from the trigram");
  const auto sequences = sample_contexts(*live.model, warmup_sequences + training_sequences + o.test_contexts, o.context_length, seed,
                                         live.model->file().sentence_end());
  const std::span<const std::vector<Token>> all(sequences);
  const auto warmup = examples_from_sequences(all.first(static_cast<std::size_t>(warmup_sequences)), o.horizon, seed, ExampleSet::warmup);
  const auto examples = examples_from_sequences(all.subspan(static_cast<std::size_t>(warmup_sequences), static_cast<std::size_t>(training_sequences)), o.horizon, seed, ExampleSet::training);
  const auto test = all.subspan(static_cast<std::size_t>(warmup_sequences + training_sequences));
  FrequentWordsDrafter drafter(live.target.vocab(), live.frequent_words, {o.horizon, o.lookback, o.embedding}, kLiveInitScale, seed);
  return {seed, compare_objectives(drafter, live.target, warmup, examples, test, comparison_config(o, seed, lambda), say)};
}

std::string sim_setting(const ExitTrainOptions& o) {
  return "Synthetic order-" + std::to_string(o.target_order) + " Markov target over V = " + std::to_string(o.vocab) +
         " (Gaussian logit tables, sd " + report::num(o.target_scale) + " per lag); linear block drafter over the last " +
         std::to_string(o.lookback) + " token(s), H = " + std::to_string(o.horizon) +
         " marginal rows, starting from zero (uniform rows); DDTree best-first trees; target rows under the real tree-parent context.";
}

std::string live_setting(const ExitTrainOptions& o, const LiveSetup& live) {
  return "Target: the CMU Sphinx US-English trigram (" + std::to_string(live.target.vocab()) +
         " words; rows normalized, scored word by word and cached by history). Drafter: the " + std::to_string(o.vocab) +
         " most probable words of the model's unigram row each get a bucket, every other word shares an \"other\" bucket whose mass is spread evenly over them; "
         "an embedding (D = " + std::to_string(o.embedding) + ") of the last " + std::to_string(o.lookback) + " word(s) feeds H = " +
         std::to_string(o.horizon) + " linear heads over the buckets (Gaussian start, sd " + report::num(kLiveInitScale) +
         "). Data: sequences of " + std::to_string(o.context_length) +
         " words sampled from the trigram after <s> (</s> never drawn), cut into (context, next H words) examples; held-out contexts are further samples. "
         "DDTree best-first trees; target rows under the real tree-parent context.";
}

nlohmann::json config_json(const ExitTrainOptions& o, double lambda, const std::string& setting) {
  nlohmann::json config = {{"mode", o.mode},          {"setting", setting},           {"budget", o.budget},
                           {"steps", o.steps},        {"warmup_steps", o.warmup_steps}, {"seeds", o.seeds},
                           {"first_seed", o.seed},    {"vocab", o.vocab},             {"horizon", o.horizon},
                           {"lookback", o.lookback},  {"context_length", o.context_length}, {"batch", o.batch},
                           {"learning_rate", o.learning_rate}, {"lambda", lambda},
                           {"lambda_choice", o.lambda ? "set with --lambda" : kLambdaRationale},
                           {"test_contexts", o.test_contexts}, {"tev_samples_per_tree", o.tev_samples}, {"alpha", o.alpha}, {"threads", o.threads}};
  if (o.mode == "sim") {
    config["target_order"] = o.target_order;
    config["target_scale"] = o.target_scale;
  } else {
    config["embedding"] = o.embedding;
  }
  return config;
}

}  // namespace

int finish_exittrain_report(const nlohmann::json& results, const RenderOptions& render, std::ostream& out) {
  const RenderResult written = render_report(results, render);
  for (const auto& file : written.files) out << "wrote " << file.string() << '\n';
  return results.at("summary").at("tev").at("all_agree").get<bool>() ? 0 : 1;
}

ExitTrainOptions with_live_defaults(ExitTrainOptions o, const std::function<bool(std::string_view flag)>& given) {
  auto fallback = [&](std::string_view flag, auto member, auto value) {
    if (!given(flag)) o.*member = value;
  };
  fallback("--budget", &ExitTrainOptions::budget, 8);
  fallback("--steps", &ExitTrainOptions::steps, 100);
  fallback("--warmup-steps", &ExitTrainOptions::warmup_steps, 500);
  fallback("--seeds", &ExitTrainOptions::seeds, 3);
  fallback("--vocab", &ExitTrainOptions::vocab, 1024);
  fallback("--horizon", &ExitTrainOptions::horizon, 4);
  fallback("--batch", &ExitTrainOptions::batch, 4);
  fallback("--test-contexts", &ExitTrainOptions::test_contexts, 32);
  fallback("--context-length", &ExitTrainOptions::context_length, 16);
  return o;
}

int run_exittrain(const ExitTrainOptions& o, std::ostream& out, std::ostream& progress) {
  if (o.mode != "sim" && o.mode != "live") throw std::invalid_argument("--mode must be sim or live, got " + o.mode);
  if (o.mode == "sim" && o.vocab > 4096) throw std::invalid_argument("--vocab: the synthetic target's tables hold V^2 entries per lag, V at most 4096");
  if (o.mode == "sim" && 2 * o.budget > o.vocab * o.horizon) throw std::invalid_argument("--budget: 2B must fit in V x H tree positions");
  if (o.mode == "live" && o.context_length < o.horizon + 1) throw std::invalid_argument("--horizon: a sampled sequence must hold a context and H more words");
  ResultsFile json_file(o.json_path);
  const double lambda = o.lambda.value_or(static_cast<double>(o.budget));
  const auto start = std::chrono::steady_clock::now();
  std::optional<LiveSetup> live;
  if (o.mode == "live") live = load_live(o);
  std::vector<ExitTrainSeedRun> runs;
  for (std::int32_t k = 0; k < o.seeds; ++k) {
    progress << "seed " << (k + 1) << " of " << o.seeds << '\n';
    const std::uint32_t seed = o.seed + static_cast<std::uint32_t>(k);
    runs.push_back(live ? run_live_seed(o, *live, seed, lambda, progress) : run_sim_seed(o, seed, lambda, progress));
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::string setting = live ? live_setting(o, *live) : sim_setting(o);
  const nlohmann::json results = exittrain_results(config_json(o, lambda, setting), runs, o.alpha, seconds);
  out << report::markdown(exittrain_document(results));
  json_file.write(results, out, 1);
  int status = results.at("summary").at("tev").at("all_agree").get<bool>() ? 0 : 1;
  if (!o.out_dir.empty()) status = finish_exittrain_report(results, {o.out_dir}, out);
  return status;
}

}  // namespace tev
