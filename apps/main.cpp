// tevsuite: verification and simulation suite for tree speculative decoding. Each subcommand
// registers itself (apps/*_command.cpp) and runs one library call.
#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>
#include <optional>
#include <vector>

#include <tevsuite/version.h>

#include "apps/commands.hpp"
#include "apps/silenced_streams.hpp"
#include "core/interrupt.hpp"
#include "montecarlo/process_group.hpp"
#include "reports/verdict_table.hpp"

int main(int argc, char** argv) {
  // Under mpirun every rank runs the same command on its slice of the samples; rank 0 speaks
  // and writes the files.
  const tev::montecarlo::ProcessGroup process_group(&argc, &argv);
  const tev::montecarlo::RunContext context = process_group.context();
  std::optional<tev::apps::SilencedStandardStreams> silenced;
  if (!context.speaks()) silenced.emplace();
  CLI::App app{
      "tevsuite: checks that tree speculative-decoding verifiers are exact (their output has the "
      "target's law)\n"
      "and saturated (they emit 1 + C_p(T) tokens per round on average), against the canonical "
      "exit law\n"
      "w(v) = P(v) rho(v) of 'Exit-Guided Speculative Decoding'."};
  app.set_version_flag("--version", "tevsuite " TEVSUITE_VERSION_STRING);
  app.require_subcommand(1);
  using namespace tev::apps;
  const std::vector<Command> commands = {
      register_check(app, context),    register_selftest(app, context),
      register_theorem1(app, context), register_exittrain(app, context),
      register_report(app, context),   register_conformance(app, context),
      register_live(app, context),     register_bench(app, context)};
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help exits 0; every malformed command line exits 2, like other runtime errors.
    return app.exit(e) == 0 ? 0 : 2;
  }
  // A simulated p-value that runs for seconds shows its replicates on the progress line.
  const tev::LongStepNotices long_steps(tev::reports::long_step_progress(std::cerr));
  try {
    for (const Command& command : commands) {
      if (command.app->parsed()) return command.run();
    }
  } catch (const std::exception& e) {
    std::cerr << "tevsuite: error: " << e.what() << '\n';
    return 2;
  }
  return 0;
}
