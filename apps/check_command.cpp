// `tevsuite check`: every verifier on a suite of synthetic trees (or, with --drafts sampled, on
// drafts sampled from q).
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

#include "apps/commands.hpp"
#include "gpu/gpu_engine.hpp"
#include "reports/check_report.hpp"
#include "reports/generation_report.hpp"
#include "reports/results_writer.hpp"
#include "reports/sampled_report.hpp"
#include "reports/verdict_table.hpp"
#include "experiments/check_suite.hpp"
#include "experiments/sampled_check.hpp"
#include "generation/check.hpp"

namespace tev::apps {

namespace {

struct CheckState {
  experiments::CheckSuiteOptions check;
  std::string json_path;  // empty: no JSON
  std::string drafts = "fixed";
  experiments::SampledCheckOptions sampled;
  bool generation = false;
  std::string semantics;  // --generation: only this semantics' requests (all when empty)
  generation::GenerationCheckOptions generation_options;
};

int run_generation(const generation::GenerationCheckOptions& options, const std::string& json_path,
                   const montecarlo::RunContext& context) {
  reports::ResultsWriter json(json_path, context);
  const generation::GenerationCheckResult result =
      generation::run_generation_check(options, std::cerr);
  reports::print_generation_check(options, result, std::cout);
  if (json.wanted()) json.write(reports::generation_check_json(options, result), std::cout);
  return result.exit_code();
}

int run_sampled(const experiments::SampledCheckOptions& options, const std::string& json_path,
                const montecarlo::RunContext& context) {
  reports::ResultsWriter json(json_path, context);
  const experiments::SampledCheckResult result = experiments::run_sampled_check(options, std::cerr);
  reports::print_sampled_check(options, result, std::cout);
  if (json.wanted()) json.write(reports::sampled_check_json(options, result), std::cout);
  return result.exit_code();
}

int run_check(const experiments::CheckSuiteOptions& options, const std::string& json_path,
              const montecarlo::RunContext& context) {
  reports::ResultsWriter json(json_path, context);
  const experiments::CheckSuiteResult result =
      experiments::run_check_suite(options, reports::verifier_progress_lines(std::cerr));
  reports::print_check(options, result, std::cout);
  if (json.wanted() && result.selftest_passed())
    json.write(reports::check_json(options, result), std::cout);
  return result.exit_code();
}

}  // namespace

Command register_check(CLI::App& app, const montecarlo::RunContext& context) {
  auto s = std::make_shared<CheckState>();
  experiments::CheckSuiteOptions& check = s->check;
  check.judging.threads = default_threads();
  auto* cmd = app.add_subcommand(
      "check",
      "Run every verifier (saturated, unsaturated, planted mutants) on a suite of synthetic "
      "trees.\n"
      "Each verifier's blocks are completed (an in-tree bonus is extended by target draws) and "
      "their\n"
      "(exit node, next token) counts tested against the canonical law with Pearson's chi-square;\n"
      "E[L] is tested against 1 + C_p (Chernoff bound under the exact law of L) and every node's "
      "acceptance\n"
      "against P(u); the verifier's exact law is also enumerated on every tree and compared with "
      "the canonical\n"
      "law to 1e-12. The known-answer selftest runs first. Exit code 0 only when every verdict is "
      "the one its\n"
      "kind calls for.");
  cmd->add_option("--trees", check.suite.trees,
                  "trees in the suite (cycles through 8 shape/family recipes)")
      ->check(CLI::Range(1, 10000))
      ->capture_default_str();
  cmd->add_option("--samples", check.judging.samples, "Monte Carlo samples per tree and verifier")
      ->check(CLI::Range(std::uint64_t{100}, std::uint64_t{1} << 40))
      ->capture_default_str();
  cmd->add_option("--vocab", check.suite.vocab,
                  "vocabulary size V (cells per node in the chi-square test)")
      ->check(CLI::Range(2, 4096))
      ->capture_default_str();
  cmd->add_option("--budget", check.suite.budget, "draft nodes per tree, root excluded")
      ->check(CLI::Range(1, 512))
      ->capture_default_str();
  cmd->add_option("--seed", check.suite.seed, "seed for trees, distributions and sampling (32-bit)")
      ->capture_default_str();
  cmd->add_option("--threads", check.judging.threads,
                  "worker threads for Monte Carlo (results do not depend on it)")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  cmd->add_option(
         "--alpha", check.judging.alpha,
         "family-wise false-alarm level of the whole check (split evenly over the verifiers)")
      ->check(CLI::Range(1e-12, 0.5))
      ->capture_default_str();
  cmd->add_option("--tv", check.judging.max_detectable_tv,
                  "the TV every tree must guarantee for 'exact' without enumeration: every law "
                  "this far from the canonical\n"
                  "one, in any direction, rejected with 99 % power (else 'inconclusive'); in (0, "
                  "1); --drafts fixed only")
      ->check(open_unit_interval())
      ->capture_default_str();
  cmd->add_option("--json", s->json_path, "also write the results as JSON to this file");
  cmd->add_option("--drafts", s->drafts,
                  "fixed: target-only verifiers on fixed synthetic trees (the default suite); "
                  "sampled: drafts sampled from a\n"
                  "drafter q by five drafting policies, q-based verifiers (speculative sampling, "
                  "multi-draft rejection\n"
                  "sampling) and their mutants, judged for conditional and marginal exactness (V = "
                  "4 unless --vocab)")
      ->check(CLI::IsMember({"fixed", "sampled"}))
      ->capture_default_str();
  cmd->add_flag("--generation", s->generation,
                "generation-level exactness instead: whole speculative generations (TEV and walk "
                "over drafted trees,\n"
                "speculative sampling on sampled chains, and planted bugs in the state engines "
                "carry: stops, min_tokens,\n"
                "penalties, grammar masks) on five requests in vLLM's, transformers' and "
                "llama.cpp's semantics, each\n"
                "loop's law of emitted sequences judged against plain generation's (exact by "
                "enumeration, and sampled)");
  cmd->add_option("--semantics", s->semantics,
                  "with --generation: only the requests in this engine's semantics (vllm, hf or "
                  "llama_cpp); a fault those\n"
                  "requests do not exercise is then judged exact");
  experiments::SampledCheckOptions& sampled = s->sampled;
  cmd->add_option("--draft-depth", sampled.depth,
                  "sampled drafts: drafting depth D (completion horizon H = D + 1)")
      ->check(CLI::Range(1, 4))
      ->capture_default_str();
  cmd->add_option("--draft-width", sampled.width, "sampled drafts: drafts per node k")
      ->check(CLI::Range(1, 4))
      ->capture_default_str();
  cmd->add_option("--device", check.device,
                  "where the Monte Carlo runs: cpu, or gpu (the fast-path verifiers on the GPU, "
                  "bit-identical counts)")
      ->check(CLI::IsMember({"cpu", "gpu"}))
      ->capture_default_str();

  return {
      cmd, [s, cmd, context] {
        experiments::CheckSuiteOptions& check = s->check;
        if (check.device == "gpu" && gpu_unavailable(std::cerr)) return 2;
        if (check.device == "gpu") check.judging.monte_carlo = gpu::run_monte_carlo;
        check.judging.seed = check.suite.seed;
        check.judging.ranks = context.ranks;
        if (s->generation) {
          for (const char* flag : {"--trees", "--budget", "--vocab", "--tv", "--drafts",
                                   "--draft-depth", "--draft-width", "--device"}) {
            if (cmd->count(flag) > 0)
              throw std::invalid_argument(std::string(flag) + " does not apply to --generation");
          }
          generation::GenerationCheckOptions& g = s->generation_options;
          if (cmd->count("--samples") > 0) g.samples = check.judging.samples;
          g.seed = check.suite.seed;
          g.threads = check.judging.threads;
          g.alpha = check.judging.alpha;
          if (cmd->count("--semantics") > 0)
            g.semantics = generation::parse_semantics(s->semantics);
          return run_generation(g, s->json_path, context);
        }
        if (cmd->count("--semantics") > 0)
          throw std::invalid_argument("--semantics applies to --generation only");
        if (s->drafts == "sampled") {
          if (check.device == "gpu")
            throw std::invalid_argument("--drafts sampled runs on the CPU only");
          // Every sampled-drafts case is enumerated, and the exact law decides at any sample count.
          if (cmd->count("--tv") > 0)
            throw std::invalid_argument(
                "--tv applies to --drafts fixed only: sampled drafts enumerate every case's exact "
                "law");
          for (const char* flag : {"--trees", "--budget"}) {
            if (cmd->count(flag) > 0)
              throw std::invalid_argument(std::string(flag) + " applies to --drafts fixed only");
          }
          experiments::SampledCheckOptions& sampled = s->sampled;
          if (cmd->count("--vocab") > 0) sampled.vocab = check.suite.vocab;
          if (cmd->count("--samples") > 0) sampled.samples = check.judging.samples;
          sampled.seed = check.suite.seed;
          sampled.threads = check.judging.threads;
          sampled.alpha = check.judging.alpha;
          return run_sampled(sampled, s->json_path, context);
        }
        for (const char* flag : {"--draft-depth", "--draft-width"}) {
          if (cmd->count(flag) > 0)
            throw std::invalid_argument(std::string(flag) + " applies to --drafts sampled only");
        }
        return run_check(check, s->json_path, context);
      }};
}

}  // namespace tev::apps
