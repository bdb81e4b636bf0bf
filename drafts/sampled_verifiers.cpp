#include "drafts/sampled_verifiers.hpp"

#include <algorithm>
#include <array>

namespace tev::drafts {

namespace {
using Id = SampledVerifierId;
using Kind = SampledKind;
constexpr std::array<SampledVerifierInfo, 17> kCatalog = {{
    {Id::tree_exit, "tev", Kind::target_only, "Tree Exit Verification on the realized tree"},
    {Id::predraw, "predraw", Kind::target_only, "predraw-and-follow on the realized tree"},
    {Id::sequential_residual, "sequential-residual", Kind::target_only,
     "sequential residual on the realized tree"},
    {Id::pathwise_walk, "walk", Kind::target_only, "pathwise walk on the realized tree"},
    {Id::speculative_sampling, "speculative-sampling", Kind::q_based,
     "each node's first draft, min(1, p/q), residual (p - q)+"},
    {Id::rejection_with_replacement, "rrs-with-replacement", Kind::q_based,
     "SpecInfer multi-draft recursive rejection sampling"},
    {Id::rejection_without_replacement, "rrs-without-replacement", Kind::q_based,
     "recursive rejection sampling, q renormalized after each rejection"},
    {Id::typical_acceptance, "typical-acceptance", Kind::inexact,
     "Medusa typical acceptance (eps 0.09, delta 0.3), bonus from p"},
    {Id::mutant_residual_not_renormalized, "mutant-residual-not-renormalized", Kind::mutant,
     "a multi-draft port subtracts q but tests the next draft against the unnormalized residual"},
    {Id::mutant_parent_draft_row, "mutant-parent-draft-row", Kind::mutant,
     "the draft-probability tensor is read one position early: drafts tested against the parent's "
     "q"},
    {Id::mutant_cumulative_ratio_without_min, "mutant-cumulative-ratio-without-min", Kind::mutant,
     "vectorized chain acceptance: one uniform against the running product of p/q, ratios not "
     "clipped at 1"},
    {Id::mutant_bonus_from_target_row, "mutant-bonus-from-target-row", Kind::mutant,
     "after every draft of a node is rejected the bonus is drawn from p instead of the residual"},
    {Id::mutant_shared_sibling_uniform, "mutant-shared-sibling-uniform", Kind::mutant,
     "a batched kernel draws one uniform per node and reuses it for every sibling test"},
    {Id::mutant_draft_uniform_reused, "mutant-draft-uniform-reused", Kind::mutant,
     "drafting and verification read the same random numbers (one Philox counter for both)"},
    {Id::mutant_stale_proposal_in_residual, "mutant-stale-q-in-residual", Kind::mutant,
     "without replacement: q is renormalized for the ratio but the residual still subtracts the "
     "original q"},
    {Id::mutant_with_replacement_rules_on_distinct_drafts,
     "mutant-with-replacement-residual-on-distinct-drafts", Kind::mutant,
     "drafts drawn without replacement verified with the with-replacement residual (q never "
     "updated)"},
    {Id::mutant_without_replacement_rules_on_repeats,
     "mutant-without-replacement-residual-on-repeats", Kind::mutant,
     "drafts drawn with replacement verified with the without-replacement residual (a repeat reads "
     "0/0)"},
}};
}  // namespace

std::span<const SampledVerifierInfo> sampled_verifier_catalog() { return kCatalog; }

const SampledVerifierInfo& sampled_verifier_info(SampledVerifierId id) {
  const auto it = std::find_if(kCatalog.begin(), kCatalog.end(),
                               [&](const SampledVerifierInfo& i) { return i.id == id; });
  if (it == kCatalog.end()) throw std::logic_error("unknown sampled verifier id");
  return *it;
}

std::string_view sampled_kind_name(SampledKind kind) {
  switch (kind) {
    case SampledKind::target_only:
      return "target-only";
    case SampledKind::q_based:
      return "q-based";
    case SampledKind::inexact:
      return "inexact-by-design";
    case SampledKind::mutant:
      return "mutant";
  }
  return "unknown";
}

VerifierId target_only_verifier(SampledVerifierId id) {
  switch (id) {
    case Id::tree_exit:
      return VerifierId::tree_exit;
    case Id::predraw:
      return VerifierId::predraw;
    case Id::sequential_residual:
      return VerifierId::sequential_residual;
    case Id::pathwise_walk:
      return VerifierId::pathwise_walk;
    default:
      throw std::logic_error("not a target-only sampled verifier");
  }
}

std::string SampledCase::label() const {
  return std::string(sampled_verifier_info(verifier).name) + " @ " + drafting.label();
}

SampledVerifierId exact_verifier_for(DraftPolicy policy) {
  switch (policy) {
    case DraftPolicy::chain:
      return Id::speculative_sampling;
    case DraftPolicy::independent_chains:
    case DraftPolicy::iid_children:
      return Id::rejection_with_replacement;
    case DraftPolicy::without_replacement:
      return Id::rejection_without_replacement;
    case DraftPolicy::top_k:
      return Id::sequential_residual;
  }
  throw std::logic_error("unknown drafting policy");
}

std::vector<SampledCase> default_sampled_cases(std::int32_t depth, std::int32_t width) {
  const Drafting chain{DraftPolicy::chain, 1, depth};
  const Drafting chains{DraftPolicy::independent_chains, width, depth};
  const Drafting iid{DraftPolicy::iid_children, width, depth};
  const Drafting distinct{DraftPolicy::without_replacement, width, depth};
  const Drafting top{DraftPolicy::top_k, width, depth};
  std::vector<SampledCase> cases;
  for (const Drafting& d : {chain, chains, iid, distinct, top}) cases.push_back({Id::tree_exit, d});
  for (Id id : {Id::predraw, Id::sequential_residual, Id::pathwise_walk}) {
    cases.push_back({id, iid});
    cases.push_back({id, distinct});
  }
  cases.push_back({Id::speculative_sampling, chain});
  cases.push_back({Id::speculative_sampling, iid});
  for (const Drafting& d : {chain, chains, iid})
    cases.push_back({Id::rejection_with_replacement, d});
  cases.push_back({Id::rejection_without_replacement, distinct});
  cases.push_back({Id::typical_acceptance, iid});
  cases.push_back({Id::mutant_residual_not_renormalized, iid});
  cases.push_back({Id::mutant_parent_draft_row, chains});
  cases.push_back({Id::mutant_cumulative_ratio_without_min, chain});
  cases.push_back({Id::mutant_bonus_from_target_row, iid});
  cases.push_back({Id::mutant_shared_sibling_uniform, iid});
  cases.push_back({Id::mutant_draft_uniform_reused, chain});
  cases.push_back({Id::mutant_stale_proposal_in_residual, distinct});
  cases.push_back({Id::mutant_with_replacement_rules_on_distinct_drafts, distinct});
  cases.push_back({Id::mutant_without_replacement_rules_on_repeats, iid});
  return cases;
}

}  // namespace tev::drafts
