#pragma once
// The boundary between host code (g++) and the CUDA kernels (nvcc): device-safe types only, so
// both compilers read it. Built without CUDA, no_cuda.cpp implements it: unavailable_reason()
// says so and every other call throws.
#include <cstdint>
#include <string>
#include <vector>

#include "core/fast_verifiers.hpp"
#include "core/philox.hpp"

namespace tev::gpu {

// Why no GPU can run here ("" when one can): built without CUDA, no device, a driver error.
std::string unavailable_reason();

// One tree of a Monte Carlo batch: its tables (host memory) and its counter's tree word.
struct TallyTree {
  TreeTablesView tables;
  std::uint32_t tree_id = 0;
};

struct DeviceTally {
  // Per tree, flat: (N, V) completed, then (N) exits, then {samples, completions, length_sum}.
  std::vector<std::vector<std::uint64_t>> histograms;
  // Per tree, where recorded: (samples) the completed cell of sample first_sample + k at k.
  std::vector<std::vector<std::int64_t>> orders;
  double kernel_seconds = 0.0;  // the sampling kernel alone (CUDA events), not the table upload
};

// Samples [first_sample, first_sample + samples) of every tree of the batch with one fast path,
// in one launch; each sample runs sample_fast exactly as the CPU engine does. record_order: fill
// DeviceTally::orders.
DeviceTally tally_on_device(FastPath path, const std::vector<TallyTree>& trees, std::uint32_t seed,
                            std::uint64_t first_sample, std::uint64_t samples,
                            bool record_order = false);

// A tree for the verifier-stage kernels: DraftTree's level-order arrays (host memory).
struct StageTree {
  std::int32_t nodes = 0;
  std::int32_t vocab = 0;
  const std::int32_t* first_child = nullptr;  // (N)
  const std::int32_t* child_count = nullptr;  // (N)
  const std::int32_t* token = nullptr;        // (N) token of each node (root: unused)
};

struct StageTimings {
  double floor_micros = 0.0;  // median per call: the row floor, a log-sum-exp of every row
  double tev_micros =
      0.0;  // median per call: row sums of the internal rows, level-wise P and w, exit and bonus draws
  double predraw_micros = 0.0;    // median per call: a draw from every row, then follow the matches
  std::vector<Block> tev_blocks;  // (calls) what each timed call returned, for sanity checks
  std::vector<Block> predraw_blocks;  // (calls)
};

// The draws of verifier-stage call i: sample index i on the verifier stream, draw indices as the
// CPU versions in core/logit_verifiers use them (TEV: 0 exit, 1 bonus; predraw: v at node v).
inline constexpr std::uint32_t kStageSeed = kDefaultSeed;
TEV_HD inline DrawSite stage_draw_site(std::uint64_t call) {
  return {kStageSeed, Stream::verifier, 0, call};
}

// Times the row floor, TEV and eager predraw on N rows of V float32 logits at a temperature,
// `calls` times each (call i draws at stage_draw_site(i)). The logits are uploaded once, before
// the timing. Throws std::invalid_argument where the tree does not fit TEV's exit step's shared
// memory (some thousands of nodes at V = 151,936).
StageTimings time_verifier_stage(const StageTree& tree, const float* logits, double temperature,
                                 std::int32_t calls);

}  // namespace tev::gpu
