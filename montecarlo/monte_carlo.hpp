#pragma once
// Parallel Monte Carlo of one verifier on one tree, into integer histograms. Integer counts add
// exactly in any order, so the result is identical for any thread count or partitioning; where a
// plan asks, each sample's cell is also recorded at its own index, for the tests of independence.
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "core/choosers.hpp"
#include "core/fast_verifiers.hpp"
#include "core/row_kernels.hpp"
#include "core/verifier_catalog.hpp"
#include "montecarlo/ranks.hpp"

namespace tev::montecarlo {

struct BlockCounts {
  std::vector<std::uint64_t>
      completed;                     // (N, V) samples per (exit node, next token) after completion
  std::vector<std::uint64_t> exits;  // (N) samples per exit node as the verifier returned it
  std::uint64_t samples = 0;
  std::uint64_t completions =
      0;  // samples whose bonus was a drafted child's token (proof of non-saturation)
  std::uint64_t length_sum = 0;  // Σ L with L = depth(exit) + 1, before completion
  // (samples) where the plan records the order: the completed cell (exit · V + bonus) of sample
  // first_sample + k at k; else empty.
  std::vector<std::int64_t> order;

  BlockCounts() = default;
  BlockCounts(std::int32_t nodes, std::int32_t vocab);
  // Adds other's counts; its order follows this one's (its samples come after these).
  void merge(const BlockCounts& other);
  // Adds up the counts of every rank (a no-op for one process).
  void sum_over_ranks(const Ranks& ranks);
  // Adds one returned block and its completion (tally_samples' loop does the same with its count
  // in a register, since stores into the histograms could alias these members, and Σ L at the end).
  void add(const DraftTree& tree, const Block& returned, const Block& completed);
  double mean_length() const {
    return samples ? static_cast<double>(length_sum) / static_cast<double>(samples) : 0.0;
  }
  friend bool operator==(const BlockCounts&, const BlockCounts&) = default;
};

struct MonteCarloPlan {
  std::uint32_t seed = 1;
  std::uint32_t tree_id = 0;  // the counter's tree/round word
  std::uint64_t samples = 0;
  std::uint64_t first_sample = 0;  // sample indices [first_sample, first_sample + samples)
  int threads = 1;
  bool fast_path = true;      // use the per-tree tables where the verifier has them
  bool record_order = false;  // fill BlockCounts::order
  Ranks ranks{};  // the processes the samples are split over: a collective when more than one
};

// Samples per batch: a sampler fills up to this many SampledBlocks per call.
inline constexpr std::size_t kSampleBatch = 64;

// out[i] = sample(i) for i < count; returns how many of them completion changed.
template <class Sample>
std::size_t count_completions(std::size_t count, SampledBlock* out, Sample&& sample) {
  std::size_t changed = 0;
  for (std::size_t i = 0; i < count; ++i) {
    out[i] = sample(i);
    changed += out[i].returned == out[i].completed ? 0 : 1;
  }
  return changed;
}

// The engine: new_task() gives a per-task sampler, sampler(first, count, out) fills out[0 ..
// count − 1] with samples first .. first + count − 1 (count ≤ kSampleBatch; returned block and
// completion) and returns how many of them completion changed (a sampler may keep scratch across
// the calls of its task, which come in increasing order). Each thread counts into its own dense
// histograms, added up at the end: integer sums, so the result does not depend on the threads or
// the partitioning.
template <class NewTask>
BlockCounts tally_samples(const DraftTree& tree, const TargetRows& rows, const MonteCarloPlan& plan,
                          NewTask&& new_task) {
  require_rows_match(tree, rows);
  if (plan.threads < 1) throw std::invalid_argument("threads must be at least 1");
  oneapi::tbb::enumerable_thread_specific<BlockCounts> per_thread(
      [&] { return BlockCounts(tree.size(), tree.vocab); });
  // Under mpirun this rank counts its slice of the samples; the sums over ranks are the whole run.
  // A pair, not a structured binding: clang 14 (the fuzz build) cannot capture bindings in a lambda.
  const std::pair<std::uint64_t, std::uint64_t> slice =
      plan.ranks.slice(plan.first_sample, plan.samples);
  // Sample s's cell at s − first_sample, whichever thread draws it; zero outside this rank's slice,
  // so the sum over ranks is the whole order.
  std::vector<std::int64_t> order(plan.record_order ? plan.samples : 0, 0);
  oneapi::tbb::task_arena arena(plan.threads);
  arena.execute([&] {
    oneapi::tbb::parallel_for(
        oneapi::tbb::blocked_range<std::uint64_t>(slice.first, slice.first + slice.second, 2048),
        [&](const oneapi::tbb::blocked_range<std::uint64_t>& range) {
          // add()'s update with raw pointers and the completion count in a
          // register: two increments per sample (the sampler counts the
          // completions; lengths come from the exit histogram at the end).
          BlockCounts& counts = per_thread.local();
          std::uint64_t* const exits = counts.exits.data();
          std::uint64_t* const completed = counts.completed.data();
          const auto vocab = static_cast<std::size_t>(tree.vocab);
          std::int64_t* const cells = order.empty() ? nullptr : order.data();
          std::uint64_t completions = 0;
          auto sampler = new_task();
          SampledBlock batch[kSampleBatch];
          for (std::uint64_t first = range.begin(); first < range.end(); first += kSampleBatch) {
            const auto count = static_cast<std::size_t>(
                std::min<std::uint64_t>(kSampleBatch, range.end() - first));
            completions += sampler(first, count, batch);
            for (std::size_t i = 0; i < count; ++i) {
              const SampledBlock& b = batch[i];
              ++exits[b.returned.exit];
              const std::size_t cell = static_cast<std::size_t>(b.completed.exit) * vocab +
                                       static_cast<std::size_t>(b.completed.bonus);
              ++completed[cell];
              if (cells) cells[first + i - plan.first_sample] = static_cast<std::int64_t>(cell);
            }
          }
          counts.samples += range.size();
          counts.completions += completions;
        });
  });
  BlockCounts result(tree.size(), tree.vocab);
  for (const BlockCounts& counts : per_thread) result.merge(counts);
  result.order = std::move(order);
  result.sum_over_ranks(plan.ranks);
  // Σ L over the samples, L = depth(exit) + 1, from the exit counts: the same integer as per sample.
  result.length_sum = 0;
  for (NodeId v = 0; v < tree.size(); ++v)
    result.length_sum +=
        result.exits[static_cast<std::size_t>(v)] * (static_cast<std::uint64_t>(tree.depth[v]) + 1);
  return result;
}

// A per-task sampler for the fast path: the verifier stream's block 0 of a batch's samples at once
// (RowKernels::philox_blocks: several blocks per vector, the same words as philox_block), then
// kernel(first, words, count, out) → the batch's SampledBlocks (words: (count, 4) their block 0)
// and the number completion changed.
template <class BatchKernel>
class BatchedSampler {
 public:
  BatchedSampler(std::uint32_t seed, std::uint32_t tree, BatchKernel kernel)
      : seed_(seed), tree_(tree), kernel_(kernel) {}
  std::size_t operator()(std::uint64_t first, std::size_t count, SampledBlock* out) {
    const DrawSite site = fast_verifier_site(seed_, tree_, first);
    philox_(site.seed, static_cast<std::uint32_t>(site.stream), 0, site.tree, first, count, words_);
    return kernel_(first, words_, count, out);
  }

 private:
  std::uint32_t seed_, tree_;
  BatchKernel kernel_;
  decltype(RowKernels::philox_blocks) philox_ = row_kernels().philox_blocks;
  std::uint32_t words_[4 * kSampleBatch];  // (kSampleBatch, 4) block 0 of the batch's samples
};

// A batch kernel from a per-sample one: sample(s, block0) → SampledBlock.
template <class Sample>
auto each_sample(Sample sample) {
  return [sample](std::uint64_t first, const std::uint32_t* words, std::size_t count,
                  SampledBlock* out) {
    return count_completions(count, out, [&](std::size_t i) {
      const std::uint32_t* w = words + 4 * i;
      return sample(first + i, r123::Philox4x32::ctr_type{{w[0], w[1], w[2], w[3]}});
    });
  };
}

// The fast path: samples of the kernel of `path` over a tree's tables (TEV's two draws phase by
// phase over each batch, tree_exit_verify_batch; the others sample by sample, sample_fast).
BlockCounts tally_fast_path(FastPath path, const DraftTree& tree, const TargetRows& rows,
                            const TreeTablesView& view, const MonteCarloPlan& plan);

// Chooser-path verifiers: sample(site, chooser) → Block gives sample `site.sample`'s block on the
// verifier stream (the chooser is a per-task scratch to restart); completion follows on its own stream.
template <class SampleBlock>
BlockCounts count_blocks(const DraftTree& tree, const TargetRows& rows, const MonteCarloPlan& plan,
                         SampleBlock&& sample) {
  return tally_samples(tree, rows, plan, [&] {
    return [&, chooser = PhiloxChooser({plan.seed, Stream::verifier, plan.tree_id, 0}),
            completion = PhiloxChooser({plan.seed, Stream::completion, plan.tree_id, 0})](
               std::uint64_t first, std::size_t count, SampledBlock* out) mutable {
      return count_completions(count, out, [&](std::size_t i) {
        const std::uint64_t s = first + i;
        const Block b = sample(DrawSite{plan.seed, Stream::verifier, plan.tree_id, s}, chooser);
        completion.restart({plan.seed, Stream::completion, plan.tree_id, s});
        return SampledBlock{b, complete_block(tree, rows, b, completion)};
      });
    };
  });
}

// A registered verifier, on its fast path when it has one and plan.fast_path is set.
BlockCounts run_monte_carlo(VerifierId id, const DraftTree& tree, const TargetRows& rows,
                            const MonteCarloPlan& plan);

}  // namespace tev::montecarlo
