#pragma once
// The exact law of the sequences a loop emits, by enumeration round by round: a generation's
// future depends only on its state (generation/loops.hpp: the output and what a fault carries),
// so every state reached after r rounds is enumerated once, with the probability of reaching it,
// and each round's draws (drafts, acceptances, residuals, bonuses) are branched token by token.
#include <cstdint>
#include <map>
#include <vector>

#include "generation/loops.hpp"

namespace tev::generation {

// A law of emitted sequences: each sequence with its probability (positive entries only).
using SequenceLaw = std::map<std::vector<Token>, double>;

struct ExactGeneration {
  SequenceLaw law;
  double mean_length = 0.0;    // E[tokens emitted]
  double mean_rounds = 0.0;    // E[rounds]
  std::uint64_t states = 0;    // unfinished states enumerated
  std::uint64_t branches = 0;  // runs of a round the enumeration took
};

// Throws EnumerationBudgetExceeded when one state's round needs more than max_branches runs.
ExactGeneration enumerate_generation(const GenerationCase& c, const Loop& loop,
                                     std::size_t max_branches = std::size_t{1} << 20);

// TV between two laws of sequences (a sequence one lacks has probability 0 there).
double sequence_tv(const SequenceLaw& a, const SequenceLaw& b);

// The sequence whose probability differs most between the two, and its two probabilities.
struct LargestDifference {
  std::vector<Token> sequence;
  double reference = 0.0;
  double other = 0.0;
};
LargestDifference largest_difference(const SequenceLaw& reference, const SequenceLaw& other);

}  // namespace tev::generation
