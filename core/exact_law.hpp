#pragma once
// A verifier's exact output law, by enumerating every branch of its draws (and of the completion
// draws that follow an in-tree bonus) with EnumeratingChooser. Token draws are lumped: a branch
// per drafted child, one weighted vector for every other token, added into the (exit node, token)
// law at once, so live trees (V = 151,936, B ≤ 128) take seconds.
#include <cstdint>
#include <string>
#include <vector>

#include "core/choosers.hpp"
#include "core/verifier_catalog.hpp"

namespace tev {

struct EnumerationConfig {
  TokenDraws token_draws = TokenDraws::lumped;
  std::size_t max_branches = kEnumerationBranchBudget;
};

struct ExactOutcome {
  std::vector<double> completed;        // (N, V) exact law of (exit node, next token) after completion
  double mean_length = 0.0;             // E[L] of the blocks the verifier itself returns
  double completion_probability = 0.0;  // P(bonus is a drafted child's token)
  TokenDraws token_draws = TokenDraws::lumped;  // per_token when the verifier's token draws could not be lumped
  std::size_t branches = 0;                     // runs of the verifier the enumeration took
};

namespace detail {

template <class Verify>
ExactOutcome enumerate_with(const DraftTree& tree, const TargetRows& rows, Verify& verify, TokenDraws token_draws,
                            std::size_t max_branches) {
  ExactOutcome out;
  out.token_draws = token_draws;
  const auto vocab = static_cast<std::size_t>(tree.vocab);
  out.completed.assign(static_cast<std::size_t>(tree.size()) * vocab, 0.0);
  CompensatedSum length, completion;
  struct Outcome {
    Block returned;
    Block completed;
  };
  auto add = [&](const Block& returned, const Block& completed, double probability) {
    length.add(probability * (tree.depth[returned.exit] + 1.0));
    if (!(returned == completed)) completion.add(probability);
  };
  out.branches = enumerate_outcomes(
      [&](EnumeratingChooser& chooser) {
        const Block b = verify(chooser);
        return Outcome{b, complete_block(tree, rows, b, chooser)};
      },
      [&](const Outcome& o, const Branch& branch) {
        if (branch.lump == nullptr) {
          out.completed[static_cast<std::size_t>(o.completed.exit) * vocab + static_cast<std::size_t>(o.completed.bonus)] += branch.probability;
          add(o.returned, o.completed, branch.probability);
          return;
        }
        // Every token of the lump ends the run as the representative did: same exit, same
        // returned exit, completed or not alike.
        const Lump& lump = *branch.lump;
        if (!(o.completed == Block{lump.node, lump.representative})) {
          throw LumpingRefused("the verifier did not return its lumped token as the bonus at that node");
        }
        double* cells = out.completed.data() + static_cast<std::size_t>(lump.node) * vocab;
        for (std::size_t a = 0; a < vocab; ++a) cells[a] += branch.probability * (lump.weights[a] / lump.total);
        add(o.returned, o.completed, branch.probability * lump.mass);
      },
      EnumeratingChooser(token_draws, max_branches));
  out.mean_length = length.value();
  out.completion_probability = completion.value();
  return out;
}

}  // namespace detail

// verify(chooser) → Block runs one verifier; it must be a deterministic function of its choices.
// Lumped first; a verifier that breaks next_token's promise is enumerated again token by token
// (ExactOutcome::token_draws says so), within the branch budget. Throws EnumerationBudgetExceeded
// when the enumeration needs more branches than that.
template <class Verify>
ExactOutcome enumerate_verifier(const DraftTree& tree, const TargetRows& rows, Verify&& verify, EnumerationConfig config = {}) {
  if (config.token_draws == TokenDraws::lumped) {
    try {
      return detail::enumerate_with(tree, rows, verify, TokenDraws::lumped, config.max_branches);
    } catch (const LumpingRefused&) {
      // Falls through to per-token branching.
    }
  }
  return detail::enumerate_with(tree, rows, verify, TokenDraws::per_token, config.max_branches);
}

inline ExactOutcome enumerate_verifier(VerifierId id, const DraftTree& tree, const TargetRows& rows, EnumerationConfig config = {}) {
  try {
    return enumerate_verifier(tree, rows, [&](EnumeratingChooser& chooser) { return run_verifier(id, tree, rows, chooser); }, config);
  } catch (const EnumerationBudgetExceeded& e) {
    throw EnumerationBudgetExceeded(std::string(verifier_info(id).name) + ": " + e.what());
  }
}

}  // namespace tev
