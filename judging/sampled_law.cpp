#include "judging/sampled_law.hpp"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_reduce.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "core/exit_law.hpp"
#include "judging/verdict_policy.hpp"

namespace tev::judging {

namespace {

struct Outcome {
  std::size_t cell;
  std::int32_t length;
};

// Completes the emitted tokens to H: the completed cell and the emitted length.
template <class Chooser>
Outcome complete(const drafts::LanguagePair& pair, std::vector<Token> tokens, Chooser& completion) {
  const auto length = static_cast<std::int32_t>(tokens.size());
  complete_to_horizon(pair, tokens, completion);
  return {drafts::sequence_cell(tokens, pair.vocab()), length};
}

// One run: draft (lazily), verify, complete.
template <class Drafts, class Chooser, class CompletionChooser>
Outcome verify_and_complete(const drafts::LanguagePair& pair, drafts::SampledVerifierId id,
                            Drafts& drafts, Chooser& verify, CompletionChooser& completion) {
  return complete(pair, drafts::run_sampled_verifier(id, drafts, verify, pair.vocab()), completion);
}

// The sampled-draft enumerations branch once per token: completion draws after the bonus, so a
// lumped bonus draw would not be terminal here, and their size is bounded by the caller's limits
// (check --drafts sampled refuses more than 5e4 realized trees), not by the chooser's budget.
EnumeratingChooser per_token_chooser() {
  return EnumeratingChooser(TokenDraws::per_token, std::numeric_limits<std::size_t>::max());
}

// Enumerated law of run(chooser) → Outcome, with E[L], Var L and TV from p's law.
template <class Run>
SampledExactLaw enumerate_law(const std::vector<double>& reference, Run&& run) {
  SampledExactLaw out;
  out.law.assign(reference.size(), 0.0);
  CompensatedSum length, square;
  enumerate_outcomes(
      run,
      [&](const Outcome& o, const Branch& branch) {
        const double probability = branch.probability;
        out.law[o.cell] += probability;
        const auto l = static_cast<std::size_t>(o.length);
        if (out.length_mass.size() <= l) out.length_mass.resize(l + 1, 0.0);
        out.length_mass[l] += probability;
        length.add(probability * o.length);
        square.add(probability * o.length * o.length);
        ++out.branches;
      },
      per_token_chooser());
  out.mean_length = length.value();
  out.length_variance = std::max(0.0, square.value() - out.mean_length * out.mean_length);
  out.tv = total_variation(out.law, reference);
  return out;
}

// Drafts every tree eagerly and calls visit(probability, 1 + C_p(T), law given T, T) per realized
// tree. A target-only verifier's fixed tree is built once per tree, not once per branch.
template <class Visit>
void for_each_realized_tree(const drafts::LanguagePair& pair, const drafts::SampledCase& c,
                            const std::vector<double>& reference, Visit&& visit) {
  const bool target_only =
      drafts::sampled_verifier_info(c.verifier).kind == drafts::SampledKind::target_only;
  enumerate_outcomes(
      [&](EnumeratingChooser& chooser) {
        drafts::SharedNodeChooser<EnumeratingChooser> choosers{chooser};
        drafts::LazyDrafts drafts(pair, c.drafting, choosers);
        return drafts.realized();
      },
      [&](const drafts::DraftedTree& tree, const Branch& branch) {
        const double probability = branch.probability;
        // A pair, not a structured binding: clang 14 (the fuzz build) cannot capture bindings in a lambda.
        const std::pair<DraftTree, TargetRows> fixed_rows = tree.fixed_tree(pair.vocab());
        const DraftTree& fixed = fixed_rows.first;
        const TargetRows& rows = fixed_rows.second;
        const SampledExactLaw given = enumerate_law(reference, [&](EnumeratingChooser& chooser) {
          if (!target_only) return verify_and_complete(pair, c.verifier, tree, chooser, chooser);
          return complete(
              pair,
              drafts::emitted_tokens(fixed, run_verifier(drafts::target_only_verifier(c.verifier),
                                                         fixed, rows, chooser)),
              chooser);
        });
        visit(probability, ExitLaw::compute(fixed, rows).ceiling(), given, fixed);
      },
      per_token_chooser());
}

// A tree's drafted paths in level order, tokens as digits joined: "0, 2, 01" (root omitted; "-" when empty).
std::string drafted_paths(const DraftTree& tree) {
  std::string out;
  for (NodeId v = 1; v < tree.size(); ++v) {
    if (!out.empty()) out += ", ";
    for (Token t : tree.path_tokens(v)) out += (tree.vocab <= 10 ? "" : ".") + std::to_string(t);
  }
  return out.empty() ? "-" : out;
}

}  // namespace

// Target-only verifiers read the whole tree, so their enumeration runs tree by tree; the q-based
// ones draft lazily inside one enumeration.
SampledExactLaw enumerate_marginal(const drafts::LanguagePair& pair, const drafts::SampledCase& c) {
  const std::vector<double> reference = pair.sequence_law();
  if (drafts::sampled_verifier_info(c.verifier).kind != drafts::SampledKind::target_only) {
    return enumerate_law(reference, [&](EnumeratingChooser& chooser) {
      drafts::SharedNodeChooser<EnumeratingChooser> choosers{chooser};
      drafts::LazyDrafts drafts(pair, c.drafting, choosers);
      return verify_and_complete(pair, c.verifier, drafts, chooser, chooser);
    });
  }
  SampledExactLaw out;
  out.law.assign(reference.size(), 0.0);
  CompensatedSum length, square;
  for_each_realized_tree(
      pair, c, reference,
      [&](double probability, double, const SampledExactLaw& given, const DraftTree&) {
        for (std::size_t i = 0; i < reference.size(); ++i) out.law[i] += probability * given.law[i];
        if (out.length_mass.size() < given.length_mass.size())
          out.length_mass.resize(given.length_mass.size(), 0.0);
        for (std::size_t l = 0; l < given.length_mass.size(); ++l)
          out.length_mass[l] += probability * given.length_mass[l];
        length.add(probability * given.mean_length);
        square.add(probability * (given.length_variance + given.mean_length * given.mean_length));
        out.branches += given.branches;
      });
  out.mean_length = length.value();
  out.length_variance = std::max(0.0, square.value() - out.mean_length * out.mean_length);
  out.tv = total_variation(out.law, reference);
  return out;
}

ConditionalExactness enumerate_conditional(const drafts::LanguagePair& pair,
                                           const drafts::SampledCase& c) {
  const std::vector<double> reference = pair.sequence_law();
  ConditionalExactness out;
  out.marginal.assign(reference.size(), 0.0);
  CompensatedSum mean_tv, ceiling, length, excess_mass;
  for_each_realized_tree(
      pair, c, reference,
      [&](double probability, double tree_ceiling, const SampledExactLaw& given,
          const DraftTree& tree) {
        for (std::size_t i = 0; i < reference.size(); ++i)
          out.marginal[i] += probability * given.law[i];
        out.max_tv = std::max(out.max_tv, given.tv);
        const double excess = given.mean_length - tree_ceiling;
        const RealizedTree realized{probability, tree_ceiling, given.mean_length};
        if (excess > out.max_excess_over_ceiling) {
          out.max_excess_over_ceiling = excess;
          out.worst = realized;
          out.worst_tree = drafted_paths(tree);
        }
        out.min_excess_over_ceiling = std::min(out.min_excess_over_ceiling, excess);
        if (excess > kSampledExactTolerance) excess_mass.add(probability);
        out.per_tree.push_back(realized);
        mean_tv.add(probability * given.tv);
        ceiling.add(probability * tree_ceiling);
        length.add(probability * given.mean_length);
        ++out.trees;
      });
  out.mean_tv = mean_tv.value();
  out.mean_ceiling = ceiling.value();
  out.mean_length = length.value();
  out.excess_mass = excess_mass.value();
  return out;
}

double max_realized_trees(std::int32_t vocab, const drafts::Drafting& drafting) {
  const double k = drafting.policy == drafts::DraftPolicy::chain ? 1.0 : drafting.width;
  double draws = 0.0;
  for (std::int32_t d = 0; d < drafting.depth; ++d) draws += std::pow(k, d + 1);
  return std::pow(static_cast<double>(vocab), draws);
}

void SampledCounts::merge(const SampledCounts& other) {
  if (cells.empty()) cells.assign(other.cells.size(), 0);
  for (std::size_t i = 0; i < other.cells.size(); ++i) cells[i] += other.cells[i];
  samples += other.samples;
  length_sum += other.length_sum;
}

SampledCounts sample_case(const drafts::LanguagePair& pair, const drafts::SampledCase& c,
                          const SampledPlan& plan) {
  if (plan.threads < 1) throw std::invalid_argument("threads must be at least 1");
  const std::size_t cells = pair.sequence_law().size();
  auto body = [&](const oneapi::tbb::blocked_range<std::uint64_t>& range, SampledCounts counts) {
    if (counts.cells.empty()) counts.cells.assign(cells, 0);
    PhiloxChooser verify(DrawSite{plan.seed, Stream::verifier, plan.instance, 0});
    PhiloxChooser completion(DrawSite{plan.seed, Stream::completion, plan.instance, 0});
    for (std::uint64_t s = range.begin(); s != range.end(); ++s) {
      PhiloxNodeChoosers choosers = node_choosers(pair, plan, s);
      drafts::LazyDrafts drafts(pair, c.drafting, choosers);
      verify.restart({plan.seed, Stream::verifier, plan.instance, s});
      completion.restart({plan.seed, Stream::completion, plan.instance, s});
      const Outcome o = verify_and_complete(pair, c.verifier, drafts, verify, completion);
      ++counts.cells[o.cell];
      ++counts.samples;
      counts.length_sum += static_cast<std::uint64_t>(o.length);
    }
    return counts;
  };
  auto merge = [](SampledCounts a, const SampledCounts& b) {
    a.merge(b);
    return a;
  };
  oneapi::tbb::task_arena arena(plan.threads);
  SampledCounts result = arena.execute([&] {
    return oneapi::tbb::parallel_reduce(
        oneapi::tbb::blocked_range<std::uint64_t>(0, plan.samples, 2048), SampledCounts{}, body,
        merge);
  });
  if (result.cells.empty()) result.cells.assign(cells, 0);
  return result;
}

PhiloxNodeChoosers node_choosers(const drafts::LanguagePair& pair, const SampledPlan& plan,
                                 std::uint64_t sample) {
  const std::uint64_t first = static_cast<std::uint64_t>(plan.instance) * pair.prefixes();
  if (first + pair.prefixes() > std::numeric_limits<std::uint32_t>::max())
    throw std::invalid_argument("sampled drafts: instance id too large for the drafting sites");
  return {PhiloxChooser{DrawSite{}}, DrawSite{plan.seed, Stream::drafting, 0, sample},
          static_cast<std::uint32_t>(first)};
}

drafts::DraftedTree sampled_tree(const drafts::LanguagePair& pair, const drafts::Drafting& drafting,
                                 const SampledPlan& plan, std::uint64_t sample) {
  PhiloxNodeChoosers choosers = node_choosers(pair, plan, sample);
  drafts::LazyDrafts drafts(pair, drafting, choosers);
  return drafts.realized();
}

double sampled_test_alpha(double alpha, std::size_t cases) {
  return VerdictPolicy{.alpha = alpha}.chi_square_level(cases);
}

void judge_statistics(const drafts::LanguagePair& pair, SampledEvidence& e,
                      const stats::TestLevel& level) {
  const double test_alpha = level.level;
  const std::vector<double> reference = pair.sequence_law();
  // Pool by the first H − 1 tokens, as the block law pools by exit node.
  const auto groups = stats::node_groups(
      static_cast<std::int32_t>(reference.size() / static_cast<std::size_t>(pair.vocab())),
      pair.vocab());
  e.chi_square = stats::identity_test(e.counts.cells, reference, groups, level);
  // The sampler against the enumeration: Σ L of the emitted blocks under L's exact law.
  std::vector<double> lengths(e.exact.length_mass.size());
  std::iota(lengths.begin(), lengths.end(), 0.0);
  const stats::DrawnLaw law{lengths, e.exact.length_mass, static_cast<double>(e.counts.samples)};
  e.length_p_value = stats::sum_two_sided_chernoff_p(
      e.counts.mean_length() * static_cast<double>(e.counts.samples), std::span(&law, 1));
  e.predicted_power = stats::identity_test_power(reference, e.exact.law, groups,
                                                 static_cast<double>(e.counts.samples), test_alpha);
  if (e.exact.tv > kSampledExactTolerance) {
    e.detectable_tv_toward = stats::detectable_tv_toward(
        reference, e.exact.law, groups, static_cast<double>(e.counts.samples), test_alpha);
  }
}

std::vector<SampledVerdict> decide_sampled(std::span<const SampledEvidence> evidence,
                                           double alpha) {
  // Marginal exactness is the verdict policy's exactness family: one χ² per (case, pair), Holm at
  // α/2, and enumeration must agree. The policy's other half tests the sampler against the
  // enumeration (E[L] of the emitted blocks, Chernoff bound), Holm at α/2.
  const VerdictPolicy policy{.alpha = alpha, .exact_tolerance = kSampledExactTolerance};
  std::vector<TreeEvidence> marginal;
  std::vector<double> consistency;
  for (const SampledEvidence& e : evidence) {
    TreeEvidence t;
    t.samples = e.counts.samples;
    t.chi_square = e.chi_square;
    t.enumerated = true;
    t.exact_tv = e.exact.tv;
    marginal.push_back(std::move(t));
    consistency.push_back(e.length_p_value);
  }
  const SubjectVerdict decision = decide(marginal, policy);
  const std::vector<double> consistency_adjusted = stats::holm_adjust(consistency);
  std::vector<SampledVerdict> verdicts;
  for (std::size_t i = 0; i < evidence.size(); ++i) {
    const SampledEvidence& e = evidence[i];
    const std::string label = e.c.label();
    auto v = std::find_if(verdicts.begin(), verdicts.end(),
                          [&](const SampledVerdict& x) { return x.case_label == label; });
    if (v == verdicts.end()) {
      SampledVerdict fresh;
      fresh.case_label = label;
      fresh.kind = e.kind;
      fresh.conditional_exact = fresh.marginal_exact = true;  // until a pair says otherwise
      verdicts.push_back(fresh);
      v = verdicts.end() - 1;
    }
    const bool enumerated_off = decision.cases[i].enumerated_not_exact;
    const bool sampled_off = decision.cases[i].sampled_not_exact;
    v->caught_by_enumeration |= enumerated_off;
    v->caught_by_sampling |= sampled_off;
    v->sampling_missed |= e.predicted_power >= 0.99 && !sampled_off;
    v->consistent &= consistency_adjusted[i] >= policy.saturation_alpha();
    v->marginal_exact &= !enumerated_off && !sampled_off;
    v->conditional_exact &= e.conditional.max_tv <= kSampledExactTolerance;
  }
  for (SampledVerdict& v : verdicts) {
    v.conditional_exact &= v.marginal_exact;
    v.verdict = !v.marginal_exact     ? "not exact"
                : v.conditional_exact ? "exact (conditionally and marginally)"
                                      : "exact (marginally)";
    switch (v.kind) {
      case drafts::SampledKind::target_only:
        v.as_expected = v.conditional_exact;
        break;
      case drafts::SampledKind::q_based:
        v.as_expected = v.marginal_exact && !v.conditional_exact;
        break;
      case drafts::SampledKind::inexact:
      case drafts::SampledKind::mutant:
        v.as_expected = v.caught_by_enumeration && !v.sampling_missed;
        break;
    }
    v.as_expected &= v.consistent;
  }
  return verdicts;
}

}  // namespace tev::judging
