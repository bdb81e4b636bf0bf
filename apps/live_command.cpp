// `tevsuite live`: the same checks on live trees from real models.
#include <iostream>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "apps/commands.hpp"
#include "live/live_checks.hpp"
#include "live/live_generation.hpp"
#include "live/live_sampled.hpp"
#include "reports/generation_report.hpp"
#include "reports/live_report.hpp"
#include "reports/live_sampled_report.hpp"
#include "reports/results_writer.hpp"
#include "reports/verdict_table.hpp"

namespace tev::apps {

namespace {
struct LiveState {
  live::LiveOptions live;
  std::vector<std::string> builders;
  bool no_enumeration = false;
  std::string json_path;
  std::string drafts = "fixed";
  live::LiveSampledOptions sampled;
  bool generation = false;
  std::string prompt{live::kDefaultPrompt};
};

// Flags of live's tree checks that mean nothing to --generation.
constexpr const char* kTreeOnlyFlags[] = {"--builder",
                                          "--contexts",
                                          "--context-length",
                                          "--budget",
                                          "--temperature",
                                          "--chooser-samples",
                                          "--mutants",
                                          "--no-enumeration",
                                          "--rounds",
                                          "--first-word-samples",
                                          "--dump",
                                          "--from",
                                          "--drafts",
                                          "--draft-depth",
                                          "--first-word-depth",
                                          "--draft-width",
                                          "--draft-top-k",
                                          "--draws-per-round"};

int run_live_generation(const LiveState& s, const CLI::App& live_cmd,
                        const montecarlo::RunContext& context) {
  for (const char* flag : kTreeOnlyFlags) {
    if (live_cmd.count(flag) > 0)
      throw std::invalid_argument(std::string(flag) + " does not apply to --generation");
  }
  live::LiveGenerationOptions options;
  options.models = s.live.models;
  options.prompt = s.prompt;
  if (live_cmd.count("--samples") > 0) options.check.samples = s.live.judging.samples;
  options.check.seed = s.live.judging.seed;
  options.check.alpha = s.live.judging.alpha;
  options.check.threads = s.live.judging.threads;
  if (live_cmd.count("--tv") > 0)
    options.check.max_detectable_tv = s.live.judging.max_detectable_tv;
  reports::ResultsWriter json(s.json_path, context);
  const generation::GenerationCheckResult result = live::run_live_generation(options, std::cerr);
  reports::print_generation_check(options.check, result, std::cout);
  json.write(reports::generation_check_json(options.check, result), std::cout);
  return result.exit_code();
}
}  // namespace

Command register_live(CLI::App& app, const montecarlo::RunContext& context) {
  auto s = std::make_shared<LiveState>();
  live::LiveOptions& live = s->live;
  live.judging.threads = default_threads();
  auto* live_cmd = app.add_subcommand("live",
                                      "The same checks on live trees: a real drafter builds each "
                                      "tree under a context sampled from a real target,\n"
                                      "whose next-token rows over the full vocabulary are the law "
                                      "every verifier must reproduce. Default target:\n"
                                      "the CMU Sphinx US-English trigram model (72,547 words, "
                                      "Debian pocketsphinx-en-us); drafters: its bigram view\n"
                                      "and a bigram+unigram mix. Also runs speculative generation "
                                      "with TEV (tokens per round against 1 + C_p) and\n"
                                      "tests the first generated word against the target's row. "
                                      "Exit code 0 when every verdict holds.");
  live_cmd
      ->add_option(
          "--lm", live.models.family,
          "model family: sphinx (the Debian trigram) or llama2c (a checkpoint given by --model)")
      ->transform(CLI::CheckedTransformer(std::map<std::string, models::LiveFamily>{
          {"sphinx", models::LiveFamily::sphinx}, {"llama2c", models::LiveFamily::llama2c}}))
      ->capture_default_str();
  live_cmd->add_option("--model", live.models.model_path,
                       "model file: a llama2.c checkpoint, or another Sphinx .lm.bin");
  live_cmd->add_option("--tokenizer", live.models.tokenizer_path,
                       "llama2.c tokenizer.bin, to print text instead of token ids");
  live_cmd
      ->add_option("--drafter", live.models.drafters,
                   "drafters (sphinx: bigram, interpolated; llama2c: layers:K) [default: all of "
                   "the family's]")
      ->delimiter(',');
  live_cmd
      ->add_option("--builder", s->builders,
                   "tree builders: ddtree (per-depth marginals along the drafter's argmax chain), "
                   "dynamic (EAGLE-2-style, per-node rows) [default: both]")
      ->delimiter(',')
      ->check(CLI::IsMember({"ddtree", "dynamic"}));
  live_cmd
      ->add_option("--contexts", live.contexts,
                   "contexts per drafter x builder, sampled from the target")
      ->check(CLI::Range(1, 10000))
      ->capture_default_str();
  live_cmd
      ->add_option("--context-length", live.context_length,
                   "tokens sampled after the start token for each context")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  live_cmd->add_option("--budget", live.tree.budget, "draft nodes per tree, root excluded")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  live_cmd
      ->add_option("--temperature", live.tree.temperature,
                   "sampling temperature of target and drafter")
      ->check(CLI::Range(0.05, 20.0))
      ->capture_default_str();
  live_cmd
      ->add_option("--samples", live.judging.samples,
                   "Monte Carlo samples per tree for verifiers with a fast path")
      ->check(CLI::Range(std::uint64_t{100}, std::uint64_t{1} << 40))
      ->capture_default_str();
  live_cmd
      ->add_option("--chooser-samples", live.chooser_samples,
                   "samples per tree for the other verifiers (each draw costs O(V))")
      ->check(CLI::Range(std::uint64_t{100}, std::uint64_t{1} << 40))
      ->capture_default_str();
  live_cmd->add_flag(
      "--mutants", live.mutants,
      "also run the planted mutants (slow at V = 72,547: several redo O(N V) work per sample)");
  live_cmd->add_flag("--no-enumeration", s->no_enumeration,
                     "skip the exact laws (lumped enumeration: O(V) per run of the tree plus one "
                     "O(N V) pass per verifier; seconds at\n"
                     "B = 128, V = 151,936)");
  live_cmd
      ->add_option("--rounds", live.rounds, "speculative generation rounds per drafter x builder")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  live_cmd
      ->add_option("--first-word-samples", live.first_word_samples,
                   "TEV rounds for the first-word test")
      ->check(CLI::Range(std::uint64_t{100}, std::uint64_t{1} << 40))
      ->capture_default_str();
  live_cmd->add_option("--seed", live.judging.seed, "seed for contexts and sampling (32-bit)")
      ->capture_default_str();
  live_cmd->add_option("--threads", live.judging.threads, "worker threads")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  live_cmd
      ->add_option("--alpha", live.judging.alpha, "family-wise false-alarm level of the whole run")
      ->check(CLI::Range(1e-12, 0.5))
      ->capture_default_str();
  live_cmd
      ->add_option("--tv", live.judging.max_detectable_tv,
                   "the TV every tree (with --drafts sampled: every first-word case) must "
                   "guarantee for 'exact' without\n"
                   "enumeration (every law this far rejected with 99 % power); in (0, 1)")
      ->check(open_unit_interval())
      ->capture_default_str();
  live_cmd->add_option("--json", s->json_path, "also write the results as JSON");
  live_cmd->add_option("--dump", live.dump_dir,
                       "write every live tree to this folder (tree-K.json; format: "
                       "docs/protocol.md, live-tree dumps)");
  live_cmd
      ->add_option(
          "--from", live.from_dir,
          "check the live-tree dumps in this folder instead of building trees (no model needed)")
      ->check(CLI::ExistingDirectory);
  live_cmd
      ->add_option("--drafts", s->drafts,
                   "fixed: the checks above on trees a builder ranks (the default); sampled: trees "
                   "sampled from the drafter's\n"
                   "rows cut to their top-k words (chain, k i.i.d. children, k without "
                   "replacement), verified by TEV and the\n"
                   "q-based verifiers (speculative sampling, recursive rejection sampling with and "
                   "without replacement) and two\n"
                   "q-based mutants: the first generated word on a fresh tree per sample against "
                   "the target's next-word row\n"
                   "(chi-square; exact law over the root's drafts and tests), and tokens per round "
                   "of TEV and each q-based\n"
                   "verifier on the same trees. About 3 minutes of CPU (7 minutes wall measured on "
                   "2 cores under heavy load).")
      ->check(CLI::IsMember({"fixed", "sampled"}))
      ->capture_default_str();
  live::LiveSampledOptions& sampled = s->sampled;
  live_cmd
      ->add_option("--draft-depth", sampled.draft_depth,
                   "sampled drafts: drafting depth D of the rounds' trees")
      ->check(CLI::Range(1, 4))
      ->capture_default_str();
  live_cmd
      ->add_option("--first-word-depth", sampled.first_word_depth,
                   "sampled drafts: drafting depth of the first-word test's trees (a q-based "
                   "verifier's first word has the same law at\n"
                   "any depth; TEV pays O(N V) per fresh tree)")
      ->check(CLI::Range(1, 4))
      ->capture_default_str();
  live_cmd
      ->add_option("--draft-width", sampled.draft_width,
                   "sampled drafts: drafts per node k (i.i.d. and without replacement)")
      ->check(CLI::Range(1, 4))
      ->capture_default_str();
  live_cmd
      ->add_option("--draft-top-k", sampled.top_k,
                   "sampled drafts: each drafter row is cut to its K most likely words (bounds the "
                   "rows a tree can read)")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  live_cmd
      ->add_option("--draws-per-round", sampled.draws_per_round,
                   "sampled drafts: verifications of each round's tree per verifier")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();

  live_cmd->add_flag(
      "--generation", s->generation,
      "instead of the tree checks: the generation-level check (check --generation's loops and "
      "planted faults) on\n"
      "the real target and each drafter, with requests read off the target's row after --prompt "
      "(top-k 2, up to 4\n"
      "new tokens: every loop's law of emitted sequences enumerated exactly over the full "
      "vocabulary). Takes --lm,\n"
      "--model, --tokenizer, --drafter, --samples (generations per loop and request, default "
      "2000), --seed, --threads,\n"
      "--alpha, --tv (default 0.05: the policy's; about 40000 generations reach it), --json");
  live_cmd
      ->add_option("--prompt", s->prompt,
                   "--generation: the prompt, words of the model's vocabulary (or the tokenizer's "
                   "pieces) after its begin token")
      ->capture_default_str();

  return {
      live_cmd, [s, context, live_cmd] {
        if (s->generation) return run_live_generation(*s, *live_cmd, context);
        if (live_cmd->count("--prompt") > 0)
          throw std::invalid_argument("--prompt applies to --generation only");
        if (s->drafts == "sampled") {
          for (const char* flag :
               {"--builder", "--budget", "--samples", "--chooser-samples", "--mutants",
                "--no-enumeration", "--dump", "--from", "--contexts"}) {
            if (live_cmd->count(flag) > 0)
              throw std::invalid_argument(std::string(flag) + " applies to --drafts fixed only");
          }
          // The options both modes share; rounds and first-word samples keep the sampled defaults unless given.
          live::LiveSampledOptions options = s->sampled;
          options.context_length = s->live.context_length;
          options.temperature = s->live.tree.temperature;
          if (live_cmd->count("--rounds") > 0) options.rounds = s->live.rounds;
          if (live_cmd->count("--first-word-samples") > 0)
            options.first_word_samples = s->live.first_word_samples;
          options.seed = s->live.judging.seed;
          options.threads = s->live.judging.threads;
          options.alpha = s->live.judging.alpha;
          options.max_detectable_tv = s->live.judging.max_detectable_tv;
          reports::ResultsWriter json(s->json_path, context);
          const live::LiveSampledResult result =
              live::run_live_sampled(s->live.models, options, std::cerr);
          reports::print_live_sampled(options, result, std::cout);
          json.write(reports::live_sampled_json(options, result), std::cout);
          return result.exit_code();
        }
        for (const char* flag : {"--draft-depth", "--first-word-depth", "--draft-width",
                                 "--draft-top-k", "--draws-per-round"}) {
          if (live_cmd->count(flag) > 0)
            throw std::invalid_argument(std::string(flag) + " applies to --drafts sampled only");
        }
        live::LiveOptions options = s->live;
        options.judging.enumerate = !s->no_enumeration;
        if (!s->builders.empty()) {
          options.builders.clear();
          for (const std::string& b : s->builders)
            options.builders.push_back(b == "ddtree" ? live::TreeBuilder::ddtree
                                                     : live::TreeBuilder::dynamic);
        }
        reports::ResultsWriter json(s->json_path, context);
        const live::LiveResult result = live::run_live_checks(
            options, context, std::cerr, reports::verifier_progress_lines(std::cerr));
        reports::print_live(options, result, std::cout);
        json.write(reports::live_json(options, result), std::cout);
        return result.exit_code();
      }};
}

}  // namespace tev::apps
