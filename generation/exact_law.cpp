#include "generation/exact_law.hpp"

#include <cmath>

#include "core/choosers.hpp"
#include "core/compensated_sum.hpp"

namespace tev::generation {

ExactGeneration enumerate_generation(const GenerationCase& c, const Loop& loop,
                                     std::size_t max_branches) {
  ExactGeneration out;
  // Unfinished states after r rounds, by key: the state and the probability of reaching it.
  std::map<std::vector<Token>, std::pair<GenerationState, double>> frontier;
  const GenerationState start = initial_state();
  frontier.emplace(start.key(), std::pair{start, 1.0});
  CompensatedSum length, rounds;
  RowMemo memo;
  while (!frontier.empty()) {
    std::map<std::vector<Token>, std::pair<GenerationState, double>> next;
    for (const auto& [key, entry] : frontier) {
      const auto& [state, reached] = entry;
      rounds.add(reached);
      ++out.states;
      out.branches += enumerate_outcomes(
          [&](EnumeratingChooser& chooser) {
            GenerationState s = state;
            run_round(c, loop, s, chooser, memo);
            return s;
          },
          [&](const GenerationState& s, const Branch& branch) {
            const double p = reached * branch.probability;
            if (s.finished) {
              out.law[s.output] += p;
              length.add(p * static_cast<double>(s.output.size()));
              return;
            }
            auto [it, fresh] = next.try_emplace(s.key(), std::pair{s, 0.0});
            it->second.second += p;
          },
          EnumeratingChooser(TokenDraws::per_token, max_branches));
    }
    frontier = std::move(next);
  }
  out.mean_length = length.value();
  out.mean_rounds = rounds.value();
  return out;
}

double sequence_tv(const SequenceLaw& a, const SequenceLaw& b) {
  CompensatedSum sum;
  for (const auto& [seq, p] : a) {
    const auto it = b.find(seq);
    sum.add(std::abs(p - (it == b.end() ? 0.0 : it->second)));
  }
  for (const auto& [seq, p] : b) {
    if (!a.contains(seq)) sum.add(p);
  }
  return 0.5 * sum.value();
}

LargestDifference largest_difference(const SequenceLaw& reference, const SequenceLaw& other) {
  LargestDifference out;
  auto consider = [&](const std::vector<Token>& seq, double r, double o) {
    if (std::abs(r - o) > std::abs(out.reference - out.other)) out = {seq, r, o};
  };
  for (const auto& [seq, p] : reference) {
    const auto it = other.find(seq);
    consider(seq, p, it == other.end() ? 0.0 : it->second);
  }
  for (const auto& [seq, p] : other) {
    if (!reference.contains(seq)) consider(seq, 0.0, p);
  }
  return out;
}

}  // namespace tev::generation
