#pragma once
// A verifier's exact output law on a small tree, by enumerating every branch of its draws (and of
// the completion draws that follow an in-tree bonus) with EnumeratingChooser.
#include <cstdint>
#include <vector>

#include "core/choosers.hpp"
#include "core/verifier_registry.hpp"

namespace tev {

struct ExactOutcome {
  std::vector<double> completed;        // (N, V) exact law of (exit node, next token) after completion
  double mean_length = 0.0;             // E[L] of the blocks the verifier itself returns
  double completion_probability = 0.0;  // P(bonus is a drafted child's token)
};

// verify(chooser) → Block runs one verifier; it must be a deterministic function of its choices.
template <class Verify>
ExactOutcome enumerate_verifier(const DraftTree& tree, const TargetRows& rows, Verify&& verify) {
  ExactOutcome out;
  out.completed.assign(static_cast<std::size_t>(tree.size()) * static_cast<std::size_t>(tree.vocab), 0.0);
  CompensatedSum length, completion;
  struct Outcome {
    Block returned;
    Block completed;
  };
  enumerate_outcomes(
      [&](EnumeratingChooser& chooser) {
        const Block b = verify(chooser);
        return Outcome{b, complete_block(tree, rows, b, chooser)};
      },
      [&](const Outcome& o, double probability) {
        out.completed[static_cast<std::size_t>(o.completed.exit) * static_cast<std::size_t>(tree.vocab) +
                      static_cast<std::size_t>(o.completed.bonus)] += probability;
        length.add(probability * (tree.depth[o.returned.exit] + 1.0));
        if (!(o.returned == o.completed)) completion.add(probability);
      });
  out.mean_length = length.value();
  out.completion_probability = completion.value();
  return out;
}

inline ExactOutcome enumerate_verifier(VerifierId id, const DraftTree& tree, const TargetRows& rows) {
  return enumerate_verifier(tree, rows, [&](EnumeratingChooser& chooser) { return run_verifier(id, tree, rows, chooser); });
}

}  // namespace tev
