#include "sim/monte_carlo.hpp"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_reduce.h>
#include <oneapi/tbb/task_arena.h>

#include <optional>
#include <stdexcept>

#include "core/choosers.hpp"
#include "core/sampling_tables.hpp"

namespace tev {

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
  samples += other.samples;
  completions += other.completions;
  length_sum += other.length_sum;
}

BlockCounts run_monte_carlo(VerifierId id, const DraftTree& tree, const TargetRows& rows, const MonteCarloPlan& plan) {
  require_rows_match(tree, rows);
  if (plan.threads < 1) throw std::invalid_argument("threads must be at least 1");
  const VerifierInfo& info = verifier_info(id);
  std::optional<TreeTables> tables;
  if (plan.fast_path && info.fast_path != FastPath::none) tables.emplace(tree, rows, child_order_for(id, tree, rows));

  auto body = [&](const oneapi::tbb::blocked_range<std::uint64_t>& range, BlockCounts counts) {
    if (counts.completed.empty()) counts = BlockCounts(tree.size(), tree.vocab);
    PhiloxChooser chooser({plan.seed, Stream::verifier, plan.tree_id, 0});
    PhiloxChooser completion({plan.seed, Stream::completion, plan.tree_id, 0});
    for (std::uint64_t s = range.begin(); s != range.end(); ++s) {
      const DrawSite site{plan.seed, Stream::verifier, plan.tree_id, s};
      Block b;
      if (tables) {
        DrawCounter draws(site);
        b = run_fast_path(info.fast_path, tables->view(), draws);
      } else {
        chooser.restart(site);
        b = run_verifier(id, tree, rows, chooser);
      }
      ++counts.exits[static_cast<std::size_t>(b.exit)];
      counts.length_sum += static_cast<std::uint64_t>(tree.depth[b.exit]) + 1;
      if (tree.child_with_token(b.exit, b.bonus) != kNoNode) {
        ++counts.completions;
        completion.restart({plan.seed, Stream::completion, plan.tree_id, s});
        b = complete_block(tree, rows, b, completion);
      }
      ++counts.completed[static_cast<std::size_t>(b.exit) * static_cast<std::size_t>(tree.vocab) + static_cast<std::size_t>(b.bonus)];
      ++counts.samples;
    }
    return counts;
  };
  auto merge = [](BlockCounts a, const BlockCounts& b) {
    a.merge(b);
    return a;
  };
  oneapi::tbb::task_arena arena(plan.threads);
  BlockCounts result = arena.execute([&] {
    return oneapi::tbb::parallel_reduce(
        oneapi::tbb::blocked_range<std::uint64_t>(plan.first_sample, plan.first_sample + plan.samples, 2048),
        BlockCounts{}, body, merge);
  });
  if (result.completed.empty()) result = BlockCounts(tree.size(), tree.vocab);
  return result;
}

}  // namespace tev
