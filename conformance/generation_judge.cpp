#include "conformance/generation_judge.hpp"

#include <limits>
#include <stdexcept>

#include "conformance/json_input.hpp"
#include "generation/exact_law.hpp"

namespace tev::conformance {

namespace tg = generation;
using nlohmann::json;

namespace {

// Plain generation's exact law; a request under which it cannot run (a row where the grammar
// and min_tokens leave no token) is bad input.
tg::ExactGeneration plain_generation(const GenerationCase& c) {
  try {
    return tg::enumerate_generation(c.generation, tg::plain_loop());
  } catch (const std::invalid_argument& e) {
    throw InputError("case " + c.id +
                     ": plain generation cannot run under the request: " + e.what());
  }
}

}  // namespace

GenerationCaseJudge::GenerationCaseJudge(const GenerationCase& c, std::uint32_t, std::uint32_t)
    : GenerationCaseJudge(c, plain_generation(c)) {}

GenerationCaseJudge::GenerationCaseJudge(const GenerationCase& c,
                                         const tg::ExactGeneration& reference)
    : case_(&c), cells_(reference.law), reference_mean_length_(reference.mean_length) {
  samples_.stream.reserve(c.samples);
}

void GenerationCaseJudge::add_line(std::string_view line, const std::string& where) {
  const json j = parse_sample_line(line, where);
  const std::string at =
      where + " (request '" + case_->id + "', generation " + std::to_string(lines()) + ")";
  if (!j.is_object()) fail(at, "an answer must be an object {\"case_id\", \"tokens\"}");
  const json& tokens = field(j, "tokens", at);
  if (!tokens.is_array()) fail(at, "its tokens must be a flat array of token ids");
  std::vector<Token> sequence;
  sequence.reserve(tokens.size());
  for (const json& t : tokens) {
    if (t.is_array())
      fail(at,
           "its tokens must be a flat array of token ids, not an array of arrays (one line per "
           "generation)");
    // Any integer: one outside the vocabulary is refused below, naming it.
    const std::int64_t token = token_field(t, at, "token");
    sequence.push_back(token < std::numeric_limits<Token>::min() ||
                               token > std::numeric_limits<Token>::max()
                           ? -1
                           : static_cast<Token>(token));
  }
  add_sequence(sequence, where);
}

void GenerationCaseJudge::add_sequence(std::span<const Token> sequence, const std::string& where) {
  const tg::Request& r = case_->generation.request;
  const std::uint64_t g = lines();
  const std::string at =
      where + " (request '" + case_->id + "', generation " + std::to_string(g) + ")";
  if (g >= case_->samples)
    fail(at, "more generations than the case's " + std::to_string(case_->samples));
  if (sequence.empty()) fail(at, "an empty sequence (every generation emits at least one token)");
  const std::string why = tg::refused_sequence(r, case_->generation.models->vocab(), sequence);
  if (!why.empty()) fail(at, why + " in " + tg::sequence_text(sequence));
  const std::int64_t cell = cells_.cell(sequence);
  samples_.stream.push_back(cell);
  samples_.tokens += sequence.size();
  if (cell != stats::kNoCell) return;
  if (samples_.impossible++ == 0)
    samples_.first_impossible =
        "generation " + std::to_string(g) + " of request '" + case_->id +
        "': " + tg::why_impossible(r, case_->generation.models->vocab(), sequence);
}

GenerationReport judge_generations(const std::vector<GenerationCaseJudge>& judges,
                                   const judging::VerdictPolicy& policy) {
  GenerationReport report;
  report.policy = policy;
  std::vector<judging::TreeEvidence> evidence;
  for (std::size_t k = 0; k < judges.size(); ++k) {
    const GenerationCaseJudge& judge = judges[k];
    const GenerationCase& c = judge.spec();
    if (judge.lines() != c.samples)
      throw InputError("case " + c.id + ": " + std::to_string(judge.lines()) + " generations of " +
                       std::to_string(c.samples));
    evidence.push_back(
        tg::generation_evidence(judge.cells(), judge.samples(), policy, judges.size(), k));
  }
  const judging::SubjectVerdict verdict = judging::decide(evidence, policy);
  report.overall = verdict.verdict;
  for (std::size_t k = 0; k < judges.size(); ++k) {
    const GenerationCase& c = judges[k].spec();
    GenerationCaseResult& r = report.cases.emplace_back();
    r.id = c.id;
    r.label = c.label;
    r.semantics = tg::semantics_name(c.generation.request.semantics);
    r.sequences = judges[k].cells().sequences.size();
    r.reference_mean_length = judges[k].reference_mean_length();
    r.first_impossible = judges[k].samples().first_impossible;
    r.evidence = evidence[k];
    r.decision = verdict.cases[k];
    if (report.first_failing.empty() && r.decision.verdict == report.overall &&
        report.overall != judging::Verdict::exact_saturated)
      report.first_failing = r.id;
  }
  return report;
}

}  // namespace tev::conformance
