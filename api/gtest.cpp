// The GoogleTest assertions (include/tevsuite/gtest.hpp), over the public check alone, and the
// RapidCheck search for a drawing verifier's smallest counterexample.
#include <tevsuite/gtest.hpp>

#include <rapidcheck.h>

#include <cmath>
#include <sstream>
#include <vector>

namespace tevsuite::testing {
namespace {

bool meets(Requirement requirement, Verdict v) {
  return v == Verdict::exact_saturated ||
         (requirement == Requirement::exact &&
          (v == Verdict::exact_not_saturated || v == Verdict::exact_saturation_inconclusive));
}

// A small case RapidCheck can grow and shrink: V tokens, node i > 0 hangs under parent_pick[i] mod
// (nodes kept so far) with token token_pick[i] mod V (a sibling's token again drops the node), rows
// of integer weights.
struct ShrinkableCase {
  int vocab = 2;
  std::vector<int> parent_pick;
  std::vector<int> token_pick;
  std::vector<int> weights;  // (picks, V); a row of zeros gets weight 1 on token 0
};

struct BuiltShrinkableCase {
  OwnedTreeCase c;
  std::string text;  // the tree and rows in words
};

BuiltShrinkableCase build(const ShrinkableCase& s) {
  BuiltShrinkableCase b;
  b.c.id = "shrunk";
  b.c.label = "RapidCheck's smallest counterexample";
  b.c.vocab = s.vocab;
  b.c.parents = {-1};
  b.c.tokens = {-1};
  std::vector<std::size_t> source{0};  // kept node → its index in the picks
  for (std::size_t i = 1; i < s.parent_pick.size(); ++i) {
    const auto parent =
        static_cast<std::int32_t>(static_cast<std::size_t>(s.parent_pick[i]) % b.c.parents.size());
    const auto token = static_cast<std::int32_t>(s.token_pick[i] % s.vocab);
    bool taken = false;
    for (std::size_t u = 1; u < b.c.parents.size(); ++u)
      taken = taken || (b.c.parents[u] == parent && b.c.tokens[u] == token);
    if (taken) continue;
    b.c.parents.push_back(parent);
    b.c.tokens.push_back(token);
    source.push_back(i);
  }
  std::ostringstream text;
  text << "V = " << s.vocab << ", " << b.c.parents.size() << " nodes:";
  for (std::size_t v = 0; v < b.c.parents.size(); ++v) {
    std::vector<double> row(static_cast<std::size_t>(s.vocab));
    double total = 0.0;
    for (int a = 0; a < s.vocab; ++a)
      total += row[static_cast<std::size_t>(a)] =
          s.weights[source[v] * static_cast<std::size_t>(s.vocab) + static_cast<std::size_t>(a)];
    if (total == 0.0) row[0] = total = 1.0;
    text << "\n  node " << v << " (parent " << b.c.parents[v] << ", token " << b.c.tokens[v]
         << "): p =";
    for (double& x : row) {
      x /= total;
      b.c.probs.push_back(x);
      text << " " << x;
    }
  }
  b.text = text.str();
  return b;
}

}  // namespace

std::string shrunk_counterexample(const DrawingVerifier& verifier, Requirement requirement,
                                  double tolerance) {
  const auto gen = rc::gen::apply(
      [](int vocab, int nodes, std::vector<int> parents, std::vector<int> tokens,
         std::vector<int> weights) {
        return ShrinkableCase{vocab, std::vector<int>(parents.begin(), parents.begin() + nodes),
                              std::vector<int>(tokens.begin(), tokens.begin() + nodes), weights};
      },
      rc::gen::inRange(2, 5), rc::gen::inRange(1, 7),
      rc::gen::container<std::vector<int>>(6, rc::gen::inRange(0, 64)),
      rc::gen::container<std::vector<int>>(6, rc::gen::inRange(0, 64)),
      rc::gen::container<std::vector<int>>(24, rc::gen::inRange(0, 4)));
  const auto property = [&](const ShrinkableCase& s) {
    const BuiltShrinkableCase b = build(s);
    ExactLaw law;
    try {
      law = exact_law(verifier, b.c);
    } catch (const std::exception& e) {
      RC_FAIL(b.text + "\n  the verifier failed: " + e.what());
    }
    if (!(law.tv <= tolerance))
      RC_FAIL(b.text + "\n  exact TV from the canonical law " + std::to_string(law.tv));
    // Saturated as the verdict policy has it: E[L] at the ceiling, no bonus on a drafted child's token.
    if (requirement == Requirement::exact_and_saturated &&
        !(std::abs(law.mean_length - law.ceiling) <= tolerance &&
          law.completion_probability <= tolerance)) {
      RC_FAIL(b.text + "\n  exact E[L] " + std::to_string(law.mean_length) +
              " against the ceiling 1 + C_p = " + std::to_string(law.ceiling) +
              ", P(bonus is a drafted child's token) " +
              std::to_string(law.completion_probability));
    }
  };
  rc::detail::TestParams params;
  params.seed = kDefaultSeed;  // fixed: the same counterexample every run
  const rc::detail::TestResult result = rc::detail::checkProperty(
      rc::detail::toProperty([&] { property(*gen); }), rc::detail::TestMetadata{}, params);
  rc::detail::FailureResult failure;
  if (!result.match(failure)) return "";
  // RapidCheck opens with the failing macro's file, line and text: the case follows a blank line.
  const std::size_t body = failure.description.find("\n\n");
  return body == std::string::npos ? failure.description : failure.description.substr(body + 2);
}

namespace {

template <class Verifier>
::testing::AssertionResult tree_check_meets(Requirement requirement, const Verifier& verifier,
                                            const TreeCheckOptions& options,
                                            const DrawingVerifier* drawing_verifier) {
  Report report;
  try {
    report = check_tree_verifier(verifier, options);
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "the check could not run: " << e.what();
  }
  if (meets(requirement, report.verdict)) return ::testing::AssertionSuccess() << describe(report);
  ::testing::AssertionResult failure = ::testing::AssertionFailure();
  failure << "the tree verifier is required to be "
          << (requirement == Requirement::exact ? "exact" : "exact and saturated") << "\n"
          << describe(report);
  if (report.verdict == Verdict::inconclusive)
    failure << "(inconclusive: raise TreeCheckOptions::samples)\n";
  if (drawing_verifier != nullptr) {
    const std::string shrunk =
        shrunk_counterexample(*drawing_verifier, requirement, report.exact_tolerance);
    if (!shrunk.empty())
      failure << "shrunk counterexample (RapidCheck, exact enumeration):\n" << shrunk << "\n";
  }
  return failure;
}

}  // namespace

::testing::AssertionResult tree_verifier_meets(Requirement requirement,
                                               const TreeVerifier& verifier,
                                               const TreeCheckOptions& options) {
  return tree_check_meets(requirement, verifier, options, nullptr);
}

::testing::AssertionResult tree_verifier_meets(Requirement requirement,
                                               const DrawingVerifier& verifier,
                                               const TreeCheckOptions& options) {
  return tree_check_meets(requirement, verifier, options, &verifier);
}

::testing::AssertionResult batch_verifier_meets(Requirement requirement,
                                                const RequestBatchVerifier& verifier,
                                                const BatchCheckOptions& options) {
  Report report;
  try {
    report = check_batch_verifier(verifier, options);
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "the check could not run: " << e.what();
  }
  if (meets(requirement, report.verdict)) return ::testing::AssertionSuccess() << describe(report);
  return ::testing::AssertionFailure()
         << "the batch verifier is required to be "
         << (requirement == Requirement::exact ? "exact" : "exact and saturated")
         << ", its requests independent\n"
         << describe(report)
         << (report.verdict == Verdict::inconclusive
                 ? "(inconclusive: raise BatchCheckOptions::rounds)\n"
                 : "");
}

::testing::AssertionResult model_verifier_meets(const ModelVerifier& verifier,
                                                const ModelCheckOptions& options) {
  Report report;
  try {
    report = check_model_verifier(verifier, options);
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "the check could not run: " << e.what();
  }
  if (report.verdict == Verdict::exact_saturated)
    return ::testing::AssertionSuccess() << describe(report);
  return ::testing::AssertionFailure()
         << "the model verifier is required to be exact (marginally)\n"
         << describe(report)
         << (report.verdict == Verdict::inconclusive
                 ? "(inconclusive: raise ModelCheckOptions::samples)\n"
                 : "");
}

}  // namespace tevsuite::testing
