#pragma once
// Marginal exactness of verifiers on sampled drafts. Every emitted block is completed by drawing
// target tokens up to the horizon H; a verifier is exact marginally iff the completed H tokens have
// p's H-token law. Two instruments: exact enumeration over drafting × verification × completion
// (compared with p's law to 1e-12), and a oneTBB Monte Carlo judged by Pearson χ². Conditional
// exactness (given the realized tree) is enumerated beside it.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "stats/law_identity.hpp"
#include "stats/goodness_of_fit.hpp"
#include "drafts/sampled_verifiers.hpp"

namespace tev::judging {

// TV at or below this between an enumerated law and p's H-token law counts as equal (rounding).
inline constexpr double kSampledExactTolerance = 1e-12;

// Appends target draws until the sequence has H tokens (H must exceed every drafted path).
template <class Chooser>
void complete_to_horizon(const drafts::LanguagePair& pair, std::vector<Token>& tokens,
                         Chooser& chooser) {
  if (static_cast<std::int32_t>(tokens.size()) > pair.horizon())
    throw std::logic_error("emitted block longer than the horizon H");
  while (static_cast<std::int32_t>(tokens.size()) < pair.horizon()) {
    tokens.push_back(static_cast<Token>(chooser.categorical(pair.p(tokens))));
  }
}

struct SampledExactLaw {
  std::vector<double> law;          // (V^H) completed H-token law
  double mean_length = 0.0;         // E[L], L = emitted tokens before completion
  double length_variance = 0.0;     // Var L
  std::vector<double> length_mass;  // (longest L + 1) P(L = l) at index l
  double tv = 0.0;                  // TV(law, p's H-token law)
  std::uint64_t branches = 0;       // enumerated branches (the cost)
};

// The marginal law over drafting × verification × completion, drafting lazily (only the nodes
// the verifier enters are drawn; target-only verifiers enter the whole tree).
SampledExactLaw enumerate_marginal(const drafts::LanguagePair& pair, const drafts::SampledCase& c);

// An upper bound on the realized trees an eager enumeration drafts: V^(draws) with one set of
// k draws per internal node and at most k^d nodes at depth d < D. Target-only verifiers and
// enumerate_conditional cost about this many runs times the verification branches per tree.
double max_realized_trees(std::int32_t vocab, const drafts::Drafting& drafting);

// One realized tree as Theorem 1 sees it.
struct RealizedTree {
  double probability = 0.0;  // P(T) under the drafting policy
  double ceiling = 0.0;      // 1 + C_p(T)
  double mean_length = 0.0;  // E[L | T]
};

struct ConditionalExactness {
  std::uint64_t trees = 0;  // realized trees (branches of the drafting draws)
  double max_tv = 0.0;      // max over realized trees T of TV(law given T, p's H-token law)
  double mean_tv = 0.0;     // the same, weighted by P(T)
  double max_excess_over_ceiling =
      -1e300;  // max over T of E[L | T] − (1 + C_p(T)) (Theorem 1: ≤ 0 for exact target-only verifiers)
  double min_excess_over_ceiling = 1e300;  // min over T of the same (0 as well for saturated ones)
  double excess_mass = 0.0;   // P(T) of the trees whose excess is above kSampledExactTolerance
  std::string worst_tree;     // the tree of the largest excess: its drafted paths, e.g. "0, 01, 2"
  RealizedTree worst;         // and its numbers
  double mean_ceiling = 0.0;  // E_T[1 + C_p(T)]
  double mean_length = 0.0;   // E[L] = E_T[E[L | T]]
  std::vector<RealizedTree> per_tree;  // (trees) in enumeration order
  std::vector<double> marginal;  // (V^H) Σ_T P(T)·law given T: must equal enumerate_marginal's
};

// Drafts every tree eagerly, then enumerates the verifier on each realized tree.
ConditionalExactness enumerate_conditional(const drafts::LanguagePair& pair,
                                           const drafts::SampledCase& c);

struct SampledPlan {
  std::uint32_t seed = 1;
  std::uint32_t instance =
      0;  // language-pair id: keys the verifier and completion streams and the drafting sites
  std::uint64_t samples = 0;
  int threads = 1;
};

struct SampledCounts {
  std::vector<std::uint64_t> cells;  // (V^H) completed sequences per cell
  std::uint64_t samples = 0;
  std::uint64_t length_sum = 0;  // Σ L before completion
  void merge(const SampledCounts& other);
  double mean_length() const {
    return samples ? static_cast<double>(length_sum) / static_cast<double>(samples) : 0.0;
  }
  friend bool operator==(const SampledCounts&, const SampledCounts&) = default;
};

// Monte Carlo drafting draws: each node restarts the chooser at its own counter site
// (seed, Stream::drafting, tree word = instance · prefixes + prefix index, sample).
struct PhiloxNodeChoosers {
  PhiloxChooser chooser{DrawSite{}};
  DrawSite base;            // seed, Stream::drafting, sample
  std::uint32_t first = 0;  // instance · prefixes: the instance's block of tree words
  PhiloxChooser& at(std::size_t prefix_index) {
    DrawSite site = base;
    site.tree = first + static_cast<std::uint32_t>(prefix_index);
    chooser.restart(site);
    return chooser;
  }
};
PhiloxNodeChoosers node_choosers(const drafts::LanguagePair& pair, const SampledPlan& plan,
                                 std::uint64_t sample);

// Monte Carlo: sample s drafts on Stream::drafting with the counter's tree word keyed by
// (instance, node prefix), so a node's drafts depend only on (seed, instance, prefix, s) and every
// verifier on the same policy sees the same trees; verification on Stream::verifier and
// completion on Stream::completion, keyed by (instance, s). Identical for any thread count.
SampledCounts sample_case(const drafts::LanguagePair& pair, const drafts::SampledCase& c,
                          const SampledPlan& plan);

// The drafted tree of sample s as the Monte Carlo realizes it (for checking lazy = eager drafting).
drafts::DraftedTree sampled_tree(const drafts::LanguagePair& pair, const drafts::Drafting& drafting,
                                 const SampledPlan& plan, std::uint64_t sample);

// Everything measured for one case; the decision is decide_sampled's alone.
struct SampledEvidence {
  drafts::SampledCase c;
  drafts::SampledKind kind = drafts::SampledKind::q_based;
  SampledExactLaw exact;
  ConditionalExactness conditional;
  SampledCounts counts;
  stats::ChiSquareResult chi_square;  // counts vs p's H-token law, pooled by H−1 token prefix
  double length_p_value =
      1.0;  // measured Σ L vs L's enumerated law (two-sided Chernoff bound): sampler ≡ enumeration
  double predicted_power = 0.0;  // of the χ² test at the per-test α, from the exact laws
  std::optional<double>
      detectable_tv_toward;  // along this law's direction from p's: 99 % power at the per-test α (none when exact or undetectable)
};

// The verdict on one case (a verifier on a drafting policy) over every language pair it ran on.
struct SampledVerdict {
  std::string case_label;
  drafts::SampledKind kind = drafts::SampledKind::q_based;
  std::string verdict;  // "exact (conditionally and marginally)", "exact (marginally)", "not exact"
  bool conditional_exact = false;      // on every realized tree of every pair
  bool marginal_exact = false;         // on every pair, by enumeration and by sampling
  bool caught_by_enumeration = false;  // enumerated TV above kSampledExactTolerance on some pair
  bool caught_by_sampling = false;     // χ² rejects at the per-test α on some pair
  bool sampling_missed =
      false;                 // some pair predicted ≥ 99 % power and sampling did not reject there
  bool consistent = true;    // the E[L] consistency test rejects on no pair
  bool as_expected = false;  // the verdict its kind calls for, with every required catch
};

// The level one (case, pair)'s χ² is held to: the verdict policy's exactness family, α/2 over the cases.
double sampled_test_alpha(double alpha, std::size_t cases);

// Fills the χ², E[L] test and predicted power of one case's evidence at the per-test α.
void judge_statistics(const drafts::LanguagePair& pair, SampledEvidence& e,
                      const stats::TestLevel& level);

// The one decision: a verdict per case (grouped by case label, in first-appearance order) from the
// evidence of every (case, pair) at family-wise α, through the verdict policy (judging/verdict_policy.hpp):
// its exactness family decides marginal exactness, its other half the E[L] consistency tests. A mutant must be caught by enumeration on some pair and by sampling
// on every pair where the predicted power of the χ² test is ≥ 99 %.
std::vector<SampledVerdict> decide_sampled(std::span<const SampledEvidence> evidence, double alpha);

}  // namespace tev::judging
