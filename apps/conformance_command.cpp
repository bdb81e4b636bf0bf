// `tevsuite conformance emit | check | run`: a verifier written elsewhere against the canonical law.
#include <iostream>
#include <memory>
#include <string>

#include "apps/commands.hpp"
#include "conformance/commands.hpp"
#include "conformance/sample_router.hpp"
#include "reports/conformance_report.hpp"
#include "reports/results_writer.hpp"

namespace tev::apps {

namespace {

struct ConformanceState {
  conformance::EmitConfig emit;
  std::string cases_out = "cases.jsonl", cases_in, samples_in, json_path;
  double alpha = 1e-3;
  std::uint32_t seed = 20261130;
  conformance::RunOptions run_options;
};

int print_and_write(const conformance::ConformanceReport& report, ResultsWriter& json) {
  const int code = print_conformance(report, std::cout);
  json.write(conformance_json(report), std::cout);
  return code;
}

}  // namespace

Command register_conformance(CLI::App& app, const RunContext& context) {
  auto s = std::make_shared<ConformanceState>();
  auto* conf = app.add_subcommand(
      "conformance",
      "Check a verifier written elsewhere (any language) against the canonical law, through files or a subprocess.\n"
      "Cases and samples are JSON lines (see the README for the schema). Verdicts per case and overall:\n"
      "exit 0 exact and saturated, 1 not exact, 3 exact but not saturated, 4 inconclusive (a case too small to\n"
      "detect a TV of 0.05 with 99 % power at its level: give it more samples), 2 bad input or a failing verifier.");
  conf->require_subcommand(1);
  conformance::EmitConfig& emit = s->emit;
  auto add_emit_options = [&](CLI::App* cmd) {
    cmd->add_option("--cases", emit.cases, "number of cases (they cycle through 8 kinds)")->check(CLI::Range(1, 100000))->capture_default_str();
    cmd->add_option("--seed", emit.seed, "seed of the generated cases")->capture_default_str();
    cmd->add_option("--vocab", emit.vocab, "vocabulary of the small-vocabulary cases")->check(CLI::Range(4, 65536))->capture_default_str();
    cmd->add_option("--budget", emit.budget, "draft nodes per tree")->check(CLI::Range(4, 4096))->capture_default_str();
    cmd->add_option("--samples", emit.samples, "samples per case")->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 32))->capture_default_str();
  };
  auto* emit_cmd = conf->add_subcommand("emit", "Write conformance cases (random, DDTree, chain, star, deep, wide, near-deterministic, sparse large-vocabulary).");
  add_emit_options(emit_cmd);
  emit_cmd->add_option("--out", s->cases_out, "cases file to write")->capture_default_str();
  auto* check_cmd = conf->add_subcommand("check", "Judge a samples file (one {\"case_id\", \"accepted\", \"bonus\"} per line) against its cases file.");
  check_cmd->add_option("cases", s->cases_in, "cases.jsonl")->required()->check(CLI::ExistingFile);
  check_cmd->add_option("samples", s->samples_in, "samples.jsonl")->required()->check(CLI::ExistingFile);
  auto* run_cmd = conf->add_subcommand("run", "Stream cases to a verifier subprocess (one case line on its stdin, `samples` sample lines back) and judge it.");
  run_cmd->add_option("--verifier-cmd", s->run_options.command, "shell command that starts the verifier")->required();
  run_cmd->add_option("cases", s->cases_in, "cases.jsonl; without it cases are emitted, and only then do --cases, --seed, --vocab, --budget and --samples apply")
      ->check(CLI::ExistingFile);
  add_emit_options(run_cmd);
  run_cmd->add_option("--timeout", s->run_options.timeout_seconds, "seconds to wait for the verifier's next line")->check(CLI::Range(0.1, 86400.0))->capture_default_str();
  for (CLI::App* cmd : {check_cmd, run_cmd}) {
    cmd->add_option("--json", s->json_path, "also write the verdicts as JSON");
    cmd->add_option("--alpha", s->alpha, "family-wise false-alarm level")->check(CLI::Range(1e-12, 0.5))->capture_default_str();
  }
  check_cmd->add_option("--completion-seed", s->seed, "seed of the completion draws")->capture_default_str();

  return {conf, [s, emit_cmd, check_cmd, context] {
            if (emit_cmd->parsed()) {
              print_emit_summary(conformance::emit_conformance_cases(s->emit, s->cases_out, context, std::cerr), s->cases_out, std::cout);
              return 0;
            }
            ResultsWriter json(s->json_path, context);
            if (check_cmd->parsed()) return print_and_write(conformance::judge_conformance_files(s->cases_in, s->samples_in, s->seed, s->alpha), json);
            conformance::RunOptions options = s->run_options;
            options.alpha = s->alpha;
            return print_and_write(conformance::run_conformance_verifier(s->cases_in, s->emit, options, std::cerr), json);
          }};
}

}  // namespace tev::apps
