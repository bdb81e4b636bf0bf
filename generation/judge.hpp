#pragma once
// Judges sampled generations against the law of plain generation: generations are the samples,
// emitted sequences the cells. The identity test (stats/law_identity.hpp) over the reference
// law's support, pooled by first token, and the tests of independence over consecutive
// generations, each at the level the verdict policy gives it. A sequence plain generation never
// emits is an impossible event: the case is not exact at once, and the first one is kept in words.
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "generation/exact_law.hpp"
#include "judging/verdict_policy.hpp"

namespace tev::generation {

// The cells of a reference law: its support in sequence order (so a first token's cells are
// contiguous), with their probabilities and pooling groups (the first token).
struct SequenceCells {
  std::vector<std::vector<Token>> sequences;  // (cells)
  std::vector<double> probability;            // (cells)
  std::vector<std::int32_t> groups;           // (cells) the sequence's first token
  std::map<std::vector<Token>, std::int64_t> index;
  explicit SequenceCells(const SequenceLaw& reference);
  // The cell of a sequence, or stats::kNoCell.
  std::int64_t cell(std::span<const Token> sequence) const;
};

// "[3 1 4]": a sequence as the messages and tables print it.
std::string sequence_text(std::span<const Token> sequence);

// The request's parameters in one line ("vllm prompt [1 2] T 0.9 ... max_new_tokens 4").
std::string request_text(const Request& r);

// Why an engine's answer is bad input rather than a sample, in words (empty when it may be
// judged): a token outside [0, V), more than max_new_tokens tokens, a token the grammar forbids.
// What plain generation never emits otherwise is an impossible event (why_impossible).
std::string refused_sequence(const Request& r, std::int32_t vocab, std::span<const Token> sequence);

// "exact", "not exact" or "inconclusive": saturation is a property of one round on a fixed tree,
// which `check` judges, so an exact subject here reads "exact".
std::string generation_verdict_text(judging::Verdict v);

// Why plain generation never emits `sequence` under the request, in words: a token outside the
// vocabulary, more than max_new_tokens, a token after the stop, a stop before min_tokens, a token
// the grammar forbids, or (when none of these) a token the request's filters remove.
std::string why_impossible(const Request& r, std::int32_t vocab, std::span<const Token> sequence);

// The samples of one case: each generation's cell in generation order (kNoCell when impossible).
struct GenerationSamples {
  std::vector<std::int64_t> stream;
  std::uint64_t impossible = 0;
  std::string first_impossible;  // in words, naming the generation
  std::uint64_t tokens = 0;      // Σ emitted tokens (valid or not)
  std::uint64_t rounds = 0;      // Σ rounds, where the loop reports them
};

// The evidence of one case, case `index` of `cases` in its subject, for judging::decide.
judging::TreeEvidence generation_evidence(const SequenceCells& cells,
                                          const GenerationSamples& samples,
                                          const judging::VerdictPolicy& policy, std::size_t cases,
                                          std::size_t index);

// Adds what the loop's exact law says: its TV from the reference and the identity test's power
// against it at the samples' count.
void add_exact_generation(judging::TreeEvidence& e, const SequenceCells& cells,
                          const SequenceLaw& reference, const SequenceLaw& exact,
                          const judging::VerdictPolicy& policy, std::size_t cases);

}  // namespace tev::generation
