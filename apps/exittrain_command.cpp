#include "apps/exittrain_command.hpp"

#include <chrono>
#include <fstream>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "reports/exittrain.hpp"
#include "sim/exittrain_models.hpp"

namespace tev {

namespace {

// Why λ defaults to B, fixed before any run: L_tok puts total weight 1 on a batch (1/(nH) per
// row term), while eq. 14's denominator Σ(|V_i| − 1) = nB leaves the tree term a total of
// mean(1 − w(r))/B. λ = B gives both terms the same order of total weight.
constexpr const char* kLambdaRationale =
    "fixed in advance at lambda = B, so the tree term's total weight per batch, mean(1 - w(r)), matches the token term's 1; not tuned";

// Generation ids of a seed's independent draws.
enum DrawId : std::uint32_t { kWarmupExamples = 1, kTrainingExamples = 2, kTestContexts = 3 };

ExitTrainSeedRun run_seed(const ExitTrainOptions& o, std::uint32_t seed, double lambda, std::ostream& progress) {
  const MarkovTarget target(o.vocab, o.target_order, o.target_scale, seed);
  LinearBlockDrafter drafter(o.vocab, o.horizon, o.lookback);
  PhiloxEngine warmup_engine(seed, kWarmupExamples), training_engine(seed, kTrainingExamples), test_engine(seed, kTestContexts);
  const auto warmup = sample_examples(target, o.warmup_steps * o.batch, o.context_length, o.horizon, warmup_engine);
  const auto examples = sample_examples(target, o.steps * o.batch, o.context_length, o.horizon, training_engine);
  std::vector<std::vector<Token>> test;
  for (std::int32_t i = 0; i < o.test_contexts; ++i) test.push_back(sample_context(target, o.context_length, test_engine));
  ComparisonConfig config;
  config.training = {{Objective::token_only, o.budget, lambda}, o.steps, o.batch, o.learning_rate};
  config.warmup_steps = o.warmup_steps;
  config.tev_samples_per_tree = o.tev_samples;
  config.seed = seed;
  config.threads = o.threads;
  auto say = [&](std::string_view stage) { progress << "  seed " << seed << ": " << stage << '\n'; };
  return {seed, compare_objectives(drafter, target, warmup, examples, test, config, say)};
}

nlohmann::json config_json(const ExitTrainOptions& o, double lambda) {
  const std::string setting = "Synthetic order-" + std::to_string(o.target_order) + " Markov target over V = " + std::to_string(o.vocab) +
                              " (Gaussian logit tables, sd " + report::num(o.target_scale) + " per lag); linear block drafter over the last " +
                              std::to_string(o.lookback) + " token(s), H = " + std::to_string(o.horizon) +
                              " marginal rows, starting from zero (uniform rows); DDTree best-first trees; target rows under the real tree-parent context.";
  return {{"mode", o.mode},          {"setting", setting},           {"budget", o.budget},
          {"steps", o.steps},        {"warmup_steps", o.warmup_steps}, {"seeds", o.seeds},
          {"first_seed", o.seed},    {"vocab", o.vocab},             {"horizon", o.horizon},
          {"target_order", o.target_order}, {"target_scale", o.target_scale}, {"lookback", o.lookback},
          {"context_length", o.context_length}, {"batch", o.batch}, {"learning_rate", o.learning_rate},
          {"lambda", lambda},        {"lambda_choice", o.lambda ? "set with --lambda" : kLambdaRationale},
          {"test_contexts", o.test_contexts}, {"tev_samples_per_tree", o.tev_samples}, {"alpha", o.alpha}, {"threads", o.threads}};
}

}  // namespace

int finish_exittrain_report(const nlohmann::json& results, const RenderOptions& render, std::ostream& out) {
  const RenderResult written = render_report(results, render);
  for (const auto& file : written.files) out << "wrote " << file.string() << '\n';
  return results.at("summary").at("tev").at("all_agree").get<bool>() ? 0 : 1;
}

int run_exittrain(const ExitTrainOptions& o, std::ostream& out, std::ostream& progress) {
  if (o.mode == "live") {
    progress << "tevsuite exittrain: --mode live needs the real-model harness (trigram target, block drafter), which is not built yet; use --mode sim\n";
    return 2;
  }
  if (o.mode != "sim") throw std::invalid_argument("--mode must be sim or live, got " + o.mode);
  if (2 * o.budget > o.vocab * o.horizon) throw std::invalid_argument("--budget: 2B must fit in V x H tree positions");
  std::ofstream json_file;
  if (!o.json_path.empty()) {
    json_file.open(o.json_path);  // fail on a bad path before the long run
    if (!json_file) throw std::runtime_error("cannot write " + o.json_path);
  }
  const double lambda = o.lambda.value_or(static_cast<double>(o.budget));
  const auto start = std::chrono::steady_clock::now();
  std::vector<ExitTrainSeedRun> runs;
  for (std::int32_t k = 0; k < o.seeds; ++k) {
    progress << "seed " << (k + 1) << " of " << o.seeds << '\n';
    runs.push_back(run_seed(o, o.seed + static_cast<std::uint32_t>(k), lambda, progress));
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const nlohmann::json results = exittrain_results(config_json(o, lambda), runs, o.alpha, seconds);
  out << report::markdown(exittrain_document(results));
  if (!o.json_path.empty()) {
    json_file << results.dump(1) << '\n';
    if (!json_file) throw std::runtime_error("error writing " + o.json_path);
    out << "wrote " << o.json_path << '\n';
  }
  int status = results.at("summary").at("tev").at("all_agree").get<bool>() ? 0 : 1;
  if (!o.out_dir.empty()) status = finish_exittrain_report(results, {o.out_dir}, out);
  return status;
}

}  // namespace tev
