#pragma once
// Judges samples an outside verifier emitted for conformance cases: every sample is validated
// against its case, completed, counted; then χ², per-node acceptance and E[L] give a verdict per
// case and overall.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "conformance/case_io.hpp"
#include "core/choosers.hpp"
#include "sim/equivalence.hpp"
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
};

struct CaseResult {
  std::string id;
  std::string label;
  std::uint64_t samples = 0;
  std::uint64_t impossible = 0;
  std::string first_impossible;
  TreeEvidence evidence;            // χ², E[L], acceptance (empty when every sample was impossible)
  double min_detectable_tv = 0.0;   // smallest contamination TV this many samples catch with 99 % power
  double exactness_p_holm = 1.0;    // smallest Holm-adjusted p of its exactness tests
  double saturation_p_holm = 1.0;   // smallest Holm-adjusted p of its saturation tests
  Verdict verdict = Verdict::exact_saturated;
};

struct ConformanceReport {
  std::vector<CaseResult> cases;
  Verdict overall = Verdict::exact_saturated;
  std::string first_failing;  // the first case with the overall verdict, when not saturated
  double alpha = 1e-3;
};

// Exactness family (Holm at alpha/2): χ² of the completed law per case and one-sided
// "acceptance above P(u)" per node. Saturation family (Holm at alpha/2): "E[L] below 1 + C_p" per
// case and two-sided acceptance = P(u) per node. Any impossible event makes a case not exact; any
// in-tree bonus (completion) makes it not saturated. Every judge must hold its case's full sample
// count (InputError otherwise).
ConformanceReport judge(const std::vector<CaseJudge>& judges, double alpha);

// The smallest TV of a contamination toward uniform noise over the possible blocks that a case's
// χ² test at alpha with `samples` samples detects with 99 % power (closed form, cheap for any V).
double min_detectable_tv(const DraftTree& tree, const TargetRows& rows, std::uint64_t samples, double alpha);

// The exit code of a verdict: 0 exact and saturated, 1 not exact, 3 exact but not saturated.
int exit_code(Verdict v);

}  // namespace tev::conformance
