#pragma once
// Parallel Monte Carlo of one verifier on one tree, into integer histograms. Integer counts add
// exactly in any order, so the result is identical for any thread count or partitioning.
#include <cstdint>
#include <vector>

#include "core/verifier_registry.hpp"

namespace tev {

struct BlockCounts {
  std::vector<std::uint64_t> completed;  // (N, V) samples per (exit node, next token) after completion
  std::vector<std::uint64_t> exits;      // (N) samples per exit node as the verifier returned it
  std::uint64_t samples = 0;
  std::uint64_t completions = 0;  // samples whose bonus was a drafted child's token (proof of non-saturation)
  std::uint64_t length_sum = 0;   // Σ L with L = depth(exit) + 1, before completion

  BlockCounts() = default;
  BlockCounts(std::int32_t nodes, std::int32_t vocab);
  void merge(const BlockCounts& other);
  double mean_length() const { return samples ? static_cast<double>(length_sum) / static_cast<double>(samples) : 0.0; }
  friend bool operator==(const BlockCounts&, const BlockCounts&) = default;
};

struct MonteCarloPlan {
  std::uint32_t seed = 1;
  std::uint32_t tree_id = 0;      // the counter's tree/round word
  std::uint64_t samples = 0;
  std::uint64_t first_sample = 0; // sample indices [first_sample, first_sample + samples)
  int threads = 1;
  bool fast_path = true;          // use the per-tree tables where the verifier has them
};

BlockCounts run_monte_carlo(VerifierId id, const DraftTree& tree, const TargetRows& rows, const MonteCarloPlan& plan);

}  // namespace tev
