#pragma once
// Judges samples an outside verifier emitted for conformance cases: every sample is validated
// against its case, completed, counted; then χ², per-node acceptance and E[L] give a verdict per
// case and overall.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "conformance/case_io.hpp"
#include "core/choosers.hpp"
#include "core/exact_law.hpp"
#include "stats/iid_assumption.hpp"
#include "judging/verdicts.hpp"
#include "montecarlo/monte_carlo.hpp"

namespace tev::conformance {

// A judge's impossible events: how many, and the first one by sample index (so the one kept does
// not depend on how samples were split over threads).
class ImpossibleEvents {
 public:
  // Sample `index` at `where` (a file:line, a case) was impossible; `describe` says why, and is
  // called only when this event becomes the first one kept ("where, sample N: why").
  template <class Describe>
  void record(std::uint64_t index, const std::string& where, Describe&& describe) {
    if (count_++ == 0 || index < first_index_) {
      first_ = where + ", sample " + std::to_string(index) + ": " + describe();
      first_index_ = index;
    }
  }
  void merge(const ImpossibleEvents& other) {
    if (other.count_ > 0 && (count_ == 0 || other.first_index_ < first_index_)) {
      first_ = other.first_;
      first_index_ = other.first_index_;
    }
    count_ += other.count_;
  }
  std::uint64_t count() const { return count_; }
  const std::string& first() const { return first_; }

 private:
  std::uint64_t count_ = 0;
  std::string first_;
  std::uint64_t first_index_ = 0;
};

// The exit node a block's accepted tokens lead to on the case's tree, with its bonus, as a cell of
// the case's law; and, in `problem`, why the block is impossible there (a path off the tree or a
// bonus outside the vocabulary, both on no cell; a bonus of zero target probability, on its cell).
struct ResolvedBlock {
  std::optional<Block> cell;
  std::string problem;  // empty when the block is possible
};
ResolvedBlock resolve_block(const Case& c, std::span<const std::int64_t> path, std::int64_t bonus);

// Accumulates one case's samples.
class CaseJudge {
 public:
  // completion_seed and case_index fix the completion stream's counters for this case.
  CaseJudge(const Case& c, std::uint32_t completion_seed, std::uint32_t case_index);

  // One sample line {"case_id", "accepted", "bonus"}. Malformed JSON, a wrong case_id or a missing
  // field throws InputError; a path that leaves the tree, a bonus outside the vocabulary or of
  // zero target probability is an impossible event: counted, and the first one kept with `where`.
  void add_line(std::string_view line, const std::string& where);
  // The same for a block given as tokens (the in-process API, api/): `index` is the sample's index
  // within its case, which keys its completion draws; samples may come in any order. Returns the
  // completed block, none for an impossible one.
  std::optional<Block> add_sample(std::span<const std::int64_t> path, std::int64_t bonus,
                                  std::uint64_t index, const std::string& where);
  // Adds another judge's samples of the same case (a thread's share): counts add, and the first
  // impossible event kept is the one of the smaller sample index.
  void merge(const CaseJudge& other);

  const Case& spec() const { return *case_; }
  const montecarlo::BlockCounts& counts() const { return counts_; }
  // (samples) each sample's completed cell (exit · V + bonus) in sample order, for the tests of
  // independence; stats::kNoCell for an impossible sample.
  const std::vector<std::int64_t>& stream() const { return stream_; }
  std::uint64_t lines() const { return lines_; }
  std::uint64_t impossible() const { return impossible_.count(); }
  const std::string& first_impossible() const { return impossible_.first(); }

 private:
  const Case* case_;
  std::uint32_t seed_;
  std::uint32_t case_index_;
  montecarlo::BlockCounts counts_;
  std::vector<std::int64_t> stream_;
  PhiloxChooser completion_;
  std::uint64_t lines_ = 0;
  ImpossibleEvents impossible_;
};

struct CaseResult {
  std::string id;
  std::string label;
  std::uint64_t samples = 0;
  std::uint64_t impossible =
      0;  // samples outside the tree or the vocabulary, or of zero target probability
  std::string first_impossible;
  judging::TreeEvidence
      evidence;  // χ², E[L], acceptance, detectable TV (tests empty when every sample was impossible)
  judging::CaseVerdict decision;  // the verdict policy's answer for this case
  std::string not_enumerated;  // with an exact-law enumerator (api/): why this case has none, if so
};

struct ConformanceReport {
  std::vector<CaseResult> cases;
  judging::Verdict overall = judging::Verdict::exact_saturated;
  std::string first_failing;  // the first case with the overall verdict, when not saturated
  judging::VerdictPolicy policy;
  std::size_t exactness_tests = 0;
  std::size_t saturation_tests = 0;
  int exit_code() const { return judging::verdict_exit_code(overall); }
};

// The id of the first case whose verdict is the overall one ("" when the overall verdict is the best).
template <class Results>
std::string first_case_with(const Results& cases, judging::Verdict overall) {
  if (overall == judging::Verdict::exact_saturated) return "";
  for (const auto& r : cases) {
    if (r.decision.verdict == overall) return r.id;
  }
  return "";
}

// InputError unless a judge (CaseJudge, ModelCaseJudge) holds its case's full sample count.
template <class Judge>
void require_all_samples(const Judge& judge) {
  if (judge.lines() != judge.spec().samples) {
    throw InputError("case " + judge.spec().id + ": " + std::to_string(judge.lines()) +
                     " samples, the case asks for " + std::to_string(judge.spec().samples));
  }
}

// The verdict policy's answer on the cases' evidence (one per report case, in order), written into
// the report: overall verdict, exactness tests, each case's decision, the first failing case.
template <class Report>
judging::SubjectVerdict decide_into(Report& report,
                                    std::span<const judging::TreeEvidence> evidence) {
  const judging::SubjectVerdict decision = judging::decide(evidence, report.policy);
  report.overall = decision.verdict;
  report.exactness_tests = decision.exactness_tests;
  for (std::size_t k = 0; k < report.cases.size(); ++k)
    report.cases[k].decision = decision.cases[k];
  report.first_failing = first_case_with(report.cases, report.overall);
  return decision;
}

// The outside verifier is one subject of the verdict policy (judging/verdict_policy.hpp) at family
// level alpha: χ² per case in the exactness family, E[L] shortfall per case and acceptance per node
// in the saturation family; a case whose χ² cannot detect the policy's TV is "inconclusive". Every
// judge must hold its case's full sample count (InputError otherwise).
// `exact`, when given, holds per case the verifier's exact law (by enumeration, api/), or nothing
// where enumeration did not apply; the verdict policy then holds sampling and enumeration alike.
ConformanceReport judge(const std::vector<CaseJudge>& judges, const judging::VerdictPolicy& policy,
                        std::span<const std::optional<ExactOutcome>> exact = {});

// One case's evidence before the policy decides: its identity test held to the level of member
// `index` of an exactness family of `family` members (judge's cases, or a batch's requests and
// pairs). InputError when the judge lacks samples.
// What a fixed-tree case's sampling guarantees as member `index` of an exactness family of
// `family`: the largest worst-direction TV of its identity test and its tests of independence.
std::optional<double> stated_tv(const Case& c, const judging::VerdictPolicy& policy,
                                std::size_t family, std::size_t index);

CaseResult case_result(const CaseJudge& judge, const judging::VerdictPolicy& policy,
                       std::size_t family, std::size_t index,
                       const std::optional<ExactOutcome>& exact = std::nullopt);

}  // namespace tev::conformance
