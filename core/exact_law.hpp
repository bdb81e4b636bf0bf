#pragma once
// A verifier's exact output law, by enumerating every branch of its draws (and of the completion
// draws that follow an in-tree bonus) with EnumeratingChooser. Token draws are lumped: a branch
// per drafted child, one weighted vector for every other token, added into the (exit node, token)
// law at once, so live trees (V = 151,936, B ≤ 128) take seconds. A verifier may return a block
// that lies on no cell (a path off the tree, a bonus outside the vocabulary): its probability is
// counted apart, so the exact TV covers it too.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "core/choosers.hpp"
#include "core/exit_law.hpp"
#include "core/verifier_catalog.hpp"

namespace tev {

struct EnumerationConfig {
  TokenDraws token_draws = TokenDraws::lumped;
  std::size_t max_branches = kEnumerationBranchBudget;
};

struct ExactOutcome {
  std::vector<double> completed;  // (N, V) exact law of (exit node, next token) after completion
  double mean_length = 0.0;       // E[L] of the blocks the verifier itself returns
  double completion_probability = 0.0;  // P(bonus is a drafted child's token)
  TokenDraws token_draws =
      TokenDraws::lumped;    // per_token when the verifier's token draws could not be lumped
  std::size_t branches = 0;  // runs of the verifier the enumeration took
  double off_cells =
      0.0;  // P(the verifier returns a block on no (exit node, token) cell); `completed` holds the rest
};

// What one run of a verifier returned, as the enumeration counts it: its cell, or none for a block
// that lies on no cell, with the block's length (accepted tokens plus the bonus).
struct CountedBlock {
  std::optional<Block> cell;
  double length = 0.0;
};

// TV between the verifier's exact law (its off-cell mass included) and a canonical (N, V) law.
inline double exact_tv(const ExactOutcome& exact, std::span<const double> canonical) {
  return total_variation(exact.completed, canonical) + 0.5 * exact.off_cells;
}

namespace detail {

template <class Verify>
ExactOutcome enumerate_with(const DraftTree& tree, const TargetRows& rows, Verify& verify,
                            TokenDraws token_draws, std::size_t max_branches) {
  ExactOutcome out;
  out.token_draws = token_draws;
  const auto vocab = static_cast<std::size_t>(tree.vocab);
  out.completed.assign(static_cast<std::size_t>(tree.size()) * vocab, 0.0);
  CompensatedSum length, completion, off_cells;
  struct Outcome {
    CountedBlock returned;
    std::optional<Block> completed;
  };
  out.branches = enumerate_outcomes(
      [&](EnumeratingChooser& chooser) {
        CountedBlock b;
        if constexpr (std::is_same_v<std::invoke_result_t<Verify&, EnumeratingChooser&>,
                                     CountedBlock>) {
          b = verify(chooser);
        } else {
          const Block returned = verify(chooser);
          b = {returned, tree.depth[returned.exit] + 1.0};
        }
        if (!b.cell) return Outcome{b, std::nullopt};
        return Outcome{b, complete_block(tree, rows, *b.cell, chooser)};
      },
      [&](const Outcome& o, const Branch& branch) {
        if (!o.completed) {
          // An off-cell block under a lump says nothing of the lump's other tokens.
          if (branch.lump != nullptr)
            throw LumpingRefused(
                "the verifier returned a block on no cell after a lumped token draw");
          off_cells.add(branch.probability);
          length.add(branch.probability * o.returned.length);
          return;
        }
        const Block completed = *o.completed;
        double probability = branch.probability;
        if (branch.lump == nullptr) {
          out.completed[static_cast<std::size_t>(completed.exit) * vocab +
                        static_cast<std::size_t>(completed.bonus)] += probability;
        } else {
          // Every token of the lump ends the run as the representative did: same exit, same
          // returned exit, completed or not alike.
          const Lump& lump = *branch.lump;
          if (!(completed == Block{lump.node, lump.representative})) {
            throw LumpingRefused(
                "the verifier did not return its lumped token as the bonus at that node");
          }
          double* cells = out.completed.data() + static_cast<std::size_t>(lump.node) * vocab;
          for (std::size_t a = 0; a < vocab; ++a)
            cells[a] += probability * (lump.weights[a] / lump.total);
          probability *= lump.mass;
        }
        length.add(probability * o.returned.length);
        if (!(*o.returned.cell == completed)) completion.add(probability);
      },
      EnumeratingChooser(token_draws, max_branches));
  out.mean_length = length.value();
  out.completion_probability = completion.value();
  out.off_cells = off_cells.value();
  return out;
}

}  // namespace detail

// verify(chooser) → Block (or CountedBlock, when a block may lie on no cell) runs one verifier; it
// must be a deterministic function of its choices.
// Lumped first; a verifier that breaks next_token's promise is enumerated again token by token
// (ExactOutcome::token_draws says so), within the branch budget. Throws EnumerationBudgetExceeded
// when the enumeration needs more branches than that.
template <class Verify>
ExactOutcome enumerate_verifier(const DraftTree& tree, const TargetRows& rows, Verify&& verify,
                                EnumerationConfig config = {}) {
  if (config.token_draws == TokenDraws::lumped) {
    try {
      return detail::enumerate_with(tree, rows, verify, TokenDraws::lumped, config.max_branches);
    } catch (const LumpingRefused&) {
      // Falls through to per-token branching.
    }
  }
  return detail::enumerate_with(tree, rows, verify, TokenDraws::per_token, config.max_branches);
}

inline ExactOutcome enumerate_verifier(VerifierId id, const DraftTree& tree, const TargetRows& rows,
                                       EnumerationConfig config = {}) {
  try {
    return enumerate_verifier(
        tree, rows,
        [&](EnumeratingChooser& chooser) { return run_verifier(id, tree, rows, chooser); }, config);
  } catch (const EnumerationBudgetExceeded& e) {
    throw EnumerationBudgetExceeded(std::string(verifier_info(id).name) + ": " + e.what());
  }
}

}  // namespace tev
