#pragma once
// Judges the blocks an outside verifier emitted for model cases: each is validated, completed with
// p to the horizon H = D + 1 and counted in V^H cells; the identity test against p's H-token law
// (pooled by the first H − 1 tokens, as `check --drafts sampled` pools) and the tests of
// independence of the case's stream of completed sequences, in sample order (each half, and pairs
// at every lag up to stats::kSerialLags, stats/iid_assumption.hpp), decide marginal exactness
// through the verdict policy. Saturation does not apply (the ceiling 1 + C_p belongs to a fixed
// tree); E[L] is reported, descriptive.
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "conformance/judge.hpp"
#include "conformance/model_case.hpp"
#include "core/choosers.hpp"
#include "judging/verdict_policy.hpp"

namespace tev::conformance {

// Beyond this many H-token cells the reference E[L] is not enumerated (V = 16, D = 2 takes ~6 s).
inline constexpr std::size_t kMaxReferenceCells = 1024;

class ModelCaseJudge {
 public:
  // completion_seed and case_index fix the completion stream's counters for this case.
  ModelCaseJudge(const ModelCase& c, std::uint32_t completion_seed, std::uint32_t case_index);

  // One sample line {"case_id", "accepted", "bonus"} with an optional diagnostic "tree"
  // {"parents", "tokens"} (the token tree drafted, siblings distinct). InputError, naming `where`,
  // for malformed JSON, a wrong case_id, a token outside the vocabulary, a block of more than D + 1
  // tokens, and a tree deeper than D, off the accepted path or holding a token q cannot draft. A
  // completed block p cannot produce is an impossible event: counted, the first kept with `where`.
  void add_line(std::string_view line, const std::string& where);
  // The same for a block given as tokens (the in-process API, api/), without a diagnostic tree:
  // `index` is the sample's index within its case, which keys its completion draws.
  void add_sample(std::span<const Token> accepted, Token bonus, std::uint64_t index,
                  const std::string& where);
  // Adds another judge's samples of the same case (a thread's share); the first impossible event
  // kept is the one of the smaller sample index.
  void merge(const ModelCaseJudge& other);

  const ModelCase& spec() const { return *case_; }
  const std::vector<std::uint64_t>& counts() const {
    return counts_;
  }  // (V^H) completed blocks per cell
  const std::vector<double>& reference() const { return reference_; }  // (V^H) p's H-token law
  // (samples) each sample's completed sequence cell in sample order, for the tests of
  // independence; stats::kNoCell for a sample not yet given.
  const std::vector<std::int64_t>& stream() const { return stream_; }
  std::uint64_t lines() const { return lines_; }
  std::uint64_t length_sum() const { return length_sum_; }  // Σ emitted tokens, before completion
  std::uint64_t impossible() const { return impossible_.count(); }
  const std::string& first_impossible() const { return impossible_.first(); }
  std::uint64_t trees() const { return trees_; }            // samples that reported their tree
  std::uint64_t tree_nodes() const { return tree_nodes_; }  // Σ drafted nodes over those trees

 private:
  std::string too_deep(
      std::size_t accepted) const;  // the message for a block of more than D + 1 tokens

  const ModelCase* case_;
  std::uint32_t seed_;
  std::uint32_t case_index_;
  std::vector<double> reference_;  // (V^H) p's H-token law
  std::vector<std::uint64_t> counts_;
  std::vector<std::int64_t> stream_;
  PhiloxChooser completion_;
  std::uint64_t lines_ = 0;
  std::uint64_t length_sum_ = 0;
  ImpossibleEvents impossible_;
  std::uint64_t trees_ = 0;
  std::uint64_t tree_nodes_ = 0;
};

struct ModelCaseResult {
  std::string id;
  std::string label;
  std::string drafting;    // the hint's label, or "" without one
  std::int32_t vocab = 0;  // V and the horizon H = D + 1: a χ² cell is H tokens as a base-V number
  std::int32_t horizon = 0;
  std::uint64_t impossible = 0;
  std::string first_impossible;
  std::uint64_t trees = 0;
  double mean_tree_nodes = 0.0;  // drafted nodes per reported tree (descriptive)
  judging::TreeEvidence
      evidence;  // samples, χ², mean_length (descriptive), detectable_tv, iid_tests
  // Exact E[L] of the suite's own verifier for the hint (exact_verifier_for), by enumeration, where
  // the case has a hint and V^H ≤ kMaxReferenceCells: what a standard implementation emits, to set
  // beside mean_length (descriptive: the outside verifier may verify otherwise and stay exact).
  std::optional<double> reference_mean_length;
  judging::CaseVerdict decision;
};

struct ModelReport {
  std::vector<ModelCaseResult> cases;
  judging::Verdict overall =
      judging::Verdict::exact_saturated;  // exact_saturated reads "exact (marginally)" here
  std::string first_failing;
  judging::VerdictPolicy policy;
  std::size_t exactness_tests = 0;
  // 0 exact (marginally), 1 not exact, 4 inconclusive.
  int exit_code() const { return judging::verdict_exit_code(overall); }
};

// "exact (marginally)", "not exact" or "inconclusive".
std::string model_verdict_text(judging::Verdict v);

// What a model case's sampling guarantees as case `index` of `cases`: the largest worst-direction
// TV of its identity test and its tests of independence (none when one of them has none).
std::optional<double> model_stated_tv(const ModelCase& c, const judging::VerdictPolicy& policy,
                                      std::size_t cases, std::size_t index);

// The outside verifier is one subject of the verdict policy at family level alpha: one p-value per
// case in the exactness family (α/2, Holm), its identity test's and its tests of independence's
// (weighted Bonferroni); a case whose tests cannot all detect the policy's TV at their levels is
// "inconclusive". Every judge must hold its case's full sample count.
ModelReport judge_models(const std::vector<ModelCaseJudge>& judges,
                         const judging::VerdictPolicy& policy);

}  // namespace tev::conformance
