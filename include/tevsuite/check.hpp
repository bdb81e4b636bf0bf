#pragma once
// tevsuite in an engine's own tests: the conformance check of `tevsuite conformance run` with the
// verifier under test called in process. The cases are the ones `tevsuite conformance emit` writes
// (the same generators), every block is validated, completed and counted by the same judges, and
// the verdict comes from tevsuite's one verdict policy: a χ² test per case against the canonical
// exit law, E[L] and per-node acceptance against the ceiling 1 + C_p, Holm over the family, and
// "inconclusive" wherever a case could not detect the policy's TV in every direction at the level
// it is tested at. Link tevsuite::check; this header (its types in <tevsuite/check_types.hpp>,
// which it includes) and <tevsuite/check.h> are all it exposes.
//
// The verifier is called from several threads at once (TreeCheckOptions::threads), once per
// sample, with that sample's own randomness: it must not share mutable state between calls
// without locking. An exception it throws ends the check and reaches the caller.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <tevsuite/check_types.hpp>
#include <tevsuite/defaults.h>
#include <tevsuite/version.h>

namespace tevsuite {

// The library's version, "major.minor.patch": the one that runs, against TEVSUITE_VERSION_STRING,
// the headers' (<tevsuite/version.h>). What stays compatible between versions: docs/library.md.
std::string_view version();

// The verdicts, numbered as tevsuite's exit codes.
enum class Verdict : int {
  exact_saturated = 0,  // on model cases: exact (marginally)
  not_exact = 1,
  error = 2,  // the check could not run (the C API and the Python package report errors so)
  exact_not_saturated = 3,
  inconclusive = 4,  // too few samples to call it exact: never a pass
  exact_saturation_inconclusive = 5,
};
std::string verdict_text(Verdict v);

// "min_p_first", "min_p_last", "top_p_full_and_top_k" (the protocol's names); parse_order throws
// std::invalid_argument on another name.
std::string_view order_name(FilterOrder order);
FilterOrder parse_order(std::string_view name);

// tevsuite's reference processing: out = the distribution an engine samples from (out may alias
// logits). Throws std::invalid_argument on parameters out of range or a row without a finite entry.
void process_logits(std::span<const double> logits, const SamplingParams& params,
                    std::span<double> out);

// Stops a running check from the thread that called it (Ctrl-C in the Python package): while an
// InterruptPoll lives on a thread, every check that thread runs calls `poll` on it between small
// pieces of work (a few hundred samples completed, 64 Monte Carlo replicates of a p-value), and
// whatever `poll` throws ends the check and reaches its caller. Polls nest; destroy them on the
// thread that made them, innermost first.
class InterruptPoll {
 public:
  explicit InterruptPoll(std::function<void()> poll);
  ~InterruptPoll();
  InterruptPoll(const InterruptPoll&) = delete;
  InterruptPoll& operator=(const InterruptPoll&) = delete;

 private:
  struct Installed;
  std::unique_ptr<Installed> installed_;
};

// One case's result. The p-values are valid at every level; p_holm is the exactness p adjusted
// over the family (Holm), the one the verdict compares with alpha / 2.
struct CaseResult {
  std::string id;
  std::string label;
  Verdict verdict = Verdict::error;
  std::uint64_t samples = 0;
  std::uint64_t impossible =
      0;                 // blocks off the tree or the vocabulary, or of zero target probability
  double p_value = 0.0;  // the case's χ² identity test against the canonical law
  double p_holm = 0.0;   // its Holm-adjusted exactness p
  std::optional<double> saturation_p_holm;  // fixed-tree cases: the Holm-adjusted saturation p
  // What the case's tests guarantee at their levels: every law at least this far, in any direction,
  // is rejected with 99 % power. A case: its blocks' law from the canonical one (a model case's
  // completed sequences' from p's), either half of its sample stream's (over its pair bins), or
  // the joint bins of two samples up to 4 apart from the product; a pair of requests: their joint
  // bins from the product.
  std::optional<double> detectable_tv;
  std::optional<double>
      exact_tv;  // a drawing verifier's exact TV from the canonical law (enumeration)
  std::optional<double> mean_length;  // E[L] observed (fixed-tree cases)
  std::optional<double> ceiling;      // 1 + C_p (fixed-tree cases)
  std::string not_enumerated;         // why a case has no exact_tv, where it has none
};

struct Report {
  Verdict verdict = Verdict::error;
  std::string verdict_text;  // "exact and saturated", or for model cases "exact (marginally)", …
  double alpha = 0.0;
  double exact_tolerance = 0.0;  // enumeration calls laws and E[L] equal within this (rounding)
  std::vector<CaseResult> cases;
  std::string description;  // the verdict in a few lines, the first failing case spelled out

  // The first case whose verdict is the overall one; null when exact and saturated.
  const CaseResult* first_failing() const;
};

// The overall verdict; when not exact and saturated, the first failing case spelled out (label,
// tree, p-values, detectable TV, exact TV) and its largest standardized cell deviations.
inline const std::string& describe(const Report& report) { return report.description; }

// Samples a seeded verifier on every case.
Report check_tree_verifier(const TreeVerifier& verifier, const TreeCheckOptions& options = {});
// Samples a drawing verifier and enumerates its exact law (per case where the enumeration fits its
// branch budget; CaseResult::not_enumerated says why where not). Sampling and enumeration must
// both say exact.
Report check_tree_verifier(const DrawingVerifier& verifier, const TreeCheckOptions& options = {});
// Samples a model-case verifier on every model case (marginal exactness; sampling only).
Report check_model_verifier(const ModelVerifier& verifier, const ModelCheckOptions& options = {});
// The same checks with a batched verifier, called once per `batch` samples of a case (0: all of
// a case's samples in one call), batches in order. A batch of the wrong size, a
// token outside [0, V) or a row whose −1 padding is followed by a token is refused
// (std::invalid_argument naming the case and sample), never judged.
Report check_tree_verifier_batched(const TreeBatchVerifier& verifier,
                                   const TreeCheckOptions& options = {}, std::uint64_t batch = 0);
Report check_model_verifier_batched(const ModelBatchVerifier& verifier,
                                    const ModelCheckOptions& options = {}, std::uint64_t batch = 0);
// Batches of requests, round by round: each request is judged as a case (its CaseResult id
// "batch/request"), and every two requests of a batch are tested for independence within a round
// (the joint law of their completed exit nodes against the product of their exit laws), one
// CaseResult per pair after the requests (id "batch/first x second", label saying what it found;
// p_value, p_holm and detectable_tv as a case's). Requests and pairs form one exactness family. A
// BlockBatch of other than one row per request, a token outside [0, V) or a row whose −1 padding
// is followed by a token is refused (std::invalid_argument naming the batch, round and request).
Report check_batch_verifier(const RequestBatchVerifier& verifier,
                            const BatchCheckOptions& options = {});

// A drawing verifier's exact law on one case of your own, by enumeration: its TV from the
// canonical law (a block off the tree, outside the vocabulary or of zero target probability is
// mass the canonical law does not have, and counts in it), E[L] against the ceiling, and the
// probability that its bonus is a drafted child's token (zero for a saturated verifier). Throws
// std::invalid_argument on a malformed case, std::length_error where the enumeration exceeds its
// branch budget, and what the verifier throws.
struct ExactLaw {
  double tv = 0.0;
  double mean_length = 0.0;
  double ceiling = 0.0;
  double completion_probability = 0.0;
};
ExactLaw exact_law(const DrawingVerifier& verifier, const OwnedTreeCase& c);

// The cases a check runs on, as `tevsuite conformance emit` writes them (one JSON line each), and
// one such line read back (std::invalid_argument naming what is wrong); an engine-shaped line
// (format_version 3) reads back as its processed rows.
std::vector<std::string> tree_case_lines(const TreeCheckOptions& options = {});
OwnedTreeCase read_tree_case(std::string_view json_line);

}  // namespace tevsuite
