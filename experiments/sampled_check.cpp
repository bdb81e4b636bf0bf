#include "experiments/sampled_check.hpp"
#include "judging/verdict_policy.hpp"

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <stdexcept>

namespace tev::experiments {

namespace {

// Eager enumeration beyond this many realized trees takes minutes per case (measured with
// bench/sampled_enumeration_limits, TEV on i.i.d. drafts, D = 2, k = 2: V = 4, 4^6 trees, 0.2-0.6 s;
// V = 6, 6^6 trees, 10 s; V = 8, 8^6 trees, 136 s).
constexpr double kMaxRealizedTrees = 5e4;

}  // namespace

SampledCheckResult run_sampled_check(const SampledCheckOptions& o, std::ostream& progress) {
  const auto start = std::chrono::steady_clock::now();
  SampledCheckResult result;
  for (const drafts::LanguagePairSpec& spec : drafts::default_language_pairs(o.vocab, o.depth + 1))
    result.pairs.emplace_back(spec);
  const std::vector<drafts::SampledCase> cases = drafts::default_sampled_cases(o.depth, o.width);
  for (const drafts::SampledCase& c : cases) {
    // Eager enumeration (target-only verifiers, conditional exactness) drafts every tree.
    if (const double trees = judging::max_realized_trees(o.vocab, c.drafting);
        trees > kMaxRealizedTrees) {
      std::ostringstream what;
      what << "--drafts sampled: " << c.drafting.label() << " over V = " << o.vocab
           << " drafts up to " << std::scientific << std::setprecision(2) << trees
           << " trees to enumerate (limit 5e4): use a smaller --vocab, --draft-depth or "
              "--draft-width";
      throw std::invalid_argument(what.str());
    }
  }
  result.test_alpha = judging::sampled_test_alpha(o.alpha, cases.size() * result.pairs.size());
  // Holm compares a case's p-value with levels up to the whole exactness family's α.
  stats::TestLevel level{result.test_alpha,
                         judging::VerdictPolicy{.alpha = o.alpha}.exactness_alpha(), o.seed, 0};
  for (const drafts::SampledCase& c : cases) {
    progress << "  " << c.label() << "\n";
    for (std::size_t i = 0; i < result.pairs.size(); ++i) {
      judging::SampledEvidence e;
      e.c = c;
      e.kind = drafts::sampled_verifier_info(c.verifier).kind;
      e.exact = judging::enumerate_marginal(result.pairs[i], c);
      e.conditional = judging::enumerate_conditional(result.pairs[i], c);
      e.counts = judging::sample_case(
          result.pairs[i], c, {o.seed, static_cast<std::uint32_t>(i), o.samples, o.threads});
      judging::judge_statistics(result.pairs[i], e, level);
      ++level.id;  // each case and pair its own null simulation
      result.evidence.push_back(std::move(e));
    }
  }
  result.verdicts = judging::decide_sampled(result.evidence, o.alpha);
  result.passed = std::all_of(result.verdicts.begin(), result.verdicts.end(),
                              [](const judging::SampledVerdict& v) { return v.as_expected; });
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace tev::experiments
