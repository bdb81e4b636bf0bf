#pragma once
// The in-process conformance check behind the public library, written in the public API's
// vocabulary (include/tevsuite/check_types.hpp: its cases, blocks, randomness, draws, verifiers
// and options): the check of `tevsuite conformance run`, with the verifier under test called in
// process instead of spawned. The cases are the ones `conformance emit` writes, built as the
// typed values its lines read back as (emit.hpp's tree_case_values and the like: the same
// generators, no JSON in between), every sample is validated, completed and counted by the same
// judges, and the verdict comes from the one verdict policy (judging/verdict_policy.hpp): χ² per
// case (α/2, Holm), E[L] and per-node acceptance against the ceiling (α/2, Holm), "inconclusive"
// where a case cannot detect the policy's TV at its level. It returns the judges' own reports, which the public
// library copies into tevsuite::Report (api/check.cpp).
//
// The verifier is called from several threads at once (oneTBB; the options' threads), once per
// sample, with that sample's own randomness: it must not share mutable state between calls
// without locking. An exception it throws ends the check and reaches the caller.
#include <tevsuite/check_types.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "conformance/batch_judge.hpp"
#include "conformance/case_io.hpp"
#include "conformance/emit.hpp"
#include "conformance/judge.hpp"
#include "conformance/model_case.hpp"
#include "conformance/model_judge.hpp"
#include "core/exact_law.hpp"
#include "core/philox.hpp"
#include "core/sampling_params.hpp"

namespace tev::conformance {

// One sample's randomness (tevsuite::Randomness): Philox4x32-10 on the verifier stream, keyed by
// the check's seed, the case and the sample, so a run is reproducible for any thread count.
class SampleRandomness final : public tevsuite::Randomness {
 public:
  explicit SampleRandomness(const DrawSite& site) : draws_(site), sample_(site.sample) {}
  double uniform() override { return 1.0 - draws_.next(); }  // the draws are in (0, 1]
  std::uint64_t bits() override;
  std::uint64_t sample() const override { return sample_; }

 private:
  DrawCounter draws_;
  std::uint64_t sample_;
};

// The verdict per case and overall, as `conformance run` reports them: per case the χ² p-value,
// its Holm-adjusted p, the TV it detects with 99 % power at the level it is tested at, and, for a
// drawing verifier, the exact TV of its law from enumeration.
using TreeReport = ConformanceReport;

// The checks of include/tevsuite/check.hpp (which documents them), each returning its judges'
// report. An option outside its range (check_types.hpp's kMax…) is refused with
// std::invalid_argument naming it, before anything runs.
TreeReport check_tree_verifier(const tevsuite::TreeVerifier& verifier,
                               const tevsuite::TreeCheckOptions& options = {});
TreeReport check_tree_verifier(const tevsuite::DrawingVerifier& verifier,
                               const tevsuite::TreeCheckOptions& options = {});
ModelReport check_model_verifier(const tevsuite::ModelVerifier& verifier,
                                 const tevsuite::ModelCheckOptions& options = {});
// Batched verifiers: the blocks are judged as the per-sample check judges them, each completed
// with its own sample's randomness, in parallel: a run depends on the batch size (the verifier's
// seeds do), not on the threads.
TreeReport check_tree_verifier_batched(const tevsuite::TreeBatchVerifier& verifier,
                                       const tevsuite::TreeCheckOptions& options,
                                       std::uint64_t batch);
ModelReport check_model_verifier_batched(const tevsuite::ModelBatchVerifier& verifier,
                                         const tevsuite::ModelCheckOptions& options,
                                         std::uint64_t batch);
// Rounds run in order, one batch after another.
BatchReport check_batch_verifier(const tevsuite::RequestBatchVerifier& verifier,
                                 const tevsuite::BatchCheckOptions& options = {});

// The report in a few lines: the overall verdict; when not exact and saturated, the first failing
// case (or pair of requests) spelled out (label, tree, p-values, detectable TV, exact TV) and its
// largest standardized cell deviations, observed against expected.
std::string describe(const TreeReport& report);
std::string describe(const ModelReport& report);
std::string describe(const BatchReport& report);

// The `conformance emit` settings of a check's fixed-tree cases, and those cases; a case as the
// verifier sees it (its arrays, valid while the case lives).
EmitConfig emit_config(const tevsuite::TreeCheckOptions& options);
std::vector<Case> tree_cases(const tevsuite::TreeCheckOptions& options);
tevsuite::TreeCase view_of(const Case& c);

// A drawing verifier's exact law on one case, impossible blocks counted (throws what
// enumerate_verifier throws).
ExactOutcome enumerate_drawing(const tevsuite::DrawingVerifier& verifier, const Case& c);

// The public sampling parameters in tevsuite's own form (core/sampling_params.hpp), and back.
SamplingParams internal_params(const tevsuite::SamplingParams& p);
tevsuite::SamplingParams public_params(const SamplingParams& p);

}  // namespace tev::conformance
