// tevsuite: verification and simulation suite for tree speculative decoding.
#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>
#include <thread>

#include "apps/check.hpp"

int main(int argc, char** argv) {
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
      "E[L] is tested against 1 + C_p with the exact null variance; the verifier's exact law is also\n"
      "enumerated on every tree and compared with the canonical law to 1e-12. Exit code 0 only when\n"
      "every verdict is the one its kind calls for.");
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

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help exits 0; every malformed command line exits 2, like other runtime errors.
    return app.exit(e) == 0 ? 0 : 2;
  }
  try {
    if (cmd->parsed()) {
      check.check.seed = check.suite.seed;
      check.check.verifiers_sharing_alpha = static_cast<int>(tev::verifier_catalog().size());
      return tev::run_check(check, std::cout, std::cerr);
    }
  } catch (const std::exception& e) {
    std::cerr << "tevsuite: error: " << e.what() << '\n';
    return 2;
  }
  return 0;
}
