#include "experiments/composition.hpp"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_reduce.h>
#include <oneapi/tbb/task_arena.h>

#include <cmath>
#include <stdexcept>

#include "core/choosers.hpp"
#include "core/exit_law.hpp"
#include "montecarlo/monte_carlo.hpp"
#include "montecarlo/ranks.hpp"
#include "workloads/synthetic.hpp"
#include "workloads/trees.hpp"

namespace tev::experiments {

namespace {

constexpr double kFixedPoint = 4294967296.0;  // 2^32

// Next-token rows that depend on the last two tokens only.
class OrderTwoModel {
 public:
  OrderTwoModel(std::int32_t vocab, std::uint32_t seed, double draft_noise) : vocab_(vocab) {
    const workloads::RowFamilySpec family{workloads::RowFamily::dirichlet, 0.7, 1.0};
    for (std::int32_t context = 0; context < vocab * vocab; ++context) {
      PhiloxEngine engine(seed, uses::composition_rows, static_cast<std::uint32_t>(context));
      const auto p = workloads::sample_row(family, vocab, engine);
      const auto q = workloads::perturb_row(p, draft_noise, engine);
      target_.insert(target_.end(), p.begin(), p.end());
      draft_.insert(draft_.end(), q.begin(), q.end());
    }
  }
  std::span<const double> target(Token a, Token b) const { return row(target_, a, b); }
  std::span<const double> draft(Token a, Token b) const { return row(draft_, a, b); }

 private:
  std::span<const double> row(const std::vector<double>& table, Token a, Token b) const {
    return {
        table.data() + static_cast<std::size_t>(a * vocab_ + b) * static_cast<std::size_t>(vocab_),
        static_cast<std::size_t>(vocab_)};
  }
  std::int32_t vocab_;
  std::vector<double> target_;  // (V·V, V) row for context (a, b) at a·V + b
  std::vector<double> draft_;   // (V·V, V)
};

// The last two tokens of a sequence extended by a path.
std::pair<Token, Token> last_two(const std::vector<Token>& context,
                                 const std::vector<Token>& path) {
  std::vector<Token> tail(context.end() - 2, context.end());
  tail.insert(tail.end(), path.begin(), path.end());
  return {tail[tail.size() - 2], tail.back()};
}

struct Round {
  DraftTree tree;
  TargetRows rows;
};

Round build_round(const OrderTwoModel& model, const std::vector<Token>& context,
                  const CompositionConfig& config) {
  std::vector<std::vector<double>> marginals;
  std::vector<Token> chain;
  for (std::int32_t d = 0; d < config.depth; ++d) {
    const auto [a, b] = last_two(context, chain);
    const auto q = model.draft(a, b);
    marginals.emplace_back(q.begin(), q.end());
    chain.push_back(static_cast<Token>(std::max_element(q.begin(), q.end()) - q.begin()));
  }
  DraftTree tree = workloads::ddtree_best_first(marginals, config.budget).tree;
  std::vector<double> probs;
  for (NodeId v = 0; v < tree.size(); ++v) {
    const auto [a, b] = last_two(context, tree.path_tokens(v));
    const auto p = model.target(a, b);
    probs.insert(probs.end(), p.begin(), p.end());
  }
  TargetRows rows = TargetRows::from_probabilities(probs, tree.size(), config.vocab);
  return {std::move(tree), std::move(rows)};
}

struct SequenceCounts {
  std::vector<std::uint64_t> cells;  // (V^n) first n tokens
  std::uint64_t length_sum = 0;
  std::int64_t ceiling_fixed =
      0;  // Σ (1 + C_p) · 2^32: an integer, so the sum is exact in any order and over MPI ranks
  std::uint64_t rounds = 0;
};

}  // namespace

std::vector<CompositionResult> run_composition(const CompositionConfig& config,
                                               const std::vector<VerifierId>& ids) {
  if (config.vocab < 2 || config.tokens < 1 || config.rounds < 1 || config.sequences == 0) {
    throw std::invalid_argument(
        "composition: vocabulary ≥ 2, tokens ≥ 1, rounds ≥ 1 and sequences ≥ 1 required");
  }
  const OrderTwoModel model(config.vocab, config.seed, 0.8);
  const auto cells = static_cast<std::size_t>(std::pow(config.vocab, config.tokens));
  const std::vector<Token> start = {0, 1};

  // Exact law of the first n tokens: the target's chain rule over every sequence.
  std::vector<double> exact(cells, 1.0);
  for (std::size_t s = 0; s < cells; ++s) {
    std::vector<Token> seq = start;
    std::size_t code = s;
    for (std::int32_t t = 0; t < config.tokens; ++t) {
      const auto token = static_cast<Token>(code % static_cast<std::size_t>(config.vocab));
      code /= static_cast<std::size_t>(config.vocab);
      exact[s] *= model.target(seq[seq.size() - 2], seq.back())[static_cast<std::size_t>(token)];
      seq.push_back(token);
    }
  }
  const std::vector<std::int32_t> one_group(cells, 0);

  struct Entry {
    std::string name;
    VerifierId id;
    bool reuse;
  };
  std::vector<Entry> entries;
  for (VerifierId id : ids) entries.push_back({std::string(verifier_info(id).name), id, false});
  entries.push_back({"mutant-reuses-randomness-across-rounds", VerifierId::tree_exit, true});

  std::vector<CompositionResult> results;
  for (const Entry& entry : entries) {
    auto body = [&](const oneapi::tbb::blocked_range<std::uint64_t>& range, SequenceCounts counts) {
      if (counts.cells.empty()) counts.cells.assign(cells, 0);
      PhiloxChooser chooser({config.seed, Stream::composition, 0, 0});
      for (std::uint64_t s = range.begin(); s != range.end(); ++s) {
        std::vector<Token> seq = start;
        for (std::int32_t round = 0;
             round < config.rounds || static_cast<std::int32_t>(seq.size()) - 2 < config.tokens;
             ++round) {
          const Round r = build_round(model, seq, config);
          // The mutant forgets to advance the round word of the counter: every round reuses the
          // first round's uniforms.
          chooser.restart({config.seed, Stream::composition,
                           entry.reuse ? 0u : static_cast<std::uint32_t>(round), s});
          const Block b = run_verifier(entry.id, r.tree, r.rows, chooser);
          if (round < config.rounds) {
            counts.length_sum += static_cast<std::uint64_t>(r.tree.depth[b.exit]) + 1;
            counts.ceiling_fixed +=
                std::llround(ExitLaw::compute(r.tree, r.rows).ceiling() * kFixedPoint);
            ++counts.rounds;
          }
          const auto path = r.tree.path_tokens(b.exit);
          seq.insert(seq.end(), path.begin(), path.end());
          seq.push_back(b.bonus);
        }
        std::size_t code = 0, scale = 1;
        for (std::int32_t t = 0; t < config.tokens; ++t) {
          code += static_cast<std::size_t>(seq[static_cast<std::size_t>(t) + 2]) * scale;
          scale *= static_cast<std::size_t>(config.vocab);
        }
        ++counts.cells[code];
      }
      return counts;
    };
    auto merge = [](SequenceCounts a, const SequenceCounts& b) {
      if (a.cells.empty()) return b;
      if (b.cells.empty()) return a;
      for (std::size_t i = 0; i < a.cells.size(); ++i) a.cells[i] += b.cells[i];
      a.length_sum += b.length_sum;
      a.ceiling_fixed += b.ceiling_fixed;
      a.rounds += b.rounds;
      return a;
    };
    // A pair, not a structured binding: clang 14 (the fuzz build) cannot capture bindings in a lambda.
    const std::pair<std::uint64_t, std::uint64_t> slice = config.ranks.slice(0, config.sequences);
    oneapi::tbb::task_arena arena(config.threads);
    SequenceCounts counts = arena.execute([&] {
      return oneapi::tbb::parallel_reduce(
          oneapi::tbb::blocked_range<std::uint64_t>(slice.first, slice.first + slice.second, 1024),
          SequenceCounts{}, body, merge);
    });
    if (counts.cells.empty()) counts.cells.assign(cells, 0);
    config.ranks.sum(counts.cells);
    std::int64_t scalars[] = {static_cast<std::int64_t>(counts.length_sum), counts.ceiling_fixed,
                              static_cast<std::int64_t>(counts.rounds)};
    config.ranks.sum(scalars);
    counts.length_sum = static_cast<std::uint64_t>(scalars[0]);
    counts.ceiling_fixed = scalars[1];
    counts.rounds = static_cast<std::uint64_t>(scalars[2]);
    CompositionResult result;
    result.verifier = entry.name;
    result.reuses_randomness = entry.reuse;
    stats::TestLevel level = config.level;
    level.id = static_cast<std::uint32_t>(results.size());
    result.chi_square = stats::identity_test(counts.cells, exact, one_group, level);
    result.tokens_per_round =
        static_cast<double>(counts.length_sum) / static_cast<double>(counts.rounds);
    result.ceiling_per_round = static_cast<double>(counts.ceiling_fixed) / kFixedPoint /
                               static_cast<double>(counts.rounds);
    result.exact_mass_checked = compensated_total(exact);
    results.push_back(result);
  }
  return results;
}

}  // namespace tev::experiments
