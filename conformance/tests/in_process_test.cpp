// The in-process check: every registered verifier through the drawing form lands on its kind's
// verdict (mutants caught by enumeration on some case, always), seeded verifiers are judged by
// sampling, bad blocks are impossible events, and results do not depend on the threads.
#include "conformance/in_process.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "conformance/tests/in_process_verifiers.hpp"
#include "core/verifier_catalog.hpp"

namespace tev::conformance {
namespace {

// Fewer samples than the default (40,000 per case, the fewest at which the tests of independence
// still guarantee TV 0.05), and the sparse case over V = 64 instead of
// 50,000 (a chooser's draw reads the whole row): enough for the enumerated verdicts, quick.
tevsuite::TreeCheckOptions small_options() {
  tevsuite::TreeCheckOptions options;
  options.samples = 40000;
  options.large_vocab = 64;
  options.large_vocab_factor = 1;
  options.threads = 2;
  return options;
}

// The public Draws as a chooser (core/choosers.hpp), for tevsuite's own verifiers; prepare
// computes every time (the public Draws keeps nothing between runs).
class DrawsChooser {
 public:
  explicit DrawsChooser(tevsuite::Draws& draws) : draws_(draws) {}
  std::size_t categorical(std::span<const double> weights) { return draws_.categorical(weights); }
  Token next_token(const DraftTree&, NodeId v, std::span<const double> weights) {
    return draws_.next_token(v, weights);
  }
  template <class Compute>
  auto prepare(Compute&& compute) {
    return compute();
  }

 private:
  tevsuite::Draws& draws_;
};

// A registered verifier as a drawing verifier: the view's case looked up by id.
tevsuite::DrawingVerifier registered(VerifierId id,
                                     const std::map<std::string, Case, std::less<>>& cases) {
  return tevsuite::drawing([id, &cases](const tevsuite::TreeCase& view, tevsuite::Draws& draws) {
    const Case& c = cases.find(view.id)->second;
    DrawsChooser chooser(draws);
    const Block b = run_verifier(id, c.tree, c.rows, chooser);
    return tevsuite::Block{c.tree.path_tokens(b.exit), b.bonus};
  });
}

std::map<std::string, Case, std::less<>> cases_by_id(const tevsuite::TreeCheckOptions& options) {
  std::map<std::string, Case, std::less<>> out;
  for (Case& c : tree_cases(options)) out.emplace(c.id, std::move(c));
  return out;
}

TEST(TreeCheck, EveryRegisteredVerifierGetsItsKindsVerdict) {
  const tevsuite::TreeCheckOptions options = small_options();
  const auto cases = cases_by_id(options);
  for (const VerifierInfo& info : verifier_catalog()) {
    // run_verifier draws one block of a serial mutant, TEV's: its dependence lives in its Monte
    // Carlo's counters (montecarlo_tests, judging_tests), which a drawing verifier never reads.
    if (info.kind == VerifierKind::serial_mutant) continue;
    SCOPED_TRACE(std::string(info.name));
    const TreeReport report = conformance::check_tree_verifier(registered(info.id, cases), options);
    ASSERT_EQ(report.cases.size(), 8u);
    switch (info.kind) {
      case VerifierKind::saturated:
        EXPECT_EQ(report.overall, judging::Verdict::exact_saturated) << describe(report);
        break;
      case VerifierKind::unsaturated:
        EXPECT_EQ(report.overall, judging::Verdict::exact_not_saturated) << describe(report);
        break;
      case VerifierKind::serial_mutant:
        break;
      case VerifierKind::mutant: {
        EXPECT_EQ(report.overall, judging::Verdict::not_exact);
        bool enumeration_caught = false;
        for (const auto& r : report.cases)
          enumeration_caught = enumeration_caught || r.decision.enumerated_not_exact;
        EXPECT_TRUE(enumeration_caught) << "enumeration must catch every mutant";
        EXPECT_NE(describe(report).find("first failing case: " + report.first_failing),
                  std::string::npos);
        break;
      }
    }
    for (const auto& r : report.cases)
      EXPECT_TRUE(r.evidence.enumerated || !r.not_enumerated.empty()) << r.id;
  }
}

using test_verifiers::draw_from;
using test_verifiers::root_bonus;

// root_bonus's bug: the bonus uniform over V.
tevsuite::Block uniform_bonus(const tevsuite::TreeCase& c, tevsuite::Randomness& r) {
  return {{}, static_cast<std::int32_t>(r.uniform() * c.vocab)};
}

TEST(TreeCheck, SeededVerifiersAreJudgedBySampling) {
  tevsuite::TreeCheckOptions options = small_options();
  options.samples = 100000;  // 20,000 cannot guarantee TV 0.05 in every direction: inconclusive
  const TreeReport exact = conformance::check_tree_verifier(root_bonus, options);
  EXPECT_EQ(exact.overall, judging::Verdict::exact_not_saturated) << describe(exact);
  for (const auto& r : exact.cases) EXPECT_FALSE(r.evidence.enumerated);
  const TreeReport bug = conformance::check_tree_verifier(uniform_bonus, options);
  EXPECT_EQ(bug.overall, judging::Verdict::not_exact);
  const std::string text = describe(bug);
  EXPECT_NE(text.find("first failing case: " + bug.first_failing), std::string::npos) << text;
  EXPECT_NE(text.find("largest cell deviations"), std::string::npos) << text;
  // root_bonus's tokens of small probability pool into a tail, which the message names as one.
  EXPECT_NE(text.find("    global tail of "), std::string::npos) << text;
}

// A pooled tail of one exit node is named by that node: on the large-vocabulary case (V = 64;
// root_bonus, which is exact, elsewhere) every block exits at node 1, the root's first child
// accepted always, with node 1's least likely token as the bonus: a cell that pools into node 1's
// tail, so that tail is far above its expectation.
TEST(TreeCheck, ANodesPooledTailIsNamedByItsNode) {
  tevsuite::TreeCheckOptions options = small_options();
  options.samples = 20000;  // where node 1's rare cells pool into a tail of their own
  const TreeReport bug = conformance::check_tree_verifier(
      [&](const tevsuite::TreeCase& c, tevsuite::Randomness& r) {
        if (c.vocab < options.large_vocab) return root_bonus(c, r);
        const std::span<const double> row = c.row(1);
        std::int32_t least = -1;
        for (std::int32_t t = 0; t < c.vocab; ++t) {
          if (row[t] > 0.0 && (least < 0 || row[t] < row[least])) least = t;
        }
        return tevsuite::Block{{c.tokens[1]}, least};
      },
      options);
  ASSERT_EQ(bug.overall, judging::Verdict::not_exact);
  const std::string text = describe(bug);
  EXPECT_NE(text.find("    exit node 1, tail of "), std::string::npos) << text;
}

// A verifier that always answers the root's token 0: χ² so large that its p underflows to 0,
// which describe() must print as the bound it is, not as p = 0 (kept for impossible events).
TEST(TreeCheck, AnUnderflowedPValueIsPrintedAsABound) {
  const TreeReport bug = conformance::check_tree_verifier(
      [](const tevsuite::TreeCase&, tevsuite::Randomness&) {
        return tevsuite::Block{{}, 0};
      },
      small_options());
  ASSERT_EQ(bug.overall, judging::Verdict::not_exact);
  const auto failing = std::find_if(bug.cases.begin(), bug.cases.end(),
                                    [&](const auto& r) { return r.id == bug.first_failing; });
  ASSERT_NE(failing, bug.cases.end());
  ASSERT_EQ(failing->impossible, 0u);
  ASSERT_EQ(failing->evidence.chi_square.p_value, 0.0) << "the test needs a p that underflows";
  const std::string text = describe(bug);
  EXPECT_NE(text.find("chi-square p below the smallest double (underflow)"), std::string::npos)
      << text;
}

TEST(TreeCheck, TooFewSamplesIsInconclusiveNotExact) {
  tevsuite::TreeCheckOptions options = small_options();
  options.samples = 50;
  EXPECT_EQ(conformance::check_tree_verifier(root_bonus, options).overall,
            judging::Verdict::inconclusive);
}

TEST(TreeCheck, CountsDoNotDependOnTheThreads) {
  tevsuite::TreeCheckOptions one = small_options(), two = small_options();
  one.threads = 1;
  const TreeReport a = conformance::check_tree_verifier(root_bonus, one),
                   b = conformance::check_tree_verifier(root_bonus, two);
  for (std::size_t k = 0; k < a.cases.size(); ++k) {
    EXPECT_EQ(a.cases[k].evidence.completed_counts, b.cases[k].evidence.completed_counts);
    EXPECT_EQ(a.cases[k].evidence.chi_square.p_value, b.cases[k].evidence.chi_square.p_value);
  }
}

TEST(TreeCheck, ImpossibleBlocksAreCountedAndEnumerationCountsTheirMass) {
  const tevsuite::TreeCheckOptions options = small_options();
  // Token −5 is never a drafted child: every sample is an impossible event.
  const TreeReport sampled = conformance::check_tree_verifier(
      [](const tevsuite::TreeCase&, tevsuite::Randomness&) {
        return tevsuite::Block{{-5}, 0};
      },
      options);
  EXPECT_EQ(sampled.overall, judging::Verdict::not_exact);
  EXPECT_EQ(sampled.cases[0].impossible, options.samples);
  EXPECT_NE(sampled.cases[0].first_impossible.find("not a drafted child"), std::string::npos);
  EXPECT_NE(sampled.cases[0].first_impossible.find(", sample 0:"), std::string::npos)
      << sampled.cases[0].first_impossible;  // the first sample, on any thread
  const TreeReport enumerated = conformance::check_tree_verifier(
      tevsuite::drawing([](const tevsuite::TreeCase& c, tevsuite::Draws&) {
        return tevsuite::Block{{}, c.vocab};
      }),
      options);
  EXPECT_EQ(enumerated.overall, judging::Verdict::not_exact);
  // Every block lies outside the vocabulary: all the law's mass is on no cell, TV 1.
  EXPECT_TRUE(enumerated.cases[0].decision.enumerated_not_exact);
  EXPECT_TRUE(enumerated.cases[0].not_enumerated.empty()) << enumerated.cases[0].not_enumerated;
  EXPECT_NEAR(enumerated.cases[0].evidence.exact_tv, 1.0, 1e-12);
  EXPECT_NEAR(enumerated.cases[0].evidence.predicted_power, 1.0, 1e-12);
}

TEST(TreeCheck, VerifierExceptionsReachTheCaller) {
  EXPECT_THROW(conformance::check_tree_verifier(
                   [](const tevsuite::TreeCase&, tevsuite::Randomness&) -> tevsuite::Block {
                     throw std::runtime_error("engine failed");
                   },
                   small_options()),
               std::runtime_error);
}

// Model cases: the bonus from p after the empty prefix is exact marginally (the judge completes
// it with p); from q it is not.
TEST(ModelCheck, ExactAndNotExactModelVerifiers) {
  tevsuite::ModelCheckOptions options;
  options.threads = 2;
  const ModelReport exact = conformance::check_model_verifier(
      [](const tevsuite::ModelCase& c, tevsuite::Randomness& r) {
        return tevsuite::Block{{}, draw_from(c.p({}), r.uniform())};
      },
      options);
  EXPECT_EQ(exact.overall, judging::Verdict::exact_saturated) << describe(exact);
  const ModelReport bug = conformance::check_model_verifier(
      [](const tevsuite::ModelCase& c, tevsuite::Randomness& r) {
        return tevsuite::Block{{}, draw_from(c.q({}), r.uniform())};
      },
      options);
  EXPECT_EQ(bug.overall, judging::Verdict::not_exact);
  const std::string text = describe(bug);
  EXPECT_NE(text.find("first failing case: " + bug.first_failing), std::string::npos) << text;
  EXPECT_NE(text.find("largest cell deviations"), std::string::npos) << text;
  EXPECT_NE(text.find("    tokens "), std::string::npos)
      << text;  // a model case's cell: its H tokens
}

TEST(Randomness, BitsAndUniformsAreReproducible) {
  SampleRandomness a({1, Stream::verifier, 2, 3}), b({1, Stream::verifier, 2, 3});
  EXPECT_EQ(a.bits(), b.bits());
  EXPECT_EQ(a.uniform(), b.uniform());
  SampleRandomness c({1, Stream::verifier, 2, 4});
  EXPECT_NE(SampleRandomness({1, Stream::verifier, 2, 3}).bits(), c.bits());
}

}  // namespace
}  // namespace tev::conformance
