// `tevsuite conformance emit | check | run`: a verifier written elsewhere against the canonical law.
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

#include "apps/commands.hpp"
#include "conformance/commands.hpp"
#include "generation/request.hpp"
#include "conformance/sample_router.hpp"
#include "core/philox.hpp"
#include "judging/verdict_policy.hpp"
#include "reports/conformance_report.hpp"
#include "reports/results_writer.hpp"

namespace tev::apps {

namespace {

struct ConformanceState {
  conformance::EmitConfig emit;
  conformance::ModelEmitConfig model_emit;
  bool model_cases = false;
  bool generation_cases = false;
  std::string semantics;  // --generation: only this semantics' requests (all when empty)
  conformance::GenerationEmitConfig generation_emit;
  std::string cases_out = "cases.jsonl", cases_in, samples_in, json_path;
  double alpha = judging::kDefaultAlpha;
  double tv = judging::VerdictPolicy{}.max_detectable_tv;
  // The null simulations are keyed by the check's seed (--completion-seed; --seed for run).
  judging::VerdictPolicy policy() const {
    return {.alpha = alpha, .max_detectable_tv = tv, .seed = seed};
  }
  std::uint32_t seed = kDefaultSeed;
  conformance::RunOptions run_options;
};

int print_and_write(const conformance::ConformanceReport& report, reports::ResultsWriter& json) {
  reports::print_conformance(report, std::cout);
  json.write(reports::conformance_json(report), std::cout);
  return report.exit_code();
}

int print_and_write(const conformance::ModelReport& report, reports::ResultsWriter& json) {
  reports::print_model_conformance(report, std::cout);
  json.write(reports::model_conformance_json(report), std::cout);
  return report.exit_code();
}

int print_and_write(const conformance::GenerationReport& report, reports::ResultsWriter& json) {
  reports::print_generation_conformance(report, std::cout);
  json.write(reports::generation_conformance_json(report), std::cout);
  return report.exit_code();
}

int print_and_write(const conformance::BatchReport& report, reports::ResultsWriter& json) {
  reports::print_batch_conformance(report, std::cout);
  json.write(reports::batch_conformance_json(report), std::cout);
  return report.exit_code();
}

// Batch cases come from a cases file that says format_version 5, or from --batch when emitted.
bool wants_batches(const ConformanceState& s, const std::string& cases_path) {
  return cases_path.empty()
             ? s.emit.batch > 0
             : conformance::cases_file_version(cases_path) == conformance::kBatchFormatVersion;
}

// --batch K: --cases counts batches (default 2), and model cases cannot be batched.
void apply_batch_options(ConformanceState& s, const CLI::App& cmd) {
  if (s.emit.batch == 0) return;
  if (s.model_cases)
    throw std::invalid_argument(
        "--batch takes fixed-tree requests: it does not apply to --model-cases");
  if (cmd.count("--cases") == 0) s.emit.cases = conformance::kDefaultBatches;
}

// Model cases come from a cases file that says format_version 2 or 4, or from --model-cases when emitted.
bool wants_model_cases(const ConformanceState& s, const std::string& cases_path) {
  return cases_path.empty()
             ? s.model_cases
             : conformance::is_model_format(conformance::cases_file_version(cases_path));
}

// Generation cases come from a cases file that says format_version 6, or from --generation.
bool wants_generation_cases(const ConformanceState& s, const std::string& cases_path) {
  return cases_path.empty()
             ? s.generation_cases
             : conformance::cases_file_version(cases_path) == conformance::kGenerationFormatVersion;
}

// --generation takes --samples, --seed and --semantics: its requests are check --generation's.
void apply_generation_options(ConformanceState& s, const CLI::App& cmd) {
  if (!s.generation_cases) {
    if (cmd.count("--semantics") > 0)
      throw std::invalid_argument("--semantics applies to --generation only");
    return;
  }
  for (const char* flag :
       {"--cases", "--vocab", "--budget", "--model-cases", "--engine-inputs", "--batch"}) {
    if (cmd.count(flag) > 0)
      throw std::invalid_argument(std::string(flag) +
                                  " does not apply to --generation (its requests are fixed)");
  }
  if (cmd.count("--samples") > 0) s.generation_emit.samples = s.emit.samples;
  s.generation_emit.seed = s.emit.seed;
  if (cmd.count("--semantics") > 0)
    s.generation_emit.semantics = generation::parse_semantics(s.semantics);
}

// --model-cases takes only --cases and --samples from the emit options: their language pairs are fixed.
void apply_model_options(ConformanceState& s, const CLI::App& cmd) {
  if (!s.model_cases) return;
  for (const char* flag : {"--seed", "--vocab", "--budget"}) {
    if (cmd.count(flag) > 0)
      throw std::invalid_argument(
          std::string(flag) + " does not apply to --model-cases (their language pairs are fixed)");
  }
  if (cmd.count("--cases") > 0) s.model_emit.cases = s.emit.cases;
  s.model_emit.engine_inputs = s.emit.engine_inputs;
  if (cmd.count("--samples") > 0) s.model_emit.samples = s.emit.samples;
}

}  // namespace

Command register_conformance(CLI::App& app, const montecarlo::RunContext& context) {
  auto s = std::make_shared<ConformanceState>();
  auto* conf =
      app.add_subcommand("conformance",
                         "Check a verifier written elsewhere (any language) against the canonical "
                         "law, through files or a subprocess.\n"
                         "Cases and samples are JSON lines (the schema: docs/protocol.md). "
                         "Verdicts per case and overall:\n"
                         "exit 0 exact and saturated, 1 not exact, 3 exact but not saturated, 4 "
                         "inconclusive (a case too small to\n"
                         "reject every law at TV 0.05, in any direction, with 99 % power at its "
                         "level: give it more samples), 5 exact but\n"
                         "saturation inconclusive (too few samples to see an E[L] shortfall of "
                         "0.05 tokens), 2 bad input or a failing verifier.\n"
                         "Model cases (format_version 2, emit --model-cases) give a language pair "
                         "p, q instead of a tree: the verifier\n"
                         "drafts from q and verifies itself (speculative sampling, multi-draft "
                         "rejection sampling); every block is\n"
                         "completed with p and judged for marginal exactness: exit 0 exact "
                         "(marginally), 1 not exact, 4 inconclusive, 2 as above.\n"
                         "Batch cases (format_version 5, emit --batch K) hold K fixed-tree "
                         "requests verified together: one block per request per\n"
                         "round; each request is judged as a case, and every two requests of a "
                         "batch must not leak into each other.\n"
                         "Generation cases (format_version 6, emit --generation) hold one request "
                         "of check --generation with its target and drafter\n"
                         "as logit tables: the engine runs whole generations with its own loop, "
                         "judged against plain generation's exact law:\n"
                         "exit 0 exact, 1 not exact, 4 inconclusive, 2 as above.");
  conf->require_subcommand(1);
  conformance::EmitConfig& emit = s->emit;
  auto add_emit_options = [&](CLI::App* cmd) {
    cmd->add_option("--cases", emit.cases, "number of cases (they cycle through 8 kinds)")
        ->check(CLI::Range(1, 100000))
        ->capture_default_str();
    cmd->add_option("--seed", emit.seed, "seed of the generated cases")->capture_default_str();
    cmd->add_option("--vocab", emit.vocab, "vocabulary of the small-vocabulary cases")
        ->check(CLI::Range(4, 65536))
        ->capture_default_str();
    cmd->add_option("--budget", emit.budget, "draft nodes per tree")
        ->check(CLI::Range(4, 4096))
        ->capture_default_str();
    cmd->add_option("--samples", emit.samples,
                    "samples per case (the sparse large-vocabulary case draws 4 times as many)")
        ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 32))
        ->capture_default_str();
  };
  auto add_model_options = [&](CLI::App* cmd) {
    cmd->add_flag("--model-cases", s->model_cases,
                  "model cases (format_version 2) instead: a language pair p, q over V = 4 with "
                  "drafting depth D = 2 and a drafting hint\n"
                  "(chain, independent chains, i.i.d., without replacement, top-k); the verifier "
                  "drafts and verifies itself. Only\n"
                  "--cases and --samples apply to them (default 8 cases x 40000 samples); a cases "
                  "file says its own format_version");
    cmd->add_flag(
        "--engine-inputs", s->emit.engine_inputs,
        "cases as an engine holds them (format_version 3; with --model-cases, 4): float32 logit "
        "rows and sampling\n"
        "parameters (temperature, top-k, top-p, min-p; for model cases the target's and the "
        "drafter's), which the\n"
        "verifier must apply before it verifies; judged against the law of the processed target");
  };
  auto add_batch_option = [&](CLI::App* cmd) {
    cmd->add_option("--batch", s->emit.batch,
                    "batch cases (format_version 5) of this many requests each, verified together: "
                    "one block per request per round,\n"
                    "judged per request and for independence between every two requests of a "
                    "batch; --cases then counts batches\n"
                    "(default 2) and --samples rounds")
        ->check(CLI::Range(1, static_cast<int>(conformance::kMaxBatchRequests)));
  };
  auto add_generation_options = [&](CLI::App* cmd) {
    cmd->add_flag("--generation", s->generation_cases,
                  "generation cases (format_version 6) instead: check --generation's requests "
                  "(V = 5; stops and min_tokens,\n"
                  "penalties and logit bias, a grammar; vLLM's, transformers' and llama.cpp's "
                  "semantics) with their target and drafter\n"
                  "as logit tables; the engine runs its own generation loop, one line of emitted "
                  "tokens per generation. Only --samples\n"
                  "(default 40000 generations a request), --seed and --semantics apply");
    cmd->add_option("--semantics", s->semantics,
                    "with --generation: only the requests in this engine's semantics (vllm, hf or "
                    "llama_cpp)");
  };
  auto* emit_cmd =
      conf->add_subcommand("emit",
                           "Write conformance cases (random, DDTree, chain, star, deep, wide, "
                           "near-deterministic, sparse large-vocabulary),\nor with --model-cases "
                           "language-pair cases for verifiers that draft from q themselves.");
  add_emit_options(emit_cmd);
  add_model_options(emit_cmd);
  add_batch_option(emit_cmd);
  add_generation_options(emit_cmd);
  emit_cmd->add_option("--out", s->cases_out, "cases file to write")->capture_default_str();
  auto* check_cmd = conf->add_subcommand("check",
                                         "Judge a samples file (one {\"case_id\", \"accepted\", "
                                         "\"bonus\"} per line) against its cases file.");
  check_cmd->add_option("cases", s->cases_in, "cases.jsonl")->required()->check(CLI::ExistingFile);
  check_cmd->add_option("samples", s->samples_in, "samples.jsonl")
      ->required()
      ->check(CLI::ExistingFile);
  auto* run_cmd = conf->add_subcommand("run",
                                       "Stream cases to a verifier subprocess (one case line on "
                                       "its stdin, `samples` sample lines back) and judge it.");
  run_cmd
      ->add_option("--verifier-cmd", s->run_options.command,
                   "shell command that starts the verifier")
      ->required();
  run_cmd
      ->add_option("cases", s->cases_in,
                   "cases.jsonl; without it cases are emitted, and only then do --cases, --seed, "
                   "--vocab, --budget and --samples apply")
      ->check(CLI::ExistingFile);
  add_emit_options(run_cmd);
  add_model_options(run_cmd);
  add_batch_option(run_cmd);
  add_generation_options(run_cmd);
  run_cmd
      ->add_option("--timeout", s->run_options.timeout_seconds,
                   "seconds to wait for the verifier's next line")
      ->check(CLI::Range(0.1, 86400.0))
      ->capture_default_str();
  for (CLI::App* cmd : {check_cmd, run_cmd}) {
    cmd->add_option("--json", s->json_path, "also write the verdicts as JSON");
    cmd->add_option("--alpha", s->alpha, "family-wise false-alarm level")
        ->check(CLI::Range(1e-12, 0.5))
        ->capture_default_str();
    cmd->add_option("--tv", s->tv,
                    "the TV every case must guarantee to be called exact: every law this far from "
                    "the canonical one,\n"
                    "in any direction, rejected with 99 % power (else 'inconclusive'); in (0, 1)")
        ->check(open_unit_interval())
        ->capture_default_str();
  }
  check_cmd->add_option("--completion-seed", s->seed, "seed of the completion draws")
      ->capture_default_str();

  return {
      conf, [s, emit_cmd, check_cmd, run_cmd, context] {
        if (emit_cmd->parsed()) {
          apply_generation_options(*s, *emit_cmd);
          if (s->generation_cases) {
            reports::print_emit_summary(conformance::emit_generation_conformance_cases(
                                            s->generation_emit, s->cases_out, context, std::cerr),
                                        s->cases_out, std::cout);
            return 0;
          }
          apply_model_options(*s, *emit_cmd);
          apply_batch_options(*s, *emit_cmd);
          reports::print_emit_summary(
              s->model_cases ? conformance::emit_model_conformance_cases(
                                   s->model_emit, s->cases_out, context, std::cerr)
              : s->emit.batch
                  ? conformance::emit_batch_conformance_cases(s->emit, s->cases_out, context,
                                                              std::cerr)
                  : conformance::emit_conformance_cases(s->emit, s->cases_out, context, std::cerr),
              s->cases_out, std::cout);
          return 0;
        }
        reports::ResultsWriter json(s->json_path, context);
        if (check_cmd->parsed()) {
          if (wants_generation_cases(*s, s->cases_in)) {
            return print_and_write(
                conformance::judge_generation_case_files(s->cases_in, s->samples_in, s->policy()),
                json);
          }
          if (wants_model_cases(*s, s->cases_in)) {
            return print_and_write(conformance::judge_model_case_files(s->cases_in, s->samples_in,
                                                                       s->seed, s->policy()),
                                   json);
          }
          if (wants_batches(*s, s->cases_in)) {
            return print_and_write(conformance::judge_batch_case_files(s->cases_in, s->samples_in,
                                                                       s->seed, s->policy()),
                                   json);
          }
          return print_and_write(conformance::judge_conformance_files(s->cases_in, s->samples_in,
                                                                      s->seed, s->policy()),
                                 json);
        }
        apply_generation_options(*s, *run_cmd);
        apply_model_options(*s, *run_cmd);
        apply_batch_options(*s, *run_cmd);
        conformance::RunOptions options = s->run_options;
        options.policy = s->policy();
        options.policy.seed = s->emit.seed;
        if (wants_generation_cases(*s, s->cases_in)) {
          return print_and_write(conformance::run_generation_conformance_verifier(
                                     s->cases_in, s->generation_emit, options, std::cerr),
                                 json);
        }
        if (wants_model_cases(*s, s->cases_in)) {
          return print_and_write(conformance::run_model_conformance_verifier(
                                     s->cases_in, s->model_emit, options, std::cerr),
                                 json);
        }
        if (wants_batches(*s, s->cases_in)) {
          return print_and_write(
              conformance::run_batch_conformance_verifier(s->cases_in, s->emit, options, std::cerr),
              json);
        }
        return print_and_write(
            conformance::run_conformance_verifier(s->cases_in, s->emit, options, std::cerr), json);
      }};
}

}  // namespace tev::apps
