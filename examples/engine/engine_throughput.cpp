// Samples per second of the engine walk checked in process (tevsuite::check) and through
// `tevsuite conformance run` with the same walk behind the subprocess protocol, side by side in one
// run, on the same cases file, judging included. Twice: on conformance emit's default cases (8
// cases of 100,000 samples, 400,000 for case c6 with V = 50,000, where the walk's own inverse-CDF
// draws dominate) and on the same recipes with the sparse case at V = 64 (where the protocol's
// cost shows).
//   engine_throughput TEVSUITE_BINARY ENGINE_JSONL_VERIFIER [threads]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include <tevsuite/check.hpp>

#include "engine_adapters.hpp"

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void compare(const char* what, const tevsuite::TreeCheckOptions& options,
             const std::string& tevsuite, const std::string& verifier) {
  double samples = 0.0;  // as the cases ask: the sparse case large_vocab_factor times the others
  const std::string cases_file = "engine_throughput_cases.jsonl";
  std::ofstream(cases_file) << [&] {
    std::string text;
    for (const std::string& line : tevsuite::tree_case_lines(options)) {
      samples += static_cast<double>(tevsuite::read_tree_case(line).samples);
      text += line + "\n";
    }
    return text;
  }();

  auto start = std::chrono::steady_clock::now();
  const tevsuite::Report report =
      tevsuite::check_tree_verifier(engine::tree_verifier(engine::TreeBug::none), options);
  const double in_process = seconds_since(start);

  const std::string command = tevsuite + " conformance run --verifier-cmd " + verifier + " " +
                              cases_file + " > /dev/null 2>&1";
  start = std::chrono::steady_clock::now();
  const int status = std::system(command.c_str());
  const double subprocess = seconds_since(start);

  std::printf("%s (%.0f samples):\n", what, samples);
  std::printf("  in process:      %7.2f s  %9.3g samples/s  %s\n", in_process, samples / in_process,
              report.verdict_text.c_str());
  std::printf("  conformance run: %7.2f s  %9.3g samples/s  exit %d\n", subprocess,
              samples / subprocess, status);
  std::printf("  in process / conformance run: %.1fx\n", subprocess / in_process);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s TEVSUITE_BINARY ENGINE_JSONL_VERIFIER [threads]\n", argv[0]);
    return 2;
  }
  tevsuite::TreeCheckOptions options;
  options.threads =
      argc > 3 ? std::atoi(argv[3]) : static_cast<int>(std::thread::hardware_concurrency());
  std::printf(
      "in-process threads: %d; conformance run: one verifier process beside the judging process\n",
      options.threads);
  compare("default cases", options, argv[1], argv[2]);
  options.large_vocab = 64;
  compare("sparse case at V = 64", options, argv[1], argv[2]);
  return 0;
}
