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
#include "sim/verdicts.hpp"
#include "sim/monte_carlo.hpp"

namespace tev::conformance {

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
  // within its case, which keys its completion draws; samples may come in any order.
  void add_sample(std::span<const std::int64_t> path, std::int64_t bonus, std::uint64_t index, const std::string& where);
  // Adds another judge's samples of the same case (a thread's share): counts add, and the first
  // impossible event kept is the one of the smaller sample index.
  void merge(const CaseJudge& other);

  const Case& spec() const { return *case_; }
  const BlockCounts& counts() const { return counts_; }
  std::uint64_t lines() const { return lines_; }
  std::uint64_t impossible() const { return impossible_; }
  const std::string& first_impossible() const { return first_impossible_; }

 private:
  const Case* case_;
  std::uint32_t seed_;
  std::uint32_t case_index_;
  BlockCounts counts_;
  PhiloxChooser completion_;
  std::uint64_t lines_ = 0;
  std::uint64_t impossible_ = 0;
  std::string first_impossible_;
  std::uint64_t first_impossible_index_ = 0;
};

struct CaseResult {
  std::string id;
  std::string label;
  std::uint64_t samples = 0;
  std::uint64_t impossible = 0;     // samples outside the tree or the vocabulary, or of zero target probability
  std::string first_impossible;
  TreeEvidence evidence;            // χ², E[L], acceptance, detectable TV (tests empty when every sample was impossible)
  CaseVerdict decision;             // the verdict policy's answer for this case
  std::string not_enumerated;       // with an exact-law enumerator (api/): why this case has none, if so
};

struct ConformanceReport {
  std::vector<CaseResult> cases;
  Verdict overall = Verdict::exact_saturated;
  std::string first_failing;  // the first case with the overall verdict, when not saturated
  VerdictPolicy policy;
  std::size_t exactness_tests = 0;
  std::size_t saturation_tests = 0;
};

// The id of the first case whose verdict is the overall one ("" when the overall verdict is the best).
template <class Results>
std::string first_case_with(const Results& cases, Verdict overall) {
  if (overall == Verdict::exact_saturated) return "";
  for (const auto& r : cases) {
    if (r.decision.verdict == overall) return r.id;
  }
  return "";
}

// The outside verifier is one subject of the verdict policy (sim/verdict_policy.hpp) at family
// level alpha: χ² per case in the exactness family, E[L] shortfall per case and acceptance per node
// in the saturation family; a case whose χ² cannot detect the policy's TV is "inconclusive". Every
// judge must hold its case's full sample count (InputError otherwise).
// `exact`, when given, holds per case the verifier's exact law (by enumeration, api/), or nothing
// where enumeration did not apply; the verdict policy then holds sampling and enumeration alike.
ConformanceReport judge(const std::vector<CaseJudge>& judges, double alpha, std::span<const std::optional<ExactOutcome>> exact = {});

}  // namespace tev::conformance
