// The verifier-stage implementations over float32 logits realize the canonical law. Sampled
// chi-square at a fixed seed: 3 trees × 5 verifiers, 30,000 samples each, alpha = 1e-3 per test
// (family-wise at most 0.015 over the 15 tests).
#include <gtest/gtest.h>
#include <oneapi/tbb/enumerable_thread_specific.h>

#include <cmath>
#include <functional>
#include <random>

#include "core/exit_law.hpp"
#include "stats/goodness_of_fit.hpp"
#include "core/logit_verifiers.hpp"
#include "montecarlo/monte_carlo.hpp"
#include "core/philox_engine.hpp"
#include "workloads/trees.hpp"

namespace tev::montecarlo {
namespace {

struct LogitCase {
  DraftTree tree;
  std::vector<float> logits;  // (N, V)
  double temperature;
  LogitRows view() const { return {logits.data(), tree.size(), tree.vocab, temperature}; }
};

// A DDTree over V = 1500 (two blocks of the row kernels, so block edges are exercised), Gaussian
// logits with a peaked favored token per node.
LogitCase make(std::uint32_t seed, double temperature) {
  constexpr std::int32_t kVocab = 1500;
  PhiloxEngine engine(DrawSite{seed, Stream::generation, 0, 0});
  std::normal_distribution<float> normal(0.0f, 1.5f);
  std::vector<std::vector<double>> marginals(3, std::vector<double>(kVocab));
  for (auto& q : marginals) {
    for (double& x : q) x = std::exp(normal(engine));
  }
  LogitCase c{workloads::ddtree_best_first(marginals, 12).tree, {}, temperature};
  c.logits.resize(static_cast<std::size_t>(c.tree.size()) * kVocab);
  for (float& l : c.logits) l = normal(engine);
  // Make drafted children likely, so paths go deep and children can cover most of a row.
  for (NodeId v = 1; v < c.tree.size(); ++v)
    c.logits[static_cast<std::size_t>(c.tree.parent[v]) * kVocab +
             static_cast<std::size_t>(c.tree.token[v])] += 8.0f;
  return c;
}

using LogitVerifier = std::function<Block(const LogitCase&, DrawCounter&, LogitScratch&)>;

TEST(LogitVerifiers, RealizeTheCanonicalLaw) {
  const std::vector<std::pair<std::string, LogitVerifier>> verifiers = {
      {"tev", [](const LogitCase& c, DrawCounter& d,
                 LogitScratch& s) { return tev_from_logits(c.tree, c.view(), d, s, 1); }},
      {"walk", [](const LogitCase& c, DrawCounter& d,
                  LogitScratch& s) { return walk_from_logits(c.tree, c.view(), d, s); }},
      {"predraw eager",
       [](const LogitCase& c, DrawCounter& d, LogitScratch& s) {
         return predraw_eager_from_logits(c.tree, c.view(), d, s, 1);
       }},
      {"predraw lazy",
       [](const LogitCase& c, DrawCounter& d, LogitScratch& s) {
         return predraw_lazy_from_logits(c.tree, c.view(), d, s);
       }},
      {"sequential residual",
       [](const LogitCase& c, DrawCounter& d, LogitScratch& s) {
         return sequential_residual_from_logits(c.tree, c.view(), d, s);
       }},
  };
  for (std::uint32_t seed : {1u, 2u, 3u}) {
    const LogitCase c = make(seed, seed == 2 ? 0.6 : 1.0);
    std::vector<double> as_double(c.logits.begin(), c.logits.end());
    const TargetRows rows =
        TargetRows::from_logits(as_double, c.tree.size(), c.tree.vocab, c.temperature);
    const std::vector<double> canonical =
        canonical_block_law(c.tree, rows, ExitLaw::compute(c.tree, rows));
    for (const auto& [name, verify] : verifiers) {
      const MonteCarloPlan plan{
          .seed = 77, .tree_id = seed, .samples = 30000, .first_sample = 0, .threads = 2};
      // One scratch per worker thread: a verifier call writes into it.
      oneapi::tbb::enumerable_thread_specific<LogitScratch> scratch(
          [&] { return LogitScratch(c.tree.vocab, c.tree.size()); });
      const BlockCounts counts =
          count_blocks(c.tree, rows, plan, [&](const DrawSite& site, PhiloxChooser&) {
            DrawCounter draws(site);
            return verify(c, draws, scratch.local());
          });
      const stats::ChiSquareResult r = stats::pearson_chi_square(
          counts.completed, canonical, stats::node_groups(c.tree.size(), c.tree.vocab));
      EXPECT_EQ(r.impossible, 0u) << name << " seed " << seed;
      EXPECT_GT(r.p_value, 1e-3) << name << " seed " << seed << ": chi2 " << r.statistic << " on "
                                 << r.dof << " dof";
      EXPECT_EQ(counts.completions, 0u) << name << " is saturated: no in-tree bonus";
    }
  }
}

TEST(LogitVerifiers, ThreadsDoNotChangeTheBlock) {
  const LogitCase c = make(5, 1.0);
  LogitScratch one(c.tree.vocab, c.tree.size()), two(c.tree.vocab, c.tree.size());
  for (std::uint64_t s = 0; s < 300; ++s) {
    DrawCounter a({9, Stream::verifier, 0, s}), b({9, Stream::verifier, 0, s});
    ASSERT_EQ(tev_from_logits(c.tree, c.view(), a, one, 1),
              tev_from_logits(c.tree, c.view(), b, two, 2))
        << "sample " << s;
    DrawCounter x({9, Stream::verifier, 0, s}), y({9, Stream::verifier, 0, s});
    ASSERT_EQ(predraw_eager_from_logits(c.tree, c.view(), x, one, 1),
              predraw_eager_from_logits(c.tree, c.view(), y, two, 2))
        << "sample " << s;
  }
}

}  // namespace
}  // namespace tev::montecarlo
