#pragma once
// Verifiers on sampled drafts: the target-only verifiers on the realized tree, the q-based ones
// (core/rejection_sampling.hpp), the inexact-by-design reference and the mutants, each paired with
// the drafting policy it is run on, and one dispatch for any drafts source and chooser.
#include <span>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "core/sampled_mutants.hpp"
#include "core/typical_acceptance.hpp"
#include "core/verifier_catalog.hpp"
#include "drafts/drafting.hpp"

namespace tev::drafts {

enum class SampledVerifierId {
  tree_exit,
  predraw,
  sequential_residual,
  pathwise_walk,
  speculative_sampling,
  rejection_with_replacement,
  rejection_without_replacement,
  typical_acceptance,
  mutant_residual_not_renormalized,
  mutant_parent_draft_row,
  mutant_cumulative_ratio_without_min,
  mutant_bonus_from_target_row,
  mutant_shared_sibling_uniform,
  mutant_draft_uniform_reused,
  mutant_stale_proposal_in_residual,
  mutant_with_replacement_rules_on_distinct_drafts,
  mutant_without_replacement_rules_on_repeats,
};

enum class SampledKind {
  target_only,  // reads p only: exact on every realized tree, so marginally too
  q_based,      // reads q: exact marginally, over the drafter's randomness
  inexact,      // inexact by design (typical acceptance): must be judged not exact
  mutant,       // a planted bug: must be judged not exact
};

struct SampledVerifierInfo {
  SampledVerifierId id;
  std::string_view name;
  SampledKind kind;
  std::string_view description;  // for mutants: the real bug it stands for
};

std::span<const SampledVerifierInfo> sampled_verifier_catalog();
const SampledVerifierInfo& sampled_verifier_info(SampledVerifierId id);
std::string_view sampled_kind_name(SampledKind kind);

// The target-only verifier a sampled id stands for.
VerifierId target_only_verifier(SampledVerifierId id);

// The emitted tokens π(exit) ‖ bonus of a fixed-tree verifier's block.
inline std::vector<Token> emitted_tokens(const DraftTree& tree, const Block& b) {
  std::vector<Token> emitted = tree.path_tokens(b.exit);
  emitted.push_back(b.bonus);
  return emitted;
}

// Runs one verifier on the drafts (LazyDrafts or a realized DraftedTree) and returns the emitted
// tokens (accepted drafts ‖ bonus). Target-only verifiers read the whole realized tree.
template <class Drafts, class Chooser>
std::vector<Token> run_sampled_verifier(SampledVerifierId id, Drafts& drafts, Chooser& chooser,
                                        std::int32_t vocab) {
  constexpr auto all = static_cast<std::size_t>(-1);
  switch (id) {
    case SampledVerifierId::tree_exit:
    case SampledVerifierId::predraw:
    case SampledVerifierId::sequential_residual:
    case SampledVerifierId::pathwise_walk: {
      const auto [tree, rows] = drafts.realized().fixed_tree(vocab);
      return emitted_tokens(tree, run_verifier(target_only_verifier(id), tree, rows, chooser));
    }
    case SampledVerifierId::speculative_sampling:
      return speculative_sampling(drafts, chooser);
    case SampledVerifierId::rejection_with_replacement:
    case SampledVerifierId::mutant_with_replacement_rules_on_distinct_drafts:
      return rejection_sampling_with_replacement(drafts, chooser);
    case SampledVerifierId::rejection_without_replacement:
      return rejection_sampling_without_replacement(drafts, chooser);
    case SampledVerifierId::typical_acceptance:
      return typical_acceptance(drafts, chooser);
    case SampledVerifierId::mutant_residual_not_renormalized:
      return rejection_walk(drafts, chooser, mutants::ResidualNotRenormalized{}, all);
    case SampledVerifierId::mutant_parent_draft_row:
      return rejection_walk(drafts, chooser, mutants::ParentDraftRow{}, all);
    case SampledVerifierId::mutant_cumulative_ratio_without_min:
      return rejection_walk(drafts, chooser, mutants::CumulativeRatioWithoutMin{}, 1);
    case SampledVerifierId::mutant_bonus_from_target_row:
      return rejection_walk(drafts, chooser, mutants::BonusFromTargetRow{}, all);
    case SampledVerifierId::mutant_shared_sibling_uniform:
      return rejection_walk(drafts, chooser, mutants::SharedSiblingUniform{}, all);
    case SampledVerifierId::mutant_draft_uniform_reused:
      return rejection_walk(drafts, chooser, mutants::DraftUniformReused{}, all);
    case SampledVerifierId::mutant_stale_proposal_in_residual:
      return rejection_walk(drafts, chooser, mutants::StaleProposalInResidual{}, all);
    case SampledVerifierId::mutant_without_replacement_rules_on_repeats:
      return rejection_walk(drafts, chooser, mutants::WithoutReplacementOnRepeats{}, all);
  }
  throw std::logic_error("unknown sampled verifier id");
}

// One row of the sampled-drafts check: a verifier and the drafting policy it runs on.
struct SampledCase {
  SampledVerifierId verifier;
  Drafting drafting;
  std::string label() const;
};

// The standard verifier that is exact (marginally) on drafts of this policy: speculative sampling on
// a chain, rejection sampling with replacement on independent chains and i.i.d. children, without
// replacement on distinct children, and on deterministic top-k drafts (no q-randomness to average
// over) the target-only sequential residual.
SampledVerifierId exact_verifier_for(DraftPolicy policy);

// The default pairing for drafting depth D and width k: every target-only and q-based verifier on
// each policy it is exact on, typical acceptance, and each mutant on a policy where it is visible
// (k ≥ 2 for the sibling mutants, D ≥ 2 for the depth mutants; see the catalog's descriptions).
std::vector<SampledCase> default_sampled_cases(std::int32_t depth, std::int32_t width);

}  // namespace tev::drafts
