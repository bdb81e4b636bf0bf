#include "montecarlo/monte_carlo.hpp"

#include <optional>

#include "core/sampling_tables.hpp"

namespace tev::montecarlo {

BlockCounts::BlockCounts(std::int32_t nodes, std::int32_t vocab)
    : completed(static_cast<std::size_t>(nodes) * static_cast<std::size_t>(vocab), 0),
      exits(static_cast<std::size_t>(nodes), 0) {}

void BlockCounts::merge(const BlockCounts& other) {
  if (other.samples == 0) return;
  if (samples == 0 && completed.empty()) {
    *this = other;
    return;
  }
  for (std::size_t i = 0; i < completed.size(); ++i) completed[i] += other.completed[i];
  for (std::size_t i = 0; i < exits.size(); ++i) exits[i] += other.exits[i];
  order.insert(order.end(), other.order.begin(), other.order.end());
  samples += other.samples;
  completions += other.completions;
  length_sum += other.length_sum;
}

void BlockCounts::sum_over_ranks(const Ranks& ranks) {
  if (ranks.size == 1) return;
  ranks.sum(completed);
  ranks.sum(exits);
  if (!order.empty()) ranks.sum(order);  // every rank records it, or none does
  std::uint64_t scalars[] = {samples, completions, length_sum};
  ranks.sum(scalars);
  samples = scalars[0];
  completions = scalars[1];
  length_sum = scalars[2];
}

void BlockCounts::add(const DraftTree& tree, const Block& returned, const Block& completed_block) {
  ++exits[static_cast<std::size_t>(returned.exit)];
  length_sum += static_cast<std::uint64_t>(tree.depth[returned.exit]) + 1;
  if (!(returned == completed_block)) ++completions;
  ++completed[static_cast<std::size_t>(completed_block.exit) *
                  static_cast<std::size_t>(tree.vocab) +
              static_cast<std::size_t>(completed_block.bonus)];
  ++samples;
}

BlockCounts tally_fast_path(FastPath path, const DraftTree& tree, const TargetRows& rows,
                            const TreeTablesView& view, const MonteCarloPlan& plan) {
  if (path == FastPath::tree_exit) {
    return tally_samples(tree, rows, plan, [&] {
      return BatchedSampler(
          plan.seed, plan.tree_id,
          [&](std::uint64_t first, const std::uint32_t* words, std::size_t count,
              SampledBlock* out) {
            Block returned[kSampleBatch];
            tree_exit_verify_batch(view, words, count, returned);
            // A saturated verifier's blocks never need completion: look that up for the whole batch
            // without a branch per sample, and complete sample by sample only when one does.
            bool incomplete = false;
            for (std::size_t i = 0; i < count; ++i)
              incomplete |= drafted_child(view, returned[i]) != kNoNode;
            if (!incomplete) {
              for (std::size_t i = 0; i < count; ++i) out[i] = {returned[i], returned[i]};
              return std::size_t{0};
            }
            return count_completions(count, out, [&](std::size_t i) {
              return SampledBlock{returned[i], complete_block_fast(view, returned[i], plan.seed,
                                                                   plan.tree_id, first + i)};
            });
          });
    });
  }
  return tally_samples(tree, rows, plan, [&] {
    return BatchedSampler(
        plan.seed, plan.tree_id,
        each_sample([&](std::uint64_t s, const r123::Philox4x32::ctr_type& block0) {
          return sample_fast(path, view, plan.seed, plan.tree_id, s, block0);
        }));
  });
}

BlockCounts run_monte_carlo(VerifierId id, const DraftTree& tree, const TargetRows& rows,
                            const MonteCarloPlan& plan) {
  const VerifierInfo& info = verifier_info(id);
  // A serial mutant exists on its fast path only: its samples depend on each other through their
  // counters, which a chooser run sample by sample never sees.
  const bool serial = serial_replay(info.fast_path).lag > 0;
  if ((plan.fast_path || serial) && info.fast_path != FastPath::none) {
    const TreeTables tables(tree, rows, child_order_for(id, tree, rows));
    return tally_fast_path(info.fast_path, tree, rows, tables.view(), plan);
  }
  return count_blocks(tree, rows, plan, [&](const DrawSite& site, PhiloxChooser& chooser) {
    chooser.restart_same_inputs(site);
    return run_verifier(id, tree, rows, chooser);
  });
}

}  // namespace tev::montecarlo
