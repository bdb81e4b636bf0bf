#pragma once
// Judges the generations an engine in another process emitted for generation cases
// (conformance/generation_case.hpp) with the generation check's judge (generation/judge.hpp):
// plain generation's exact law under the request, by enumeration, gives the cells; the identity
// test over emitted sequences and the tests of independence over consecutive generations decide,
// each case one member of the verdict policy's exactness family. A sequence plain generation
// never emits otherwise (a token after the stop, a stop before min_tokens, a token the filters
// remove) is an impossible event: not exact. Saturation does not apply (whole generations, no
// fixed tree).
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "conformance/generation_case.hpp"
#include "generation/judge.hpp"
#include "judging/verdict_policy.hpp"

namespace tev::conformance {

class GenerationCaseJudge {
 public:
  // The seed and index are the other formats' completion keys: a generation needs no completion.
  GenerationCaseJudge(const GenerationCase& c, std::uint32_t completion_seed,
                      std::uint32_t case_index);

  // One answer line {"case_id", "tokens": [...]}: the next generation of the case. InputError,
  // naming `where`, the request and the generation, for malformed JSON, a "tokens" that is not a
  // flat array of integers, an empty sequence, a generation past the case's `samples`, and an
  // answer generation::refused_sequence refuses (a token outside [0, V), more than
  // max_new_tokens tokens, a token the grammar forbids).
  void add_line(std::string_view line, const std::string& where);
  void add_sequence(std::span<const Token> sequence, const std::string& where);

  const GenerationCase& spec() const { return *case_; }
  const generation::SequenceCells& cells() const { return cells_; }
  const generation::GenerationSamples& samples() const { return samples_; }
  double reference_mean_length() const { return reference_mean_length_; }
  std::uint64_t lines() const { return samples_.stream.size(); }

 private:
  GenerationCaseJudge(const GenerationCase& c, const generation::ExactGeneration& reference);
  const GenerationCase* case_;
  generation::SequenceCells cells_;
  double reference_mean_length_ = 0.0;
  generation::GenerationSamples samples_;
};

struct GenerationCaseResult {
  std::string id;
  std::string label;
  std::string semantics;
  std::size_t sequences = 0;  // plain generation's support
  double reference_mean_length = 0.0;
  std::string first_impossible;
  judging::TreeEvidence evidence;  // generations, impossible ones, identity and independence
                                   // tests, mean_length = tokens per generation
  judging::CaseVerdict decision;
};

struct GenerationReport {
  std::vector<GenerationCaseResult> cases;
  judging::Verdict overall = judging::Verdict::exact_saturated;  // reads "exact" here
  std::string first_failing;
  judging::VerdictPolicy policy;
  // 0 exact, 1 not exact, 4 inconclusive.
  int exit_code() const { return judging::verdict_exit_code(overall); }
};

// The engine is one subject of the verdict policy: each case is a member of its exactness family
// (Holm at α/2), its identity test and tests of independence at their weighted Bonferroni shares;
// a case that cannot guarantee the policy's TV is inconclusive. InputError when a case lacks
// generations.
GenerationReport judge_generations(const std::vector<GenerationCaseJudge>& judges,
                                   const judging::VerdictPolicy& policy);

}  // namespace tev::conformance
