#include "core/verifier_catalog.hpp"

#include <array>
#include <stdexcept>

namespace tev {

namespace {
using enum VerifierId;
using K = VerifierKind;
using F = FastPath;
constexpr std::array kCatalog = {
    VerifierInfo{
        tree_exit, "tev", K::saturated, F::tree_exit,
        "Tree Exit Verification (Algorithm 1): one exit draw from w, one residual bonus draw"},
    VerifierInfo{predraw, "predraw", K::saturated, F::predraw,
                 "predraw-and-follow (DDTree): R_v ~ p_v at each node, follow matches"},
    VerifierInfo{sequential_residual, "sequential-residual", K::saturated, F::sequential_residual,
                 "EAGLE-style sequential residual, children in stored order"},
    VerifierInfo{sequential_residual_by_mass, "sequential-residual-by-mass", K::saturated,
                 F::sequential_residual, "EAGLE-style sequential residual, heaviest child first"},
    VerifierInfo{pathwise_walk, "walk", K::saturated, F::pathwise_walk,
                 "pathwise walk: child-or-exit draw per reached node"},
    VerifierInfo{first_child_chain, "first-child-chain", K::unsaturated, F::none,
                 "tests only the first child; bonus from p_v without it"},
    VerifierInfo{early_stopping, "early-stopping", K::unsaturated, F::none,
                 "stops at each internal node with probability 0.25; bonus from the full p_v"},
    VerifierInfo{mutant_residual_not_renormalized, "mutant-residual-not-renormalized", K::mutant,
                 F::none,
                 "sequential residual zeroes a rejected token but accepts later children with the "
                 "stale, unrenormalized mass"},
    VerifierInfo{mutant_bonus_from_full_row, "mutant-bonus-from-full-row", K::mutant, F::none,
                 "bonus after a rejection drawn from the full row, so a rejected draft token can "
                 "be re-emitted"},
    VerifierInfo{mutant_exit_mass_from_parent_row, "mutant-exit-mass-from-parent-row", K::mutant,
                 F::none,
                 "exit mass read from the parent's logits row (off-by-one row index into the tree "
                 "forward pass)"},
    VerifierInfo{
        mutant_float32_one_minus_sum, "mutant-float32-one-minus-sum", K::mutant, F::none,
        "rho as max(0, 1 - sum of children) in float32, as a fused GPU kernel might: TV ~1e-8"},
    VerifierInfo{mutant_residual_forgets_rejections, "mutant-residual-forgets-rejections",
                 K::mutant, F::none,
                 "residual rebuilt from a fresh row at each test, so only the last rejected token "
                 "is removed (sibling-order dependent)"},
    VerifierInfo{
        mutant_bonus_from_parent_row, "mutant-bonus-from-parent-row", K::mutant, F::none,
        "bonus drawn from the exit's parent row (logit offset off by one at the bonus position)"},
    VerifierInfo{mutant_greedy_argmax, "mutant-greedy-argmax", K::mutant, F::none,
                 "greedy argmax verification reused when decoding samples at temperature > 0"},
    VerifierInfo{mutant_temperature_twice, "mutant-temperature-twice", K::mutant, F::none,
                 "temperature 0.5 applied twice (sampler and verifier both divide the logits)"},
    VerifierInfo{mutant_top_k_residual_bonus, "mutant-top-k-residual-bonus", K::mutant, F::none,
                 "top-k filter (k = V/8) applied to the residual before the bonus draw: the tail's "
                 "mass is dropped"},
    VerifierInfo{mutant_tail_onto_first_token, "mutant-tail-onto-first-token", K::mutant, F::none,
                 "the residual's tail (outside its V/8 most probable tokens) collapsed onto its "
                 "first token, as a sparse fast path filling 'the rest' with one id"},
    VerifierInfo{
        mutant_truncated_id_bonus, "mutant-truncated-id-bonus", K::mutant, F::none,
        "bonus drawn from ids below 3V/4 only: an index range sized for a smaller vocabulary"},
    VerifierInfo{mutant_replayed_exit_lag1, "mutant-replayed-exit-lag1", K::serial_mutant,
                 F::tree_exit_replay_lag1,
                 "TEV whose random counter is not advanced every other call: sample 2k+1 draws "
                 "its exit with sample 2k's uniform"},
    VerifierInfo{mutant_replayed_exit_lag2, "mutant-replayed-exit-lag2", K::serial_mutant,
                 F::tree_exit_replay_lag2,
                 "TEV on two generators used in turn, each replaying its last draw once: sample "
                 "4k+j+2 draws its exit with sample 4k+j's uniform"},
    VerifierInfo{mutant_mirrored_exit_lag1, "mutant-mirrored-exit-lag1", K::serial_mutant,
                 F::tree_exit_mirror_lag1,
                 "TEV with antithetic pairs: sample 2k+1 draws its exit with 1 - u, u sample 2k's "
                 "uniform"},
};
}  // namespace

std::span<const VerifierInfo> verifier_catalog() { return kCatalog; }

const VerifierInfo& verifier_info(VerifierId id) {
  for (const VerifierInfo& info : kCatalog) {
    if (info.id == id) return info;
  }
  throw std::logic_error("unknown verifier id");
}

std::string_view kind_name(VerifierKind kind) {
  switch (kind) {
    case VerifierKind::saturated:
      return "saturated";
    case VerifierKind::unsaturated:
      return "unsaturated";
    case VerifierKind::mutant:
      return "mutant";
    case VerifierKind::serial_mutant:
      return "serial mutant";
  }
  throw std::logic_error("unknown verifier kind");
}

ChildOrder child_order_for(VerifierId id, const DraftTree& tree, const TargetRows& rows) {
  return id == VerifierId::sequential_residual_by_mass ? ChildOrder::by_target_mass(tree, rows)
                                                       : ChildOrder::stored(tree);
}

}  // namespace tev
