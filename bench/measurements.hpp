#pragma once
// Timings behind `tevsuite bench` and the Google Benchmark programs: wall-clock medians over
// batches, measured side by side in one process.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench/logit_workloads.hpp"
#include "experiments/power.hpp"

namespace tev::bench {

// TEV (1 and 2 threads, level-parallel), lazy walk, eager predraw (1 and 2 threads), lazy
// predraw and sequential residual, with the row floor, TEV's internal row and one draw: each
// called for about seconds_each, all of them round-robin in batches of 20 ms so that their ratios
// are measured under the same load.
StageReport measure_verifier_stage(const LiveWorkload& workload, double seconds_each);

struct ThroughputTiming {
  std::string verifier;  // or "philox-only" for the floor
  int threads = 1;
  double samples_per_second = 0.0;  // wall clock
  double core_rate =
      0.0;  // threads × samples per CPU second: the rate on `threads` cores of one's own
};

struct ThroughputReport {
  std::int32_t budget = kMonteCarloBudget;
  std::int32_t vocab = kMonteCarloVocab;
  std::uint64_t samples = 0;
  std::vector<ThroughputTiming> timings;
  double rate(const std::string& verifier, int threads) const;
  double core_rate(const std::string& verifier, int threads) const;
};

// Fixed tree (DDTree, B = 64, V = 64): the Monte Carlo engine's samples per second for each
// fast-path verifier and for the same loop with the verifier replaced by Philox output alone.
ThroughputReport measure_montecarlo(std::uint64_t samples, int repeats);

// What one minute of TEV sampling detects on the default `check` suite: the engine's rate measured
// for `seconds` over the suite's trees (all hardware threads, tables built per run as check does;
// by process CPU time, so other programs on a shared machine do not count),
// extrapolated to `budget_seconds`, the samples split evenly over the trees, and per tree the
// smallest contamination TV its χ² detects with 99 % power at the level check tests it at
// (verdict_policy's chi_square_level over the whole check's α); then a Monte Carlo spot check of
// the predicted power on the worst tree at a small budget; and the longest simulated p-value
// (WorstSimulation).
// The longest one simulated p-value of the default check runs: on the suite's tree with the most
// χ² bins at the check's samples, counts whose χ² over the bins lies ten null standard deviations
// above its mean, the excess spread evenly over the bins (alternating signs, each bin's count split
// over its cells in proportion): no bound decides it and no null replicate reaches it, so the Monte
// Carlo draws its whole cap before rejecting. Timed at the level check tests that tree at.
struct WorstSimulation {
  std::size_t tree = 0;
  std::uint64_t samples = 0;
  std::int32_t bins = 0;
  double statistic = 0.0;        // the χ² over the bins of the constructed counts
  bool simulated = false;        // a Monte Carlo p-value ran (no bound decided)
  std::uint64_t replicates = 0;  // drawn
  std::uint64_t cap = 0;         // the most it could draw
  double p_value = 1.0;
  double level = 0.0;
  double seconds = 0.0;  // wall clock, all hardware threads
};

struct DetectablePerMinute {
  double samples_per_second =
      0.0;  // threads × samples per CPU second: on that many cores of one's own
  double wall_samples_per_second = 0.0;  // what this run got on the (shared) machine
  int threads = 1;
  double seconds_measured = 0.0;
  double budget_seconds = 60.0;
  std::uint64_t samples_per_tree = 0;
  double level = 0.0;                     // one tree's χ² level in the default check
  std::vector<std::optional<double>> tv;  // (trees) detectable TV; none: not detectable
  // (trees) wall seconds of the budget's samples drawn and judged: sampling (TEV's fast path
  // completes each block in the same pass) and the identity test with its simulated p-values.
  std::vector<double> sampling_seconds, judging_seconds;
  std::size_t worst_tree = 0;
  std::uint64_t spot_samples = 0;  // per replicate
  double spot_tv = 0.0;            // detectable TV of the worst tree at spot_samples
  experiments::PowerSpotCheck spot;
  WorstSimulation worst_simulation;
};
DetectablePerMinute measure_detectable_per_minute(double seconds, double budget_seconds,
                                                  int replicates);

}  // namespace tev::bench
