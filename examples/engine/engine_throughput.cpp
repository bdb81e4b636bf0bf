// Samples per second of the engine walk checked in process (tevsuite::check) and through
// `tevsuite conformance run` with the same walk behind the subprocess protocol, side by side in one
// run, on the same cases (conformance emit's defaults: 8 cases x 100,000 samples), judging included.
//   engine_throughput TEVSUITE_BINARY ENGINE_JSONL_VERIFIER [threads]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <tevsuite/api/verifier_check.hpp>

#include "engine_adapters.hpp"

namespace {
double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s TEVSUITE_BINARY ENGINE_JSONL_VERIFIER [threads]\n", argv[0]);
    return 2;
  }
  tev::api::CheckOptions options;
  options.threads = argc > 3 ? std::atoi(argv[3]) : 0;
  const double samples = static_cast<double>(options.cases.cases) * static_cast<double>(options.cases.samples);

  auto start = std::chrono::steady_clock::now();
  const tev::api::TreeReport report = tev::api::check_tree_verifier(engine::tree_verifier(engine::TreeBug::none), options);
  const double in_process = seconds_since(start);

  const std::string command = std::string(argv[1]) + " conformance run --verifier-cmd " + argv[2] + " > /dev/null";
  start = std::chrono::steady_clock::now();
  const int status = std::system(command.c_str());
  const double subprocess = seconds_since(start);

  std::printf("in process (threads %d): %.0f samples in %.2f s = %.3g samples/s, %s\n", options.threads, samples, in_process, samples / in_process,
              tev::verdict_text(report.overall).c_str());
  std::printf("conformance run (one verifier process): %.2f s = %.3g samples/s, exit %d\n", subprocess, samples / subprocess, status);
  std::printf("ratio in process / subprocess: %.1f\n", subprocess / in_process);
  return 0;
}
