#include "reports/exittrain_report.hpp"

#include <ostream>
#include <string>

#include "reports/document.hpp"
#include "reports/exittrain.hpp"

namespace tev::reports {

namespace {

std::string sim_setting(const exittrain::ExitTrainOptions& o) {
  return "Synthetic order-" + std::to_string(o.target_order) +
         " Markov target over V = " + std::to_string(o.vocab) + " (Gaussian logit tables, sd " +
         num(o.target_scale) + " per lag); linear block drafter over the last " +
         std::to_string(o.lookback) + " token(s), H = " + std::to_string(o.horizon) +
         " marginal rows, starting from zero (uniform rows); DDTree best-first trees; target rows "
         "under the real tree-parent context.";
}

std::string live_setting(const exittrain::ExitTrainOptions& o, std::int32_t target_vocab) {
  return "Target: the CMU Sphinx US-English trigram (" + std::to_string(target_vocab) +
         " words; rows normalized, scored word by word and cached by history). Drafter: the " +
         std::to_string(o.vocab) +
         " most probable words of the model's unigram row each get a bucket, every other word "
         "shares an \"other\" bucket whose mass is spread evenly over them; "
         "an embedding (D = " +
         std::to_string(o.embedding) + ") of the last " + std::to_string(o.lookback) +
         " word(s) feeds H = " + std::to_string(o.horizon) +
         " linear heads over the buckets (Gaussian start, sd " + num(exittrain::kLiveInitScale) +
         "). Data: sequences of " + std::to_string(o.context_length) +
         " words sampled from the trigram after <s> (</s> never drawn), cut into (context, next H "
         "words) examples; held-out contexts are further samples. "
         "DDTree best-first trees; target rows under the real tree-parent context.";
}

nlohmann::json config_json(const exittrain::ExitTrainOptions& o, double lambda,
                           const std::string& setting) {
  nlohmann::json config = {
      {"mode", o.mode},
      {"setting", setting},
      {"budget", o.budget},
      {"steps", o.steps},
      {"warmup_steps", o.warmup_steps},
      {"seeds", o.seeds},
      {"first_seed", o.seed},
      {"vocab", o.vocab},
      {"horizon", o.horizon},
      {"lookback", o.lookback},
      {"context_length", o.context_length},
      {"batch", o.batch},
      {"learning_rate", o.learning_rate},
      {"lambda", lambda},
      {"lambda_choice", o.lambda ? "set with --lambda" : exittrain::kLambdaRationale},
      {"test_contexts", o.test_contexts},
      {"tev_samples_per_tree", o.tev_samples},
      {"alpha", o.alpha},
      {"threads", o.threads}};
  if (o.mode == "sim") {
    config["target_order"] = o.target_order;
    config["target_scale"] = o.target_scale;
  } else {
    config["embedding"] = o.embedding;
  }
  return config;
}

}  // namespace

nlohmann::json exittrain_results_json(const exittrain::ExitTrainOptions& options,
                                      const exittrain::ExitTrainRuns& runs) {
  const std::string setting =
      options.mode == "live" ? live_setting(options, runs.target_vocab) : sim_setting(options);
  return exittrain_results(config_json(options, runs.lambda, setting), runs.runs, runs.agreement,
                           runs.seconds);
}

void write_exittrain_report(const nlohmann::json& results, const RenderOptions& render,
                            std::ostream& out) {
  const RenderResult written = render_report(results, render);
  for (const auto& file : written.files) out << "wrote " << file.string() << '\n';
}

}  // namespace tev::reports
