#pragma once
// Every verifier the suite knows, with its kind, and one dispatch for any chooser.
#include <span>
#include <stdexcept>
#include <string_view>

#include "core/fast_verifiers.hpp"
#include "core/mutants.hpp"
#include "core/verifiers.hpp"

namespace tev {

enum class VerifierId {
  tree_exit,
  predraw,
  sequential_residual,
  sequential_residual_by_mass,
  pathwise_walk,
  first_child_chain,
  early_stopping,
  mutant_residual_not_renormalized,
  mutant_bonus_from_full_row,
  mutant_exit_mass_from_parent_row,
  mutant_float32_one_minus_sum,
  mutant_residual_forgets_rejections,
  mutant_bonus_from_parent_row,
  mutant_greedy_argmax,
  mutant_temperature_twice,
  mutant_top_k_residual_bonus,
  mutant_tail_onto_first_token,
  mutant_truncated_id_bonus,
  mutant_replayed_exit_lag1,
  mutant_replayed_exit_lag2,
  mutant_mirrored_exit_lag1,
};

// A serial mutant draws every block with the canonical law (its enumeration says exact) but makes
// samples depend on each other (core/fast_verifiers.hpp, SerialReplay): only the tests of
// independence, where the order of the samples is recorded, can catch it.
enum class VerifierKind { saturated, unsaturated, mutant, serial_mutant };
// A planted bug of either kind.
constexpr bool is_mutant(VerifierKind kind) {
  return kind == VerifierKind::mutant || kind == VerifierKind::serial_mutant;
}

struct VerifierInfo {
  VerifierId id;
  std::string_view name;
  VerifierKind kind;
  FastPath fast_path;
  std::string_view description;  // for mutants: the real-world bug it stands for
};

inline constexpr double kEarlyStopProbability = 0.25;

std::span<const VerifierInfo> verifier_catalog();
const VerifierInfo& verifier_info(VerifierId id);
std::string_view kind_name(VerifierKind kind);
// The child order a sequential-residual verifier tests in (stored order for the others).
ChildOrder child_order_for(VerifierId id, const DraftTree& tree, const TargetRows& rows);

template <class Chooser>
Block run_verifier(VerifierId id, const DraftTree& tree, const TargetRows& rows, Chooser& chooser) {
  switch (id) {
    case VerifierId::tree_exit:
      return tree_exit_verify(tree, rows, chooser);
    case VerifierId::predraw:
      return predraw_and_follow(tree, rows, chooser);
    case VerifierId::sequential_residual:
    case VerifierId::sequential_residual_by_mass:
      return sequential_residual(tree, rows, chooser, child_order_for(id, tree, rows));
    case VerifierId::pathwise_walk:
      return pathwise_walk(tree, rows, chooser);
    case VerifierId::first_child_chain:
      return first_child_chain(tree, rows, chooser);
    case VerifierId::early_stopping:
      return randomized_early_stopping(tree, rows, chooser, kEarlyStopProbability);
    case VerifierId::mutant_residual_not_renormalized:
      return mutants::residual_not_renormalized(tree, rows, chooser);
    case VerifierId::mutant_bonus_from_full_row:
      return mutants::bonus_from_full_row(tree, rows, chooser);
    case VerifierId::mutant_exit_mass_from_parent_row:
      return mutants::exit_mass_from_parent_row(tree, rows, chooser);
    case VerifierId::mutant_float32_one_minus_sum:
      return mutants::float32_one_minus_sum(tree, rows, chooser);
    case VerifierId::mutant_residual_forgets_rejections:
      return mutants::residual_forgets_earlier_rejections(tree, rows, chooser);
    case VerifierId::mutant_bonus_from_parent_row:
      return mutants::bonus_from_parent_row(tree, rows, chooser);
    case VerifierId::mutant_greedy_argmax:
      return mutants::greedy_argmax_match(tree, rows, chooser);
    case VerifierId::mutant_temperature_twice:
      return mutants::temperature_applied_twice(tree, rows, chooser);
    case VerifierId::mutant_top_k_residual_bonus:
      return mutants::top_k_residual_bonus(tree, rows, chooser);
    case VerifierId::mutant_tail_onto_first_token:
      return mutants::tail_onto_first_token(tree, rows, chooser);
    case VerifierId::mutant_truncated_id_bonus:
      return mutants::truncated_id_bonus(tree, rows, chooser);
    // One block of a serial mutant is TEV's: its dependence lives between samples, on its fast
    // path, which draws each sample's exit at the replayed sample's counter.
    case VerifierId::mutant_replayed_exit_lag1:
    case VerifierId::mutant_replayed_exit_lag2:
    case VerifierId::mutant_mirrored_exit_lag1:
      return tree_exit_verify(tree, rows, chooser);
  }
  throw std::logic_error("unknown verifier id");
}

}  // namespace tev
