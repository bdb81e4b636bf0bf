// Sampled drafts on the Sphinx trigram: the live rows a sampled tree reads, the first word's exact
// law over the root's drafts and tests, and a small run of `live --drafts sampled`.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <set>
#include <sstream>

#include "core/compensated_sum.hpp"
#include "core/exit_law.hpp"
#include "live/live_sampled.hpp"
#include "models/tests/sphinx_fixture.hpp"

namespace tev::live {
namespace {

// The fixture's models and context with the rows a sampled tree (top 4, depth 2) reads after it.
struct SampledSphinx : models::testing_fixture::Sphinx {
  LiveLanguagePair pair{target, drafter, context, 4, 2, 1.0};
};

SampledSphinx& sampled_sphinx() {
  static SampledSphinx s;
  return s;
}

TEST(LiveLanguagePair, DraftRowsKeepTheDraftersTopKWordsAndLeavesDraftNothing) {
  SampledSphinx& s = sampled_sphinx();
  const std::span<const double> q = s.pair.q({});
  std::vector<double> full = s.drafter.next_row(s.context);
  std::vector<Token> order(full.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<Token>(i);
  std::stable_sort(order.begin(), order.end(), [&](Token a, Token b) {
    return full[static_cast<std::size_t>(a)] > full[static_cast<std::size_t>(b)];
  });
  EXPECT_EQ(std::count_if(q.begin(), q.end(), [](double x) { return x > 0.0; }), 4);
  EXPECT_NEAR(compensated_total(q), 1.0, 1e-15);
  double top = 0.0;
  for (int i = 0; i < 4; ++i)
    top += full[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])];
  for (int i = 0; i < 4; ++i) {
    const auto t = static_cast<std::size_t>(order[static_cast<std::size_t>(i)]);
    EXPECT_NEAR(q[t], full[t] / top, 1e-15);
  }
  // Node numbers: the root 0, its top-k children 1..k, distinct grandchildren above.
  EXPECT_EQ(s.pair.index({}), 0u);
  std::set<std::size_t> ids;
  for (int i = 0; i < 4; ++i) {
    const Token x = order[static_cast<std::size_t>(i)];
    EXPECT_EQ(s.pair.index(std::vector<Token>{x}), static_cast<std::size_t>(i + 1));
    EXPECT_TRUE(s.pair.q(std::vector<Token>{x}).size() == full.size());
    const std::span<const double> child_q = s.pair.q(std::vector<Token>{x});
    for (Token y = 0; y < static_cast<Token>(child_q.size()); ++y) {
      if (child_q[static_cast<std::size_t>(y)] > 0.0)
        ids.insert(s.pair.index(std::vector<Token>{x, y}));
    }
    EXPECT_TRUE(s.pair.q(std::vector<Token>{x, x}).empty());  // depth D: a leaf
  }
  EXPECT_EQ(ids.size(), 16u);
  EXPECT_EQ(*ids.begin(), 1u + 5u);
  // p is the target's row at context ‖ prefix, normalized.
  std::vector<double> p = s.target.next_row(s.context);
  const double total = compensated_total(p);
  for (std::size_t a : {std::size_t{0}, static_cast<std::size_t>(order[0])})
    EXPECT_NEAR(s.pair.p({})[a], p[a] / total, 1e-15);
}

// The first word is decided at the root; its exact law over the root's drafts and tests equals
// the target's next-word row for every q-based verifier (marginal exactness at V = 72,547), and
// differs for the mutants that act at the root.
TEST(FirstWordLaw, IsTheTargetsRowForQBasedVerifiersAndNotForRootMutants) {
  SampledSphinx& s = sampled_sphinx();
  using Id = drafts::SampledVerifierId;
  const std::span<const double> target = s.pair.p({});
  const drafts::Drafting chain{drafts::DraftPolicy::chain, 1, 2},
      iid{drafts::DraftPolicy::iid_children, 2, 2},
      distinct{drafts::DraftPolicy::without_replacement, 2, 2};
  for (const drafts::SampledCase& c :
       {drafts::SampledCase{Id::speculative_sampling, chain},
        drafts::SampledCase{Id::rejection_with_replacement, iid},
        drafts::SampledCase{Id::rejection_without_replacement, distinct},
        drafts::SampledCase{Id::rejection_with_replacement, chain}}) {
    const auto law = first_word_law(s.pair, c);
    ASSERT_TRUE(law.has_value());
    EXPECT_NEAR(compensated_total(*law), 1.0, 1e-13) << c.label();
    EXPECT_LE(total_variation(*law, target), 1e-12) << c.label();
  }
  for (const drafts::SampledCase& c :
       {drafts::SampledCase{Id::mutant_bonus_from_target_row, iid},
        drafts::SampledCase{Id::mutant_draft_uniform_reused, chain}}) {
    const auto law = first_word_law(s.pair, c);
    ASSERT_TRUE(law.has_value());
    EXPECT_GT(total_variation(*law, target), 1e-3) << c.label();
  }
  EXPECT_FALSE(first_word_law(s.pair, {Id::tree_exit, iid}).has_value());
}

LiveSampledOptions tiny(int threads) {
  LiveSampledOptions o;
  o.context_length = 3;
  o.top_k = 4;
  o.first_word_samples = 300;
  o.rounds = 2;
  o.draws_per_round = 3;
  o.seed = 11;
  o.threads = threads;
  return o;
}

// A small run: every case present, results the same for 1 and 2 threads, TEV's tokens per round on
// the same trees as the q-based verifier, the exact first-word laws as required.
TEST(SampledLive, SmallRunIsTheSameForAnyThreadCount) {
  models::ModelRequest request;
  request.drafters = {"bigram"};
  const models::ModelSet models = models::load_models(request);
  std::ostringstream progress;
  const LiveSampledResult one = run_live_sampled(models, tiny(1), progress);
  const LiveSampledResult two = run_live_sampled(models, tiny(2), progress);
  ASSERT_EQ(one.first_word.size(),
            8u);  // TEV and the q-based verifier on three policies, two mutants
  ASSERT_EQ(one.rounds.size(), 3u);
  EXPECT_EQ(one.context.size(), 4u);
  for (std::size_t i = 0; i < one.first_word.size(); ++i) {
    const FirstWordCase& f = one.first_word[i];
    EXPECT_EQ(f.counts, two.first_word[i].counts) << f.c.label();
    std::uint64_t total = 0;
    for (std::uint64_t n : f.counts) total += n;
    EXPECT_EQ(total, 300u);
    if (f.kind == drafts::SampledKind::q_based) {
      EXPECT_LE(*f.exact_tv, 1e-12) << f.c.label();
    } else if (f.kind == drafts::SampledKind::mutant) {
      EXPECT_GT(*f.exact_tv, 1e-3) << f.c.label();
    } else {
      EXPECT_FALSE(f.exact_tv.has_value()) << f.c.label();
    }
  }
  for (std::size_t i = 0; i < one.rounds.size(); ++i) {
    const RoundsComparison& r = one.rounds[i];
    EXPECT_EQ(r.rounds, 2);
    EXPECT_EQ(r.tokens, two.rounds[i].tokens);
    EXPECT_DOUBLE_EQ(r.q_mean, two.rounds[i].q_mean);
    EXPECT_GE(r.tev_mean, 1.0);
    EXPECT_LE(r.tev_mean, 1.0 + r.drafting.depth);
    EXPECT_GE(r.ceiling_mean, 1.0);
    EXPECT_NEAR(r.difference_mean, r.q_mean - r.tev_mean, 1e-12);
  }
}

}  // namespace
}  // namespace tev::live
