#pragma once
// GoogleTest assertions for an engine's own tests (link tevsuite::gtest):
//   EXPECT_TREE_VERIFIER_EXACT(verifier, options)
//   EXPECT_TREE_VERIFIER_EXACT_AND_SATURATED(verifier, options)
//   EXPECT_MODEL_VERIFIER_EXACT(model_verifier, model_options)   (marginally, on model cases)
// (and ASSERT_ forms), where verifier is a TreeVerifier (seeded) or drawing(f) (drawn through
// tevsuite's choosers) and options a tev::api::CheckOptions. They run check_tree_verifier and
// pass only on the verdict asked for: "inconclusive" (too few samples for the policy's power) is a
// failure, never a pass. The failure message is api::describe's: the first failing case, its
// p-values and power, its largest cell deviations; for a drawing verifier also a shrunk
// counterexample, the smallest tree RapidCheck finds on which the verifier's exact law differs
// from the canonical law (or, for the saturated form, misses the ceiling 1 + C_p). The search calls
// the verifier on trees of its own (case id "shrunk", V ≤ 4, ≤ 6 nodes), not only on the emitted cases.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "api/verifier_check.hpp"
#include "core/exit_law.hpp"
#include "core/statistics.hpp"

namespace tev::api {

enum class Requirement { exact, exact_and_saturated };

namespace detail {

template <class V>
struct is_drawing : std::false_type {};
template <class F>
struct is_drawing<DrawingVerifier<F>> : std::true_type {};

inline bool meets(Requirement requirement, Verdict v) {
  return v == Verdict::exact_saturated ||
         (requirement == Requirement::exact && (v == Verdict::exact_not_saturated || v == Verdict::exact_saturation_inconclusive));
}

// A small case RapidCheck can grow and shrink: V tokens, node i > 0 hangs under parent_pick[i] mod i
// with token token_pick[i] mod V (a sibling's token again drops the node), rows of integer weights.
struct SmallCase {
  int vocab = 2;
  std::vector<int> parent_pick;
  std::vector<int> token_pick;
  std::vector<int> weights;  // (nodes, V) before the tree drops nodes; each row gets +1 on token 0 if all zero
};

struct BuiltSmallCase {
  conformance::Case c;
  std::string text;  // the tree and rows in words
};

inline BuiltSmallCase build(const SmallCase& s) {
  std::vector<NodeId> parents{-1};
  std::vector<Token> tokens{-1};
  std::vector<std::size_t> source{0};  // node → its index in the picks
  for (std::size_t i = 1; i < s.parent_pick.size(); ++i) {
    const auto parent = static_cast<NodeId>(static_cast<std::size_t>(s.parent_pick[i]) % parents.size());
    const auto token = static_cast<Token>(s.token_pick[i] % s.vocab);
    bool taken = false;
    for (std::size_t u = 1; u < parents.size(); ++u) taken = taken || (parents[u] == parent && tokens[u] == token);
    if (taken) continue;
    parents.push_back(parent);
    tokens.push_back(token);
    source.push_back(i);
  }
  const BuiltTree built = tree_from_parents(parents, tokens, s.vocab);
  std::vector<double> probs;
  std::ostringstream text;
  text << "V = " << s.vocab << ", " << built.tree.size() << " nodes:";
  for (NodeId v = 0; v < built.tree.size(); ++v) {
    const std::size_t i = source[static_cast<std::size_t>(built.order[static_cast<std::size_t>(v)])];
    std::vector<double> row(static_cast<std::size_t>(s.vocab));
    double total = 0.0;
    for (int a = 0; a < s.vocab; ++a) total += row[static_cast<std::size_t>(a)] = s.weights[i * static_cast<std::size_t>(s.vocab) + static_cast<std::size_t>(a)];
    if (total == 0.0) row[0] = total = 1.0;
    text << "\n  node " << v << " (parent " << built.tree.parent[static_cast<std::size_t>(v)] << ", token " << built.tree.token[static_cast<std::size_t>(v)]
         << "): p =";
    for (double& x : row) {
      x /= total;
      probs.push_back(x);
      text << " " << x;
    }
  }
  conformance::Case c;
  c.id = "shrunk";
  c.label = "RapidCheck's smallest counterexample";
  c.tree = built.tree;
  c.rows = TargetRows::from_probabilities(probs, built.tree.size(), s.vocab, conformance::kRowTolerance);
  c.order = built.order;
  return {std::move(c), text.str()};
}

// RapidCheck's search for the smallest case on which a drawing verifier's exact law fails the
// requirement; "" when its 100 cases find none.
template <class F>
std::string shrunk_counterexample(const DrawingVerifier<F>& verifier, Requirement requirement, double tolerance) {
  const auto gen = rc::gen::apply(
      [](int vocab, int nodes, std::vector<int> parents, std::vector<int> tokens, std::vector<int> weights) {
        return SmallCase{vocab, std::vector<int>(parents.begin(), parents.begin() + nodes), std::vector<int>(tokens.begin(), tokens.begin() + nodes),
                         weights};
      },
      rc::gen::inRange(2, 5), rc::gen::inRange(1, 7), rc::gen::container<std::vector<int>>(6, rc::gen::inRange(0, 64)),
      rc::gen::container<std::vector<int>>(6, rc::gen::inRange(0, 64)), rc::gen::container<std::vector<int>>(24, rc::gen::inRange(0, 4)));
  const auto property = [&](const SmallCase& s) {
    const BuiltSmallCase b = build(s);
    const conformance::Case& c = b.c;
    const TreeCaseView view = view_of(c);
    ExactOutcome exact;
    try {
      exact = enumerate_drawing(verifier, c, view);
    } catch (const std::exception& e) {
      RC_FAIL(b.text + "\n  the verifier failed: " + e.what());
    }
    const ExitLaw law = ExitLaw::compute(c.tree, c.rows);
    const double tv = total_variation(exact.completed, canonical_block_law(c.tree, c.rows, law));
    if (!(tv <= tolerance)) RC_FAIL(b.text + "\n  exact TV from the canonical law " + std::to_string(tv));
    // Saturated as the verdict policy has it: E[L] at the ceiling, no bonus on a drafted child's token.
    if (requirement == Requirement::exact_and_saturated &&
        !(std::abs(exact.mean_length - law.ceiling()) <= tolerance && exact.completion_probability <= tolerance)) {
      RC_FAIL(b.text + "\n  exact E[L] " + std::to_string(exact.mean_length) + " against the ceiling 1 + C_p = " + std::to_string(law.ceiling()) +
              ", P(bonus is a drafted child's token) " + std::to_string(exact.completion_probability));
    }
  };
  rc::detail::TestParams params;
  params.seed = 20261201;  // fixed: the same counterexample every run
  const rc::detail::TestResult result =
      rc::detail::checkProperty(rc::detail::toProperty([&] { property(*gen); }), rc::detail::TestMetadata{}, params);
  rc::detail::FailureResult failure;
  if (!result.match(failure)) return "";
  // RapidCheck opens with the failing macro's file, line and text: the case follows a blank line.
  const std::size_t body = failure.description.find("\n\n");
  return body == std::string::npos ? failure.description : failure.description.substr(body + 2);
}

}  // namespace detail

// The assertion behind the macros: the check's verdict meets the requirement.
template <class V>
::testing::AssertionResult tree_verifier_meets(Requirement requirement, const V& verifier, const CheckOptions& options) {
  TreeReport report;
  try {
    report = check_tree_verifier(verifier, options);
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "the check could not run: " << e.what();
  }
  if (detail::meets(requirement, report.overall)) return ::testing::AssertionSuccess() << describe(report);
  ::testing::AssertionResult failure = ::testing::AssertionFailure();
  failure << "the tree verifier is required to be " << (requirement == Requirement::exact ? "exact" : "exact and saturated") << "\n"
          << describe(report);
  if (report.overall == Verdict::inconclusive) failure << "(inconclusive: raise CheckOptions::cases.samples)\n";
  if constexpr (detail::is_drawing<V>::value) {
    const std::string shrunk = detail::shrunk_counterexample(verifier, requirement, report.policy.exact_tolerance);
    if (!shrunk.empty()) failure << "shrunk counterexample (RapidCheck, exact enumeration):\n" << shrunk << "\n";
  }
  return failure;
}

// The model-case check passes only on "exact (marginally)".
inline ::testing::AssertionResult model_verifier_meets(const ModelVerifier& verifier, const ModelCheckOptions& options) {
  ModelReport report;
  try {
    report = check_model_verifier(verifier, options);
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "the check could not run: " << e.what();
  }
  if (report.overall == Verdict::exact_saturated) return ::testing::AssertionSuccess() << describe(report);
  return ::testing::AssertionFailure() << "the model verifier is required to be exact (marginally)\n"
                                     << describe(report)
                                     << (report.overall == Verdict::inconclusive ? "(inconclusive: raise ModelCheckOptions::cases.samples)\n" : "");
}

}  // namespace tev::api

#define EXPECT_TREE_VERIFIER_EXACT(verifier, options) \
  EXPECT_TRUE(::tev::api::tree_verifier_meets(::tev::api::Requirement::exact, (verifier), (options)))
#define EXPECT_TREE_VERIFIER_EXACT_AND_SATURATED(verifier, options) \
  EXPECT_TRUE(::tev::api::tree_verifier_meets(::tev::api::Requirement::exact_and_saturated, (verifier), (options)))
#define ASSERT_TREE_VERIFIER_EXACT(verifier, options) \
  ASSERT_TRUE(::tev::api::tree_verifier_meets(::tev::api::Requirement::exact, (verifier), (options)))
#define ASSERT_TREE_VERIFIER_EXACT_AND_SATURATED(verifier, options) \
  ASSERT_TRUE(::tev::api::tree_verifier_meets(::tev::api::Requirement::exact_and_saturated, (verifier), (options)))
#define EXPECT_MODEL_VERIFIER_EXACT(verifier, options) EXPECT_TRUE(::tev::api::model_verifier_meets((verifier), (options)))
#define ASSERT_MODEL_VERIFIER_EXACT(verifier, options) ASSERT_TRUE(::tev::api::model_verifier_meets((verifier), (options)))
