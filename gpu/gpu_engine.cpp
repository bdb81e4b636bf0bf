#include "gpu/gpu_engine.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "core/sampling_tables.hpp"

namespace tev::gpu {

namespace {

montecarlo::BlockCounts to_counts(const DraftTree& tree,
                                  const std::vector<std::uint64_t>& histogram) {
  montecarlo::BlockCounts counts(tree.size(), tree.vocab);
  const auto cells = static_cast<std::ptrdiff_t>(counts.completed.size());
  const auto nodes = static_cast<std::ptrdiff_t>(counts.exits.size());
  std::copy(histogram.begin(), histogram.begin() + cells, counts.completed.begin());
  std::copy(histogram.begin() + cells, histogram.begin() + cells + nodes, counts.exits.begin());
  counts.samples = histogram[static_cast<std::size_t>(cells + nodes)];
  counts.completions = histogram[static_cast<std::size_t>(cells + nodes + 1)];
  counts.length_sum = histogram[static_cast<std::size_t>(cells + nodes + 2)];
  return counts;
}

struct Case {
  const DraftTree* tree;
  const TargetRows* rows;
};

std::vector<montecarlo::BlockCounts> tally_batch(VerifierId id, const std::vector<Case>& cases,
                                                 const montecarlo::MonteCarloPlan& plan,
                                                 double* kernel_seconds) {
  const VerifierInfo& info = verifier_info(id);
  if (info.fast_path == FastPath::none)
    throw std::invalid_argument(std::string(info.name) + " has no GPU kernel (no fast path)");
  std::vector<TreeTables> tables;
  std::vector<TallyTree> trees;
  tables.reserve(cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    require_rows_match(*cases[i].tree, *cases[i].rows);
    tables.emplace_back(*cases[i].tree, *cases[i].rows,
                        child_order_for(id, *cases[i].tree, *cases[i].rows));
    trees.push_back({tables.back().view(), plan.tree_id + static_cast<std::uint32_t>(i)});
  }
  // Under mpirun this rank samples its slice; the sums over ranks are the whole run.
  const auto [first, count] = plan.ranks.slice(plan.first_sample, plan.samples);
  const DeviceTally tally =
      tally_on_device(info.fast_path, trees, plan.seed, first, count, plan.record_order);
  if (kernel_seconds) *kernel_seconds = tally.kernel_seconds;
  std::vector<montecarlo::BlockCounts> counts;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    counts.push_back(to_counts(*cases[i].tree, tally.histograms[i]));
    if (plan.record_order) {
      // This rank's slice at its place in the whole run; zeros elsewhere add up over ranks.
      std::vector<std::int64_t>& order = counts.back().order;
      order.assign(plan.samples, 0);
      std::copy(tally.orders[i].begin(), tally.orders[i].end(),
                order.begin() + static_cast<std::ptrdiff_t>(first - plan.first_sample));
    }
    counts.back().sum_over_ranks(plan.ranks);
  }
  return counts;
}

}  // namespace

std::vector<montecarlo::BlockCounts> monte_carlo_batch(VerifierId id,
                                                       std::span<const workloads::CheckCase> cases,
                                                       const montecarlo::MonteCarloPlan& plan,
                                                       double* kernel_seconds) {
  std::vector<Case> batch;
  for (const workloads::CheckCase& c : cases) batch.push_back({&c.tree, &c.rows});
  return tally_batch(id, batch, plan, kernel_seconds);
}

montecarlo::BlockCounts run_monte_carlo(VerifierId id, const DraftTree& tree,
                                        const TargetRows& rows,
                                        const montecarlo::MonteCarloPlan& plan) {
  if (verifier_info(id).fast_path == FastPath::none)
    return tev::montecarlo::run_monte_carlo(id, tree, rows, plan);
  return tally_batch(id, {{&tree, &rows}}, plan, nullptr).front();
}

StageTimings time_verifier_stage(const DraftTree& tree, const LogitRows& logits,
                                 std::int32_t calls) {
  if (logits.rows != tree.size() || logits.vocab != tree.vocab)
    throw std::invalid_argument("logit rows do not match the tree");
  const StageTree stage{tree.size(), tree.vocab, tree.first_child.data(), tree.child_count.data(),
                        tree.token.data()};
  return time_verifier_stage(stage, logits.data, logits.temperature, calls);
}

}  // namespace tev::gpu
