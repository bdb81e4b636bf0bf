#pragma once
// Every `tevsuite` subcommand registers itself with its own small file: its options (parsed into
// the typed options of one library call), and what to run once the command line is parsed.
#include <CLI/CLI.hpp>
#include <functional>
#include <iosfwd>

#include "montecarlo/ranks.hpp"

namespace tev::apps {

struct Command {
  CLI::App* app = nullptr;   // the subcommand: run only when app->parsed()
  std::function<int()> run;  // the library call and its printing; returns the exit code
};

// Worker threads when --threads is not given: every hardware thread.
int default_threads();
// --device gpu where no GPU can run is a usage error: says why on `err` and returns true.
bool gpu_unavailable(std::ostream& err);

// A level, power or TV: strictly between 0 and 1 (a usage error, exit 2, otherwise).
CLI::Validator open_unit_interval();

// In the order `tevsuite --help` lists them.
Command register_check(CLI::App& app, const montecarlo::RunContext& context);
Command register_selftest(CLI::App& app, const montecarlo::RunContext& context);
Command register_theorem1(CLI::App& app, const montecarlo::RunContext& context);
Command register_exittrain(CLI::App& app, const montecarlo::RunContext& context);
Command register_report(CLI::App& app, const montecarlo::RunContext& context);
Command register_conformance(CLI::App& app, const montecarlo::RunContext& context);
Command register_live(CLI::App& app, const montecarlo::RunContext& context);
Command register_bench(CLI::App& app, const montecarlo::RunContext& context);

}  // namespace tev::apps
