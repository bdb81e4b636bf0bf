#pragma once
// `tevsuite bench [--device cpu|gpu] verifier | montecarlo | power`: measured tables with the ratios the goals are stated in,
// printed and written as JSON (the measurements themselves: bench/measurements.hpp).
#include <cstdint>
#include <iosfwd>
#include <string>

#include "reports/results_writer.hpp"

namespace tev::bench {

int run_bench_verifier(std::int32_t vocab, double seconds_each, reports::ResultsWriter& json,
                       std::ostream& out, std::ostream& progress);
int run_bench_montecarlo(std::uint64_t samples, int repeats, reports::ResultsWriter& json,
                         std::ostream& out);
// Detectable TV per minute (bench/measurements.hpp, measure_detectable_per_minute).
int run_bench_power(double seconds, double budget_seconds, int replicates,
                    reports::ResultsWriter& json, std::ostream& out);
// --device gpu: TEV and eager predraw on the GPU (CUDA events, logits already on the device).
int run_bench_verifier_gpu(std::int32_t vocab, reports::ResultsWriter& json, std::ostream& out,
                           std::ostream& progress);
// --device gpu: GPU Monte Carlo samples per second against the CPU engine on the same tree.
int run_bench_montecarlo_gpu(std::uint64_t samples, int repeats, reports::ResultsWriter& json,
                             std::ostream& out);

}  // namespace tev::bench
