// `tevsuite selftest`: the known-answer tests of the statistics core and the verdict policy.
#include <iostream>

#include "apps/commands.hpp"
#include "reports/verdict_table.hpp"
#include "judging/selftest.hpp"

namespace tev::apps {

Command register_selftest(CLI::App& app, const montecarlo::RunContext&) {
  auto* selftest = app.add_subcommand(
      "selftest",
      "Run the known-answer tests of the statistics core and the verdict policy (an impossible "
      "event fails at once,\n"
      "a chi-square and a Holm adjustment computed by hand, an exact binomial test, a Chernoff "
      "bound, the Kolmogorov\n"
      "distribution, pooling across vector widths): proof that this build's compiler and flags "
      "compute what the\n"
      "suite's verdicts rest on. `check` runs them first. Exit code 0 when all pass, 1 otherwise.");
  return {selftest,
          [] { return reports::print_selftest(judging::run_selftest(), true, std::cout); }};
}

}  // namespace tev::apps
