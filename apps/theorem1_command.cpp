// `tevsuite theorem1`: the empirical reproduction of Theorem 1, with its report.
#include <filesystem>
#include <iostream>
#include <memory>

#include "apps/commands.hpp"
#include "reports/render.hpp"
#include "reports/results_report.hpp"
#include "reports/theorem1.hpp"

namespace tev::apps {

namespace {
struct Theorem1State {
  experiments::Theorem1Options theorem1;
  reports::RenderOptions render{"theorem1-report"};
  bool quick = false;
};
}  // namespace

Command register_theorem1(CLI::App& app, const montecarlo::RunContext& context) {
  auto s = std::make_shared<Theorem1State>();
  experiments::Theorem1Options& theorem1 = s->theorem1;
  theorem1.threads = default_threads();
  auto* thm = app.add_subcommand("theorem1",
                                 "Reproduce Theorem 1 empirically: sweep budgets 8..128, tree "
                                 "shapes (random, DDTree, chain, star), target\n"
                                 "families and temperatures; for every exact verifier test its law "
                                 "(chi-square after completion), its mean\n"
                                 "length against 1 + C_p and each node's acceptance against P(u); "
                                 "compare saturated verifiers two-sample;\n"
                                 "calibrate the tests over 1,000 seeds (KS); predict and "
                                 "spot-check power against every mutant and\n"
                                 "contamination; check multi-round composition against the exact "
                                 "law of the first n tokens. Writes\n"
                                 "results.json, report.md, report.html and figures/ into --out. "
                                 "About 50 s on 2 cores; --quick about 7 s.");
  thm->add_option("--out", s->render.out_dir, "output folder")->capture_default_str();
  thm->add_flag("--quick", s->quick,
                "reduced sweep and replicate counts (a smoke test, about 7 s)");
  thm->add_option("--samples", theorem1.samples, "samples per tree and verifier in the sweep")
      ->check(CLI::Range(std::uint64_t{100}, std::uint64_t{1} << 36))
      ->capture_default_str();
  thm->add_option("--seed", theorem1.seed, "seed for everything (32-bit)")->capture_default_str();
  thm->add_option("--threads", theorem1.threads, "worker threads (results do not depend on it)")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  thm->add_option("--alpha", theorem1.alpha, "family-wise false-alarm level of the sweep")
      ->check(CLI::Range(1e-12, 0.5))
      ->capture_default_str();
  thm->add_option("--python", s->render.python,
                  "Python interpreter with matplotlib for the figures")
      ->capture_default_str();

  return {thm, [s, thm, context] {
            experiments::Theorem1Options options = s->theorem1;
            if (s->quick) {
              options = experiments::quick_options(options);
              if (thm->count("--samples") > 0) options.samples = s->theorem1.samples;
            }
            options.ranks = context.ranks;
            // Fail on a bad --out before the long run.
            if (context.writes_files) std::filesystem::create_directories(s->render.out_dir);
            const experiments::Theorem1Results results =
                experiments::run_theorem1(options, std::cerr);
            if (!context.writes_files) return 0;
            reports::write_theorem1_report(reports::theorem1_json(results), s->render, std::cout);
            return results.passed ? 0 : 1;
          }};
}

}  // namespace tev::apps
