#pragma once
// `tevsuite bench verifier | montecarlo`: measured tables with the ratios the goals are stated in.
#include <cstdint>
#include <iosfwd>
#include <string>

namespace tev {

int run_bench_verifier(std::int32_t vocab, double seconds_each, const std::string& json_path, std::ostream& out, std::ostream& progress);
int run_bench_montecarlo(std::uint64_t samples, int repeats, const std::string& json_path, std::ostream& out);

}  // namespace tev
