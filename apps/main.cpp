// tevsuite: verification and simulation suite for tree speculative decoding.
#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>
#include <map>
#include <optional>
#include <stdexcept>
#include <thread>

#include "apps/bench_command.hpp"
#include "apps/check.hpp"
#include "apps/conformance_command.hpp"
#include "apps/exittrain_command.hpp"
#include "apps/live_command.hpp"
#include "apps/sampled_check.hpp"
#include "apps/theorem1_command.hpp"
#include "gpu/gpu_engine.hpp"
#include "sim/distributed.hpp"

namespace {
// Swallows the output of MPI ranks other than 0 while it lives. It restores the streams when
// main returns: they flush once more at exit, after main's locals (this buffer) are gone.
class SilencedStandardStreams {
 public:
  SilencedStandardStreams() : cout_(std::cout.rdbuf(&null_)), cerr_(std::cerr.rdbuf(&null_)) {}
  ~SilencedStandardStreams() {
    std::cout.rdbuf(cout_);
    std::cerr.rdbuf(cerr_);
  }
  SilencedStandardStreams(const SilencedStandardStreams&) = delete;
  SilencedStandardStreams& operator=(const SilencedStandardStreams&) = delete;

 private:
  class NullBuffer : public std::streambuf {
   protected:
    int overflow(int c) override { return c; }
  };
  NullBuffer null_;  // declared first: constructed before the streams point at it
  std::streambuf* cout_;
  std::streambuf* cerr_;
};
}  // namespace

int main(int argc, char** argv) {
  // Under mpirun every rank runs the same command on its slice of the samples; rank 0 speaks
  // and writes the files.
  const tev::Distribution distribution(&argc, &argv);
  std::optional<SilencedStandardStreams> silenced;
  if (tev::Distribution::rank() != 0) silenced.emplace();
  CLI::App app{
      "tevsuite: checks that tree speculative-decoding verifiers are exact (their output has the target's law)\n"
      "and saturated (they emit 1 + C_p(T) tokens per round on average), against the canonical exit law\n"
      "w(v) = P(v) rho(v) of 'Exit-Guided Speculative Decoding'."};
  app.require_subcommand(1);

  tev::CheckOptions check;
  check.check.samples = 200000;
  check.check.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  auto* cmd = app.add_subcommand(
      "check",
      "Run every verifier (saturated, unsaturated, planted mutants) on a suite of synthetic trees.\n"
      "Each verifier's blocks are completed (an in-tree bonus is extended by target draws) and their\n"
      "(exit node, next token) counts tested against the canonical law with Pearson's chi-square;\n"
      "E[L] is tested against 1 + C_p (Chernoff bound under the exact law of L) and every node's acceptance\n"
      "against P(u); the verifier's exact law is also enumerated on every tree and compared with the canonical\n"
      "law to 1e-12. The known-answer selftest runs first. Exit code 0 only when every verdict is the one its\n"
      "kind calls for.");
  cmd->add_option("--trees", check.suite.trees, "trees in the suite (cycles through 8 shape/family recipes)")
      ->check(CLI::Range(1, 10000))->capture_default_str();
  cmd->add_option("--samples", check.check.samples, "Monte Carlo samples per tree and verifier")
      ->check(CLI::Range(std::uint64_t{100}, std::uint64_t{1} << 40))->capture_default_str();
  cmd->add_option("--vocab", check.suite.vocab, "vocabulary size V (cells per node in the chi-square test)")
      ->check(CLI::Range(2, 4096))->capture_default_str();
  cmd->add_option("--budget", check.suite.budget, "draft nodes per tree, root excluded")
      ->check(CLI::Range(1, 512))->capture_default_str();
  cmd->add_option("--seed", check.suite.seed, "seed for trees, distributions and sampling (32-bit)")->capture_default_str();
  cmd->add_option("--threads", check.check.threads, "worker threads for Monte Carlo (results do not depend on it)")
      ->check(CLI::Range(1, 1024))->capture_default_str();
  cmd->add_option("--alpha", check.check.alpha, "family-wise false-alarm level of the whole check (split evenly over the verifiers)")
      ->check(CLI::Range(1e-12, 0.5))->capture_default_str();
  cmd->add_option("--json", check.json_path, "also write the results as JSON to this file");
  const auto devices = CLI::IsMember({"cpu", "gpu"});
  std::string drafts = "fixed";
  cmd->add_option("--drafts", drafts,
                  "fixed: target-only verifiers on fixed synthetic trees (the default suite); sampled: drafts sampled from a\n"
                  "drafter q by five drafting policies, q-based verifiers (speculative sampling, multi-draft rejection\n"
                  "sampling) and their mutants, judged for conditional and marginal exactness (V = 4 unless --vocab)")
      ->check(CLI::IsMember({"fixed", "sampled"}))->capture_default_str();
  tev::SampledCheckOptions sampled;
  cmd->add_option("--draft-depth", sampled.depth, "sampled drafts: drafting depth D (completion horizon H = D + 1)")
      ->check(CLI::Range(1, 4))->capture_default_str();
  cmd->add_option("--draft-width", sampled.width, "sampled drafts: drafts per node k")->check(CLI::Range(1, 4))->capture_default_str();
  cmd->add_option("--device", check.device, "where the Monte Carlo runs: cpu, or gpu (the fast-path verifiers on the GPU, bit-identical counts)")
      ->check(devices)->capture_default_str();

  auto* selftest = app.add_subcommand(
      "selftest",
      "Run the known-answer tests of the statistics core and the verdict policy (an impossible event fails at once,\n"
      "a chi-square and a Holm adjustment computed by hand, an exact binomial test, a Chernoff bound, the Kolmogorov\n"
      "distribution, pooling across vector widths): proof that this build's compiler and flags compute what the\n"
      "suite's verdicts rest on. `check` runs them first. Exit code 0 when all pass, 1 otherwise.");

  tev::Theorem1Options theorem1;
  theorem1.threads = check.check.threads;
  tev::RenderOptions render{"theorem1-report"};
  bool quick = false;
  auto* thm = app.add_subcommand(
      "theorem1",
      "Reproduce Theorem 1 empirically: sweep budgets 8..128, tree shapes (random, DDTree, chain, star), target\n"
      "families and temperatures; for every exact verifier test its law (chi-square after completion), its mean\n"
      "length against 1 + C_p and each node's acceptance against P(u); compare saturated verifiers two-sample;\n"
      "calibrate the tests over 1,000 seeds (KS); predict and spot-check power against every mutant and\n"
      "contamination; check multi-round composition against the exact law of the first n tokens. Writes\n"
      "results.json, report.md, report.html and figures/ into --out. About a minute on 2 cores; --quick < 30 s.");
  thm->add_option("--out", render.out_dir, "output folder")->capture_default_str();
  thm->add_flag("--quick", quick, "reduced sweep and replicate counts (a smoke test, under 30 s)");
  thm->add_option("--samples", theorem1.samples, "samples per tree and verifier in the sweep")
      ->check(CLI::Range(std::uint64_t{100}, std::uint64_t{1} << 36))->capture_default_str();
  thm->add_option("--seed", theorem1.seed, "seed for everything (32-bit)")->capture_default_str();
  thm->add_option("--threads", theorem1.threads, "worker threads (results do not depend on it)")->check(CLI::Range(1, 1024))->capture_default_str();
  thm->add_option("--alpha", theorem1.alpha, "family-wise false-alarm level of the sweep")->check(CLI::Range(1e-12, 0.5))->capture_default_str();
  thm->add_option("--python", render.python, "Python interpreter with matplotlib for the figures")->capture_default_str();

  tev::ExitTrainOptions exittrain;
  exittrain.threads = check.check.threads;
  double exittrain_lambda = 0.0;
  auto* etr = app.add_subcommand(
      "exittrain",
      "ExitTrain (paper section 5, appendix C): train a block drafter three ways from one warm start, with the same\n"
      "examples, steps, learning rate and lambda: token-only (dense cross-entropy on target continuations),\n"
      "prefix-weighted (+ lambda * P(v)(1 - w(r))/C_p on every tree node's token) and exit-guided (+ lambda * w(v),\n"
      "eq. 14). Trees are DDTree best-first from the drafter's H marginal rows; the frozen target scores every node\n"
      "under its real tree-parent context; weights are detached. Each trained drafter builds trees on held-out\n"
      "contexts at B/2, B and 2B: prints the exact mean 1 + C_p (mean +- sd over seeds), paired differences, and\n"
      "TEV's measured mean L against 1 + C_p. Exit 0 when TEV agrees everywhere, 1 when not, 2 on bad input.\n"
      "Sim defaults take about 1 minute on 2 cores. --mode live trains a frequent-words block drafter against the\n"
      "Sphinx English trigram; its defaults differ (B 8, 500 warm-up + 100 steps, 3 seeds, K = --vocab 1024, H 4, batch 4,\n"
      "32 held-out contexts, sequences of 16 words) and take 8 to 11 minutes on 2 cores.");
  etr->add_option("--mode", exittrain.mode, "sim: synthetic Markov target and linear drafter; live: the Sphinx trigram and a frequent-words drafter")
      ->check(CLI::IsMember({"sim", "live"}))->capture_default_str();
  etr->add_option("--budget", exittrain.budget, "training tree budget B (non-root nodes); evaluated at B/2, B, 2B")->check(CLI::Range(2, 1024))->capture_default_str();
  etr->add_option("--steps", exittrain.steps, "training steps per objective")->check(CLI::Range(0, 1000000))->capture_default_str();
  etr->add_option("--warmup-steps", exittrain.warmup_steps, "shared token-only steps before the objectives split (the common initialization)")
      ->check(CLI::Range(0, 1000000))->capture_default_str();
  etr->add_option("--seeds", exittrain.seeds, "independent repetitions (sim: target, data and test contexts change with the seed; live: data, test contexts and the drafter's start)")
      ->check(CLI::Range(1, 1000))->capture_default_str();
  etr->add_option("--seed", exittrain.seed, "first seed (32-bit); seed k is seed + k")->capture_default_str();
  etr->add_option("--vocab", exittrain.vocab, "sim: vocabulary size V of the synthetic target; live: the drafter's K most probable words (the rest share a bucket)")
      ->check(CLI::Range(8, 65536))->capture_default_str();
  etr->add_option("--embedding", exittrain.embedding, "live: the drafter's embedding size D")->check(CLI::Range(1, 1024))->capture_default_str();
  etr->add_option("--context-length", exittrain.context_length, "sim: context length; live: words per sequence sampled from the trigram")
      ->check(CLI::Range(2, 4096))->capture_default_str();
  etr->add_option("--horizon", exittrain.horizon, "H: drafter block size and the trees' depth limit")->check(CLI::Range(1, 64))->capture_default_str();
  etr->add_option("--batch", exittrain.batch, "contexts per training step")->check(CLI::Range(1, 4096))->capture_default_str();
  etr->add_option("--learning-rate", exittrain.learning_rate, "Adam learning rate, the same for every objective")->check(CLI::Range(1e-6, 10.0))->capture_default_str();
  etr->add_option("--lambda", exittrain_lambda, "weight of the tree term (default: B, fixed in advance; see the README)")->check(CLI::Range(0.0, 1e6));
  etr->add_option("--test-contexts", exittrain.test_contexts, "held-out contexts per seed")->check(CLI::Range(1, 1000000))->capture_default_str();
  etr->add_option("--tev-samples", exittrain.tev_samples, "TEV rounds per held-out tree")->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 32))->capture_default_str();
  etr->add_option("--alpha", exittrain.alpha, "family-wise level of the TEV mean-L check (Bonferroni over cells and seeds)")->check(CLI::Range(1e-12, 0.5))->capture_default_str();
  etr->add_option("--threads", exittrain.threads, "worker threads for TEV's Monte Carlo (results do not depend on it)")->check(CLI::Range(1, 1024))->capture_default_str();
  etr->add_option("--json", exittrain.json_path, "also write results and training curves as JSON (tevsuite report renders it)");
  etr->add_option("--out", exittrain.out_dir, "also write report.md, report.html and results.json into this folder");

  std::string results_path;
  auto* rep = app.add_subcommand("report", "Render report.md, report.html (and figures) again from an existing theorem1 or exittrain results.json.");
  rep->add_option("results", results_path, "a results.json written by tevsuite theorem1 or exittrain")->required()->check(CLI::ExistingFile);
  rep->add_option("--out", render.out_dir, "output folder")->capture_default_str();
  rep->add_option("--python", render.python, "Python interpreter with matplotlib for the figures")->capture_default_str();

  auto* conf = app.add_subcommand(
      "conformance",
      "Check a verifier written elsewhere (any language) against the canonical law, through files or a subprocess.\n"
      "Cases and samples are JSON lines (see the README for the schema). Verdicts per case and overall:\n"
      "exit 0 exact and saturated, 1 not exact, 3 exact but not saturated, 4 inconclusive (a case too small to\n"
      "detect a TV of 0.05 with 99 % power at its level: give it more samples), 2 bad input or a failing verifier.");
  conf->require_subcommand(1);
  tev::conformance::EmitConfig emit;
  std::string cases_out = "cases.jsonl", cases_in, samples_in, conformance_json;
  double conformance_alpha = 1e-3;
  std::uint32_t conformance_seed = 20261130;
  auto add_emit_options = [&](CLI::App* cmd) {
    cmd->add_option("--cases", emit.cases, "number of cases (they cycle through 8 kinds)")->check(CLI::Range(1, 100000))->capture_default_str();
    cmd->add_option("--seed", emit.seed, "seed of the generated cases")->capture_default_str();
    cmd->add_option("--vocab", emit.vocab, "vocabulary of the small-vocabulary cases")->check(CLI::Range(4, 65536))->capture_default_str();
    cmd->add_option("--budget", emit.budget, "draft nodes per tree")->check(CLI::Range(4, 4096))->capture_default_str();
    cmd->add_option("--samples", emit.samples, "samples per case")->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 32))->capture_default_str();
  };
  auto* emit_cmd = conf->add_subcommand("emit", "Write conformance cases (random, DDTree, chain, star, deep, wide, near-deterministic, sparse large-vocabulary).");
  add_emit_options(emit_cmd);
  emit_cmd->add_option("--out", cases_out, "cases file to write")->capture_default_str();
  auto* check_cmd = conf->add_subcommand("check", "Judge a samples file (one {\"case_id\", \"accepted\", \"bonus\"} per line) against its cases file.");
  check_cmd->add_option("cases", cases_in, "cases.jsonl")->required()->check(CLI::ExistingFile);
  check_cmd->add_option("samples", samples_in, "samples.jsonl")->required()->check(CLI::ExistingFile);
  auto* run_cmd = conf->add_subcommand("run", "Stream cases to a verifier subprocess (one case line on its stdin, `samples` sample lines back) and judge it.");
  tev::conformance::RunOptions run_options;
  run_cmd->add_option("--verifier-cmd", run_options.command, "shell command that starts the verifier")->required();
  run_cmd->add_option("cases", cases_in, "cases.jsonl; without it cases are emitted, and only then do --cases, --seed, --vocab, --budget and --samples apply")
      ->check(CLI::ExistingFile);
  add_emit_options(run_cmd);
  run_cmd->add_option("--timeout", run_options.timeout_seconds, "seconds to wait for the verifier's next line")->check(CLI::Range(0.1, 86400.0))->capture_default_str();
  for (CLI::App* cmd : {check_cmd, run_cmd}) {
    cmd->add_option("--json", conformance_json, "also write the verdicts as JSON");
    cmd->add_option("--alpha", conformance_alpha, "family-wise false-alarm level")->check(CLI::Range(1e-12, 0.5))->capture_default_str();
  }
  check_cmd->add_option("--completion-seed", conformance_seed, "seed of the completion draws")->capture_default_str();

  tev::LiveOptions live;
  live.check.threads = check.check.threads;
  std::vector<std::string> live_builders;
  auto* live_cmd = app.add_subcommand(
      "live",
      "The same checks on live trees: a real drafter builds each tree under a context sampled from a real target,\n"
      "whose next-token rows over the full vocabulary are the law every verifier must reproduce. Default target:\n"
      "the CMU Sphinx US-English trigram model (72,547 words, Debian pocketsphinx-en-us); drafters: its bigram view\n"
      "and a bigram+unigram mix. Also runs speculative generation with TEV (tokens per round against 1 + C_p) and\n"
      "tests the first generated word against the target's row. Exit code 0 when every verdict holds.");
  live_cmd->add_option("--lm", live.models.family, "model family: sphinx (the Debian trigram) or llama2c (a checkpoint given by --model)")
      ->transform(CLI::CheckedTransformer(std::map<std::string, tev::LiveFamily>{{"sphinx", tev::LiveFamily::sphinx}, {"llama2c", tev::LiveFamily::llama2c}}))
      ->capture_default_str();
  live_cmd->add_option("--model", live.models.model_path, "model file: a llama2.c checkpoint, or another Sphinx .lm.bin");
  live_cmd->add_option("--tokenizer", live.models.tokenizer_path, "llama2.c tokenizer.bin, to print text instead of token ids");
  live_cmd->add_option("--drafter", live.models.drafters, "drafters (sphinx: bigram, interpolated; llama2c: layers:K) [default: all of the family's]")
      ->delimiter(',');
  live_cmd->add_option("--builder", live_builders, "tree builders: ddtree (per-depth marginals along the drafter's argmax chain), dynamic (EAGLE-2-style, per-node rows) [default: both]")
      ->delimiter(',')->check(CLI::IsMember({"ddtree", "dynamic"}));
  live_cmd->add_option("--contexts", live.contexts, "contexts per drafter x builder, sampled from the target")->check(CLI::Range(1, 10000))->capture_default_str();
  live_cmd->add_option("--context-length", live.context_length, "tokens sampled after the start token for each context")->check(CLI::Range(1, 1000))->capture_default_str();
  live_cmd->add_option("--budget", live.tree.budget, "draft nodes per tree, root excluded")->check(CLI::Range(1, 1024))->capture_default_str();
  live_cmd->add_option("--temperature", live.tree.temperature, "sampling temperature of target and drafter")->check(CLI::Range(0.05, 20.0))->capture_default_str();
  live_cmd->add_option("--samples", live.check.samples, "Monte Carlo samples per tree for verifiers with a fast path")
      ->check(CLI::Range(std::uint64_t{100}, std::uint64_t{1} << 40))->capture_default_str();
  live_cmd->add_option("--chooser-samples", live.chooser_samples, "samples per tree for the other verifiers (each draw costs O(V))")
      ->check(CLI::Range(std::uint64_t{100}, std::uint64_t{1} << 40))->capture_default_str();
  live_cmd->add_flag("--mutants", live.mutants, "also run the planted mutants (slow at V = 72,547: several redo O(N V) work per sample)");
  bool live_no_enumeration = false;
  live_cmd->add_flag("--no-enumeration", live_no_enumeration,
                     "skip the exact laws (lumped enumeration costs about N^2 V per verifier: seconds at B = 128, V = 151,936)");
  live_cmd->add_option("--rounds", live.rounds, "speculative generation rounds per drafter x builder")->check(CLI::Range(1, 100000))->capture_default_str();
  live_cmd->add_option("--first-word-samples", live.first_word_samples, "TEV rounds for the first-word test")
      ->check(CLI::Range(std::uint64_t{100}, std::uint64_t{1} << 40))->capture_default_str();
  live_cmd->add_option("--seed", live.check.seed, "seed for contexts and sampling (32-bit)")->capture_default_str();
  live_cmd->add_option("--threads", live.check.threads, "worker threads")->check(CLI::Range(1, 1024))->capture_default_str();
  live_cmd->add_option("--alpha", live.check.alpha, "family-wise false-alarm level of the whole run")->check(CLI::Range(1e-12, 0.5))->capture_default_str();
  live_cmd->add_option("--json", live.json_path, "also write the results as JSON");
  live_cmd->add_option("--dump", live.dump_dir, "write every live tree to this folder (tree-K.json; see the README for the format)");
  live_cmd->add_option("--from", live.from_dir, "check the live-tree dumps in this folder instead of building trees (no model needed)")
      ->check(CLI::ExistingDirectory);

  auto* bench = app.add_subcommand("bench", "Measure speed (never part of ctest): the verifier stage on Qwen-sized logit rows, Monte Carlo throughput, or the TV a minute of sampling detects.");
  bench->require_subcommand(1);
  std::string bench_device = "cpu";
  bench->add_option("--device", bench_device, "cpu, or gpu: the GPU kernels (TEV and predraw verifier stage; Monte Carlo against the CPU engine)")
      ->check(devices)->capture_default_str();
  std::string bench_json;
  std::int32_t bench_vocab = 151936;
  double bench_seconds = 0.5;
  std::uint64_t bench_samples = std::uint64_t{1} << 24;
  int bench_repeats = 3;
  auto* bench_verifier = bench->add_subcommand(
      "verifier", "TEV level-parallel, lazy walk, eager and lazy predraw, sequential residual on B + 1 rows of V float32 logits\n"
                  "(B = 32, 64, 128; T = 0.6, 1.0), 1 and 2 threads, with the ratios of the performance goals.");
  bench_verifier->add_option("--vocab", bench_vocab, "vocabulary size")->check(CLI::Range(64, 1 << 20))->capture_default_str();
  bench_verifier->add_option("--seconds", bench_seconds, "time per verifier and workload")->check(CLI::Range(0.05, 60.0))->capture_default_str();
  auto* bench_mc = bench->add_subcommand("montecarlo", "Monte Carlo samples per second per verifier and for the Philox-only floor, 1 and 2 threads.");
  bench_mc->add_option("--samples", bench_samples, "samples per timed run")->check(CLI::Range(std::uint64_t{1000}, std::uint64_t{1} << 34))->capture_default_str();
  bench_mc->add_option("--repeats", bench_repeats, "runs per measurement (best is kept)")->check(CLI::Range(1, 100))->capture_default_str();
  double power_seconds = 5.0, power_budget = 60.0;
  int power_replicates = 200;
  auto* bench_power = bench->add_subcommand(
      "power", "Detectable TV per minute: TEV's samples per second on the default check suite's trees (measured for --seconds,\n"
               "extrapolated to --budget seconds), and per tree the smallest contamination TV detected with 99 % power at the level\n"
               "the default check tests one tree at; then a Monte Carlo spot check of that predicted power at a small budget.");
  bench_power->add_option("--seconds", power_seconds, "seconds to measure the sampling rate")->check(CLI::Range(0.5, 600.0))->capture_default_str();
  bench_power->add_option("--budget", power_budget, "sampling budget in seconds to extrapolate to")->check(CLI::Range(1.0, 86400.0))->capture_default_str();
  bench_power->add_option("--replicates", power_replicates, "spot-check replicates (20,000 samples each)")->check(CLI::Range(10, 10000))->capture_default_str();
  for (CLI::App* cmd : {bench_verifier, bench_mc, bench_power}) {
    cmd->add_option("--json", bench_json, "also write the measurements as JSON");
    cmd->fallthrough();  // `bench verifier --device gpu` as well as `bench --device gpu verifier`
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help exits 0; every malformed command line exits 2, like other runtime errors.
    return app.exit(e) == 0 ? 0 : 2;
  }
  // --device gpu where no GPU can run is a usage error: say why, exit 2.
  const bool wants_gpu = (cmd->parsed() && check.device == "gpu") || (bench->parsed() && bench_device == "gpu");
  if (wants_gpu) {
    const std::string why = tev::gpu::unavailable_reason();
    if (!why.empty()) {
      std::cerr << "tevsuite: --device gpu: no GPU can run here: " << why << '\n';
      return 2;
    }
  }
  try {
    if (selftest->parsed()) return tev::run_selftest_command(true, std::cout);
    if (cmd->parsed()) {
      if (check.device == "gpu") check.check.monte_carlo = tev::gpu::run_monte_carlo;
      check.check.seed = check.suite.seed;
      if (tev::Distribution::rank() != 0) check.json_path.clear();
      check.check.verifiers_sharing_alpha = static_cast<int>(tev::verifier_catalog().size());
      if (drafts == "sampled") {
        if (check.device == "gpu") throw std::invalid_argument("--drafts sampled runs on the CPU only");
        if (cmd->count("--vocab") > 0) sampled.vocab = check.suite.vocab;
        if (cmd->count("--samples") > 0) sampled.samples = check.check.samples;
        if (cmd->count("--seed") > 0) sampled.seed = check.suite.seed;
        sampled.threads = check.check.threads;
        sampled.alpha = check.check.alpha;
        sampled.json_path = check.json_path;
        return tev::run_sampled_check(sampled, std::cout, std::cerr);
      }
      return tev::run_check(check, std::cout, std::cerr);
    }
    if (thm->parsed()) {
      if (quick) {
        const auto samples = theorem1.samples;
        theorem1 = tev::quick_options(theorem1);
        if (thm->count("--samples") > 0) theorem1.samples = samples;
      }
      if (tev::Distribution::rank() != 0) {
        tev::run_theorem1(theorem1, std::cerr);  // this rank's share of the samples; rank 0 writes the report
        return 0;
      }
      return tev::run_theorem1_command(theorem1, render, std::cout, std::cerr);
    }
    if (live_cmd->parsed()) {
      live.check.enumerate = !live_no_enumeration;
      if (!live_builders.empty()) {
        live.builders.clear();
        for (const std::string& b : live_builders) live.builders.push_back(b == "ddtree" ? tev::TreeBuilder::ddtree : tev::TreeBuilder::dynamic);
      }
      if (tev::Distribution::rank() != 0) live.json_path.clear();
      return tev::run_live(live, std::cout, std::cerr);
    }
    if (etr->parsed()) {
      if (etr->count("--lambda") > 0) exittrain.lambda = exittrain_lambda;
      if (exittrain.mode == "live") exittrain = tev::with_live_defaults(exittrain, [&](std::string_view flag) { return etr->count(std::string(flag)) > 0; });
      return tev::run_exittrain(exittrain, std::cout, std::cerr);
    }
    if (rep->parsed()) return tev::run_report_command(results_path, render, std::cout);
    if (bench_verifier->parsed() && bench_device == "gpu") return tev::run_bench_verifier_gpu(bench_vocab, bench_json, std::cout, std::cerr);
    if (bench_mc->parsed() && bench_device == "gpu") return tev::run_bench_montecarlo_gpu(bench_samples, bench_repeats, bench_json, std::cout);
    if (bench_verifier->parsed()) return tev::run_bench_verifier(bench_vocab, bench_seconds, bench_json, std::cout, std::cerr);
    if (bench_mc->parsed()) return tev::run_bench_montecarlo(bench_samples, bench_repeats, bench_json, std::cout);
    if (bench_power->parsed() && bench_device == "gpu") throw std::invalid_argument("bench power runs on the CPU only");
    if (bench_power->parsed()) return tev::run_bench_power(power_seconds, power_budget, power_replicates, bench_json, std::cout);
    if (emit_cmd->parsed()) return tev::run_conformance_emit(emit, cases_out, std::cout, std::cerr);
    if (check_cmd->parsed()) return tev::run_conformance_check(cases_in, samples_in, conformance_seed, conformance_alpha, conformance_json, std::cout);
    if (run_cmd->parsed()) {
      run_options.alpha = conformance_alpha;
      return tev::run_conformance_run(cases_in, emit, run_options, conformance_json, std::cout, std::cerr);
    }
  } catch (const std::exception& e) {
    std::cerr << "tevsuite: error: " << e.what() << '\n';
    return 2;
  }
  return 0;
}
