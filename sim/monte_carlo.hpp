#pragma once
// Parallel Monte Carlo of one verifier on one tree, into integer histograms. Integer counts add
// exactly in any order, so the result is identical for any thread count or partitioning.
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_reduce.h>
#include <oneapi/tbb/task_arena.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "core/choosers.hpp"
#include "core/verifier_registry.hpp"
#include "sim/process_group.hpp"

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
  // Adds up the counts of every rank (a no-op for one process).
  void sum_over_ranks(const Ranks& ranks);
  // Adds one returned block and its completion.
  void add(const DraftTree& tree, const Block& returned, const Block& completed);
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
  Ranks ranks{};                    // the processes the samples are split over: a collective when more than one
};

// The engine: new_task() gives a per-task sampler, sampler(s) → SampledBlock gives sample s's
// returned block and its completion (a sampler may keep scratch across the samples of its task).
template <class NewTask>
BlockCounts tally_samples(const DraftTree& tree, const TargetRows& rows, const MonteCarloPlan& plan, NewTask&& new_task) {
  require_rows_match(tree, rows);
  if (plan.threads < 1) throw std::invalid_argument("threads must be at least 1");
  auto body = [&](const oneapi::tbb::blocked_range<std::uint64_t>& range, BlockCounts counts) {
    if (counts.completed.empty()) counts = BlockCounts(tree.size(), tree.vocab);
    auto sampler = new_task();
    for (std::uint64_t s = range.begin(); s != range.end(); ++s) {
      const SampledBlock b = sampler(s);
      counts.add(tree, b.returned, b.completed);
    }
    return counts;
  };
  auto merge = [](BlockCounts a, const BlockCounts& b) {
    a.merge(b);
    return a;
  };
  // Under mpirun this rank counts its slice of the samples; the sums over ranks are the whole run.
  // A pair, not a structured binding: clang 14 (the fuzz build) cannot capture bindings in a lambda.
  const std::pair<std::uint64_t, std::uint64_t> slice = plan.ranks.slice(plan.first_sample, plan.samples);
  oneapi::tbb::task_arena arena(plan.threads);
  BlockCounts result = arena.execute([&] {
    return oneapi::tbb::parallel_reduce(oneapi::tbb::blocked_range<std::uint64_t>(slice.first, slice.first + slice.second, 2048), BlockCounts{}, body, merge);
  });
  if (result.completed.empty()) result = BlockCounts(tree.size(), tree.vocab);
  result.sum_over_ranks(plan.ranks);
  return result;
}

// Chooser-path verifiers: sample(site, chooser) → Block gives sample `site.sample`'s block on the
// verifier stream (the chooser is a per-task scratch to restart); completion follows on its own stream.
template <class SampleBlock>
BlockCounts count_blocks(const DraftTree& tree, const TargetRows& rows, const MonteCarloPlan& plan, SampleBlock&& sample) {
  return tally_samples(tree, rows, plan, [&] {
    return [&, chooser = PhiloxChooser({plan.seed, Stream::verifier, plan.tree_id, 0}),
            completion = PhiloxChooser({plan.seed, Stream::completion, plan.tree_id, 0})](std::uint64_t s) mutable {
      const Block b = sample(DrawSite{plan.seed, Stream::verifier, plan.tree_id, s}, chooser);
      completion.restart({plan.seed, Stream::completion, plan.tree_id, s});
      return SampledBlock{b, complete_block(tree, rows, b, completion)};
    };
  });
}

// A registered verifier, on its fast path when it has one and plan.fast_path is set.
BlockCounts run_monte_carlo(VerifierId id, const DraftTree& tree, const TargetRows& rows, const MonteCarloPlan& plan);

}  // namespace tev
