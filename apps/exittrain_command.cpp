// `tevsuite exittrain`: token-only vs prefix-weighted vs exit-guided drafter training.
#include <iostream>
#include <memory>
#include <string>

#include "apps/commands.hpp"
#include "exittrain/exittrain_runs.hpp"
#include "reports/document.hpp"
#include "reports/exittrain.hpp"
#include "reports/exittrain_report.hpp"
#include "reports/results_writer.hpp"

namespace tev::apps {

namespace {

struct ExitTrainState {
  exittrain::ExitTrainOptions exittrain;
  double lambda = 0.0;
  std::string json_path;
  std::string out_dir;  // when set, report.md / report.html / results.json go here
};

// "--budget 8, --steps 100, ...": the live defaults as the help text names them.
std::string live_defaults_text() {
  std::string text;
  for (const exittrain::LiveDefault& d : exittrain::exittrain_live_defaults())
    text += (text.empty() ? "" : ", ") + std::string(d.flag) + " " + std::to_string(d.value);
  return text;
}

}  // namespace

Command register_exittrain(CLI::App& app, const montecarlo::RunContext& context) {
  auto s = std::make_shared<ExitTrainState>();
  exittrain::ExitTrainOptions& exittrain = s->exittrain;
  exittrain.threads = default_threads();
  auto* etr = app.add_subcommand("exittrain",
                                 "ExitTrain (paper section 5, appendix C): train a block drafter "
                                 "three ways from one warm start, with the same\n"
                                 "examples, steps, learning rate and lambda: token-only (dense "
                                 "cross-entropy on target continuations),\n"
                                 "prefix-weighted (+ lambda * P(v)(1 - w(r))/C_p on every tree "
                                 "node's token) and exit-guided (+ lambda * w(v),\n"
                                 "eq. 14). Trees are DDTree best-first from the drafter's H "
                                 "marginal rows; the frozen target scores every node\n"
                                 "under its real tree-parent context; weights are detached. Each "
                                 "trained drafter builds trees on held-out\n"
                                 "contexts at B/2, B and 2B: prints the exact mean 1 + C_p (mean "
                                 "+- sd over seeds), paired differences, and\n"
                                 "TEV's measured mean L against 1 + C_p. Exit 0 when TEV agrees "
                                 "everywhere, 1 when not, 2 on bad input.\n"
                                 "Sim defaults take under a minute on 2 cores. --mode live trains "
                                 "a frequent-words block drafter against the\n"
                                 "Sphinx English trigram; its defaults differ and take about 16 "
                                 "minutes on 2 cores (--vocab: the drafter's K\n"
                                 "frequent words): " +
                                     live_defaults_text() + ".");
  etr->add_option("--mode", exittrain.mode,
                  "sim: synthetic Markov target and linear drafter; live: the Sphinx trigram and a "
                  "frequent-words drafter")
      ->check(CLI::IsMember({"sim", "live"}))
      ->capture_default_str();
  etr->add_option("--budget", exittrain.budget,
                  "training tree budget B (non-root nodes); evaluated at B/2, B, 2B")
      ->check(CLI::Range(2, 1024))
      ->capture_default_str();
  etr->add_option("--steps", exittrain.steps, "training steps per objective")
      ->check(CLI::Range(0, 1000000))
      ->capture_default_str();
  etr->add_option("--warmup-steps", exittrain.warmup_steps,
                  "shared token-only steps before the objectives split (the common initialization)")
      ->check(CLI::Range(0, 1000000))
      ->capture_default_str();
  etr->add_option("--seeds", exittrain.seeds,
                  "independent repetitions (sim: target, data and test contexts change with the "
                  "seed; live: data, test contexts and the drafter's start)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  etr->add_option("--seed", exittrain.seed, "first seed (32-bit); seed k is seed + k")
      ->capture_default_str();
  etr->add_option("--vocab", exittrain.vocab,
                  "sim: vocabulary size V of the synthetic target; live: the drafter's K most "
                  "probable words (the rest share a bucket)")
      ->check(CLI::Range(8, 65536))
      ->capture_default_str();
  etr->add_option("--embedding", exittrain.embedding, "live: the drafter's embedding size D")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  etr->add_option("--context-length", exittrain.context_length,
                  "sim: context length; live: words per sequence sampled from the trigram")
      ->check(CLI::Range(2, 4096))
      ->capture_default_str();
  etr->add_option("--horizon", exittrain.horizon,
                  "H: drafter block size and the trees' depth limit")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  etr->add_option("--batch", exittrain.batch, "contexts per training step")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  etr->add_option("--learning-rate", exittrain.learning_rate,
                  "Adam learning rate, the same for every objective")
      ->check(CLI::Range(1e-6, 10.0))
      ->capture_default_str();
  etr->add_option(
         "--lambda", s->lambda,
         "weight of the tree term (default: B, fixed in advance; see docs/commands/exittrain.md)")
      ->check(CLI::Range(0.0, 1e6));
  etr->add_option("--test-contexts", exittrain.test_contexts, "held-out contexts per seed")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  etr->add_option("--tev-samples", exittrain.tev_samples, "TEV rounds per held-out tree")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 32))
      ->capture_default_str();
  etr->add_option("--alpha", exittrain.alpha,
                  "family-wise level of the TEV mean-L check (Bonferroni over cells and seeds)")
      ->check(CLI::Range(1e-12, 0.5))
      ->capture_default_str();
  etr->add_option("--threads", exittrain.threads,
                  "worker threads for TEV's Monte Carlo (results do not depend on it)")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  etr->add_option("--json", s->json_path,
                  "also write results and training curves as JSON (tevsuite report renders it)");
  etr->add_option("--out", s->out_dir,
                  "also write report.md, report.html and results.json into this folder");

  return {
      etr, [s, etr, context] {
        exittrain::ExitTrainOptions options = s->exittrain;
        if (etr->count("--lambda") > 0) options.lambda = s->lambda;
        if (options.mode == "live")
          options = exittrain::with_live_defaults(
              options, [&](std::string_view flag) { return etr->count(std::string(flag)) > 0; });
        reports::ResultsWriter json(s->json_path, context);
        const exittrain::ExitTrainRuns runs = exittrain::run_exittrain(options, context, std::cerr);
        const nlohmann::json results = reports::exittrain_results_json(options, runs);
        std::cout << reports::markdown(reports::exittrain_document(results));
        json.write(results, std::cout, 1);
        if (!s->out_dir.empty() && context.writes_files)
          reports::write_exittrain_report(results, {s->out_dir}, std::cout);
        return runs.agreement.all_agree ? 0 : 1;
      }};
}

}  // namespace tev::apps
