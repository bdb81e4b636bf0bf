#pragma once
// The in-process conformance check behind the public library (include/tevsuite/check.hpp): the
// check of `tevsuite conformance run`, with the verifier under test called in process instead of
// spawned. The cases are the ones `conformance
// emit` writes (the same generators, the same lines read back), every sample is validated,
// completed and counted by the same judges, and the verdict comes from the one verdict policy
// (judging/verdict_policy.hpp): χ² per case (α/2, Holm), E[L] and per-node acceptance against the
// ceiling (α/2, Holm), "inconclusive" where a case cannot detect the policy's TV at its level.
//
// The verifier is called from several threads at once (oneTBB; CheckOptions::threads), once per
// sample, with that sample's own randomness: it must not share mutable state between calls
// without locking. An exception it throws ends the check and reaches the caller.
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "conformance/batch_judge.hpp"
#include "conformance/case_io.hpp"
#include "conformance/emit.hpp"
#include "conformance/judge.hpp"
#include "conformance/model_case.hpp"
#include "conformance/model_judge.hpp"
#include "core/choosers.hpp"
#include "core/exact_law.hpp"
#include "core/philox.hpp"

namespace tev::conformance {

// One fixed-tree case as the verifier sees it: plain arrays, level order (a parent before its
// children, siblings in any order), node 0 the root.
struct TreeCaseView {
  std::string_view id;
  std::string_view label;
  std::int32_t vocab = 0;
  std::span<const std::int32_t> parents;  // (N) parent of node i; −1 for the root
  std::span<const std::int32_t> tokens;   // (N) token of node i; −1 for the root
  std::span<const double>
      probs;  // (N, V) target p(· | path to node i); sparse case rows arrive dense
  // Engine-shaped cases (format 3): the rows as logits, and what the verifier must apply to them
  // (core/sampling_params.hpp); probs is then empty.
  std::span<const double> logits;  // (N, V)
  std::optional<SamplingParams> sampling;

  std::int32_t nodes() const { return static_cast<std::int32_t>(parents.size()); }
  std::span<const double> row(std::int32_t node) const {
    return probs.subspan(static_cast<std::size_t>(node) * static_cast<std::size_t>(vocab),
                         static_cast<std::size_t>(vocab));
  }
};

// One model case: a language pair over V tokens; the verifier drafts its own tree from q, at most
// D deep, verifies it with p and returns the block (marginal exactness, conformance/model_case.hpp).
struct ModelCaseView {
  std::string_view id;
  std::string_view label;
  std::int32_t vocab = 0;
  std::int32_t depth = 0;                    // D: at most D accepted tokens, then the bonus
  std::optional<drafts::Drafting> drafting;  // the case's hint; the verifier may draft otherwise
  const drafts::LanguagePair* pair = nullptr;
  // Engine-shaped cases (format 4): the rows as logits and the target's and the drafter's
  // parameters; p and q are then not given (the verifier processes the logits itself).
  const ModelLogits* logits = nullptr;
  std::optional<SamplingParams> target_sampling;
  std::optional<SamplingParams> drafter_sampling;

  // p(· | context ‖ prefix) and q(· | context ‖ prefix), prefix of length ≤ D (V entries each).
  // Throw std::logic_error on an engine-shaped case.
  std::span<const double> p(std::span<const std::int32_t> prefix) const;
  std::span<const double> q(std::span<const std::int32_t> prefix) const;
  // The logit rows of an engine-shaped case (throw std::logic_error on another).
  std::span<const double> p_logits(std::span<const std::int32_t> prefix) const;
  std::span<const double> q_logits(std::span<const std::int32_t> prefix) const;
};

// What a verifier returns: the accepted draft tokens from the root down, then the bonus token.
struct TokenBlock {
  std::vector<std::int32_t> accepted;
  std::int32_t bonus = -1;
};

// One sample's randomness: Philox4x32-10 on the verifier stream, keyed by the check's seed, the
// case and the sample, so a run is reproducible for any thread count. uniform() and bits() consume
// the same sequence; seed an engine's own generator from bits() to keep its RNG.
class Randomness {
 public:
  explicit Randomness(const DrawSite& site) : draws_(site), sample_(site.sample) {}
  double uniform() { return 1.0 - draws_.next(); }  // in [0, 1) (the draws are in (0, 1])
  std::uint64_t bits();                             // 64 random bits (two draws)
  std::uint64_t sample() const { return sample_; }

 private:
  DrawCounter draws_;
  std::uint64_t sample_;
};

using TreeVerifier = std::function<TokenBlock(const TreeCaseView&, Randomness&)>;
using ModelVerifier = std::function<TokenBlock(const ModelCaseView&, Randomness&)>;

// The draws of a verifier written against tevsuite's chooser interface (core/choosers.hpp), which
// lets the check enumerate its exact law as well as sample it. categorical(weights) returns i with
// probability weights[i] / Σ weights; next_token(node, weights) is the same draw for the token
// after `node`, with a promise: a token that is not one of node's drafted children is the bonus
// and the verifier returns at once (the promise lets a draw over a large vocabulary enumerate as a
// handful of branches; a verifier that breaks it is enumerated token by token, small V only).
template <class Chooser>
class Draws {
 public:
  Draws(Chooser& chooser, const DraftTree& tree) : chooser_(chooser), tree_(tree) {}
  std::size_t categorical(std::span<const double> weights) { return chooser_.categorical(weights); }
  std::int32_t next_token(std::int32_t node, std::span<const double> weights) {
    return chooser_.next_token(tree_, node, weights);
  }
  // The chooser itself, for code written against core/choosers.hpp (tevsuite's own verifiers).
  Chooser& chooser() { return chooser_; }

 private:
  Chooser& chooser_;
  const DraftTree& tree_;
};

// A verifier callable as f(const TreeCaseView&, Draws<C>&) → TokenBlock for every chooser C
// (a generic lambda taking `auto& draws`): wrap it with drawing(f).
template <class F>
struct DrawingVerifier {
  F verify;
};
template <class F>
DrawingVerifier<std::decay_t<F>> drawing(F&& f) {
  return {std::forward<F>(f)};
}

struct CheckOptions {
  EmitConfig cases{};  // which fixed-tree cases and samples per case: `conformance emit`'s defaults
  double alpha = TEV_DEFAULT_ALPHA;   // family-wise false-alarm level of the whole check
  std::uint32_t seed = kDefaultSeed;  // the verifier's and the completions' randomness
  int threads = 0;                    // 0: every hardware thread
};

struct ModelCheckOptions {
  ModelEmitConfig cases{};  // `conformance emit --model-cases`'s defaults
  double alpha = TEV_DEFAULT_ALPHA;
  std::uint32_t seed = kDefaultSeed;
  int threads = 0;
};

// The verdict per case and overall, as `conformance run` reports them: per case the χ² p-value,
// its Holm-adjusted p, the TV it detects with 99 % power at the level it is tested at, and, for a
// drawing verifier, the exact TV of its law from enumeration.
using TreeReport = ConformanceReport;
using ModelReport = ModelReport;

// Samples a seeded verifier on every case.
TreeReport check_tree_verifier(const TreeVerifier& verifier, const CheckOptions& options = {});
// Samples a drawing verifier and enumerates its exact law (per case where the enumeration fits its
// branch budget; CaseResult::not_enumerated says why where not). Sampling and enumeration must
// both say exact.
template <class F>
TreeReport check_tree_verifier(const DrawingVerifier<F>& verifier,
                               const CheckOptions& options = {});
// Samples a model-case verifier on every model case (marginal exactness; sampling only).
ModelReport check_model_verifier(const ModelVerifier& verifier,
                                 const ModelCheckOptions& options = {});

// Batched verifiers: called once per `batch` samples of a case (0: all of them) with the batch's
// first sample and size and the randomness of that first sample's site, they return one block per
// sample. The blocks are judged as the per-sample check judges them, each completed with its own
// sample's randomness, in parallel: a run depends on the batch size (the verifier's seeds do),
// not on the threads. Throws std::invalid_argument naming the case and samples on a batch of the
// wrong size.
using TreeBatchFn = std::function<std::vector<TokenBlock>(
    const TreeCaseView&, std::uint64_t first, std::uint64_t count, const DrawSite& first_site)>;
using ModelBatchFn = std::function<std::vector<TokenBlock>(
    const ModelCaseView&, std::uint64_t first, std::uint64_t count, const DrawSite& first_site)>;
TreeReport check_tree_verifier_batched(const TreeBatchFn& verifier, const CheckOptions& options,
                                       std::uint64_t batch);
ModelReport check_model_verifier_batched(const ModelBatchFn& verifier,
                                         const ModelCheckOptions& options, std::uint64_t batch);

// The report in a few lines: the overall verdict; when not exact and saturated, the first failing
// case spelled out (label, tree, p-values, detectable TV, exact TV) and its largest standardized
// cell deviations, observed against expected.
std::string describe(const TreeReport& report);
std::string describe(const ModelReport& report);

// Batch cases (conformance/batch_case.hpp) in process: the verifier is called once per round of a
// batch with the batch's id, every request's view in the batch's order, and the round's randomness
// site (keyed by the check's seed, the batch and the round); it returns one block per request,
// judged as `conformance run --batch` judges them (per request, and every pair's independence).
// Rounds run in order, one batch after another. Throws std::invalid_argument naming the batch and
// round on a wrong number of blocks.
struct BatchCheckOptions {
  EmitConfig batches{.cases = kDefaultBatches,
                     .batch = 4};  // `conformance emit --batch 4`'s defaults
  double alpha = TEV_DEFAULT_ALPHA;
  std::uint32_t seed = kDefaultSeed;
};
using BatchRoundFn = std::function<std::vector<TokenBlock>(
    std::string_view batch, std::span<const TreeCaseView> requests, const DrawSite& round)>;
BatchReport check_batch_verifier(const BatchRoundFn& verifier,
                                 const BatchCheckOptions& options = {});
// The overall verdict and the first failing request (spelled out as a case) or pair.
std::string describe(const BatchReport& report);

// The cases the checks run on (for an engine's own diagnostics), and a case as the verifier sees it.
std::vector<Case> tree_cases(const EmitConfig& config);
TreeCaseView view_of(const Case& c);
ModelCaseView view_of(const ModelCase& c);

// --- the machinery behind the template, not for direct use ---
namespace detail {
// Sample `site.sample` of one case on the verifier stream.
using SampleFn = std::function<TokenBlock(const Case&, const TreeCaseView&, const DrawSite&)>;
// The exact law of one case (throws what enumerate_verifier throws).
using EnumerateFn = std::function<ExactOutcome(const Case&, const TreeCaseView&)>;
TreeReport run_tree_check(const SampleFn& sample, const EnumerateFn& enumerate,
                          const CheckOptions& options);
// The block as the enumeration counts it: its (exit node, bonus) cell (a bonus of zero target
// probability included: the canonical law has 0 there), none when its path leaves the tree or its
// bonus is outside the vocabulary.
CountedBlock block_cell(const Case& c, const TokenBlock& block);

// A drawing verifier's exact law on one case, impossible blocks counted (throws what
// enumerate_verifier throws).
template <class F>
ExactOutcome enumerate_drawing(const DrawingVerifier<F>& verifier, const Case& c,
                               const TreeCaseView& view) {
  return enumerate_verifier(c.tree, c.rows, [&](EnumeratingChooser& chooser) {
    Draws<EnumeratingChooser> draws(chooser, c.tree);
    return block_cell(c, verifier.verify(view, draws));
  });
}
}  // namespace detail

template <class F>
TreeReport check_tree_verifier(const DrawingVerifier<F>& verifier, const CheckOptions& options) {
  const auto sampled = [&](const Case& c, const TreeCaseView& view, const DrawSite& site) {
    PhiloxChooser chooser(site);
    Draws<PhiloxChooser> draws(chooser, c.tree);
    return TokenBlock(verifier.verify(view, draws));
  };
  const auto enumerate = [&](const Case& c, const TreeCaseView& view) {
    return detail::enumerate_drawing(verifier, c, view);
  };
  return detail::run_tree_check(sampled, enumerate, options);
}

}  // namespace tev::conformance
