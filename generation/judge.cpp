#include "generation/judge.hpp"

#include <cmath>

#include "core/format.hpp"
#include "stats/iid_assumption.hpp"

namespace tev::generation {

std::string sequence_text(std::span<const Token> sequence) {
  std::string out = "[";
  for (std::size_t i = 0; i < sequence.size(); ++i)
    out += (i ? " " : "") + std::to_string(sequence[i]);
  return out + "]";
}

std::string request_text(const Request& r) {
  std::string out = std::string(semantics_name(r.semantics)) + " prompt " +
                    sequence_text(r.prompt) + " T " + num(r.sampling.temperature);
  if (r.sampling.top_k > 0) out += " top-k " + std::to_string(r.sampling.top_k);
  if (r.sampling.top_p < 1.0) out += " top-p " + num(r.sampling.top_p);
  if (r.sampling.min_p > 0.0) out += " min-p " + num(r.sampling.min_p);
  if (r.repetition_penalty != 1.0) out += " repetition " + num(r.repetition_penalty);
  if (r.frequency_penalty != 0.0) out += " frequency " + num(r.frequency_penalty);
  if (r.presence_penalty != 0.0) out += " presence " + num(r.presence_penalty);
  if (r.semantics == Semantics::llama_cpp && r.penalized())
    out += " last-n " + std::to_string(r.penalty_last_n);
  for (const auto& [t, b] : r.logit_bias) out += " bias " + std::to_string(t) + ":" + num(b);
  if (r.min_tokens > 0) out += " min_tokens " + std::to_string(r.min_tokens);
  out += " eos " + sequence_text(r.eos);
  if (!r.stop.empty()) out += " stop " + sequence_text(r.stop);
  if (r.grammar) out += " grammar " + std::to_string(r.grammar->states) + " states";
  return out + " max_new_tokens " + std::to_string(r.max_new_tokens);
}

std::string refused_sequence(const Request& r, std::int32_t vocab,
                             std::span<const Token> sequence) {
  for (std::size_t i = 0; i < sequence.size(); ++i) {
    if (sequence[i] < 0 || sequence[i] >= vocab)
      return "token " + std::to_string(sequence[i]) + " at position " + std::to_string(i) +
             " is outside the vocabulary [0, " + std::to_string(vocab) + ")";
  }
  if (sequence.size() > static_cast<std::size_t>(r.max_new_tokens))
    return std::to_string(sequence.size()) + " tokens, more than max_new_tokens " +
           std::to_string(r.max_new_tokens) + " (a loop that does not stop)";
  if (r.grammar) {
    if (const auto at = r.grammar->first_forbidden(sequence))
      return "the grammar forbids token " + std::to_string(sequence[*at]) + " at position " +
             std::to_string(*at);
  }
  return "";
}

std::string generation_verdict_text(judging::Verdict v) {
  return v == judging::Verdict::not_exact      ? "not exact"
         : v == judging::Verdict::inconclusive ? "inconclusive"
                                               : "exact";
}

SequenceCells::SequenceCells(const SequenceLaw& reference) {
  for (const auto& [sequence, p] : reference) {
    index.emplace(sequence, static_cast<std::int64_t>(sequences.size()));
    sequences.push_back(sequence);
    probability.push_back(p);
    groups.push_back(sequence.empty() ? -1 : sequence.front());
  }
}

std::int64_t SequenceCells::cell(std::span<const Token> sequence) const {
  const auto it = index.find(std::vector<Token>(sequence.begin(), sequence.end()));
  return it == index.end() ? stats::kNoCell : it->second;
}

std::string why_impossible(const Request& r, std::int32_t vocab, std::span<const Token> sequence) {
  const std::string seq = sequence_text(sequence);
  if (sequence.empty()) return seq + " is empty: every generation emits at least one token";
  for (std::size_t i = 0; i < sequence.size(); ++i) {
    if (sequence[i] < 0 || sequence[i] >= vocab)
      return seq + ": token " + std::to_string(sequence[i]) + " at position " + std::to_string(i) +
             " is outside the vocabulary [0, " + std::to_string(vocab) + ")";
  }
  if (sequence.size() > static_cast<std::size_t>(r.max_new_tokens))
    return seq + " holds " + std::to_string(sequence.size()) +
           " tokens, more than max_new_tokens " + std::to_string(r.max_new_tokens);
  for (std::size_t i = 0; i + 1 < sequence.size(); ++i) {
    if (r.ends_generation(sequence[i]))
      return seq + " goes on after the stop token " + std::to_string(sequence[i]) +
             " at position " + std::to_string(i);
  }
  if (!r.ends_generation(sequence.back()) &&
      sequence.size() < static_cast<std::size_t>(r.max_new_tokens))
    return seq + " ends before max_new_tokens without a stop token";
  for (std::size_t i = 0; i < sequence.size(); ++i) {
    if (r.ends_generation(sequence[i]) && static_cast<std::int32_t>(i) < r.min_tokens &&
        (r.semantics != Semantics::hf ||
         std::find(r.eos.begin(), r.eos.end(), sequence[i]) != r.eos.end()))
      return seq + " stops at position " + std::to_string(i) + ", before min_tokens " +
             std::to_string(r.min_tokens);
  }
  if (r.grammar) {
    if (const auto at = r.grammar->first_forbidden(sequence))
      return seq + ": the grammar forbids token " + std::to_string(sequence[*at]) +
             " at position " + std::to_string(*at);
  }
  return seq + " has probability 0 under plain generation (a token the request's filters remove)";
}

judging::TreeEvidence generation_evidence(const SequenceCells& cells,
                                          const GenerationSamples& samples,
                                          const judging::VerdictPolicy& policy, std::size_t cases,
                                          std::size_t index) {
  judging::TreeEvidence e;
  const auto n = static_cast<std::uint64_t>(samples.stream.size());
  e.samples = n - samples.impossible;
  e.invalid = samples.impossible;
  e.mean_length = n ? static_cast<double>(samples.tokens) / static_cast<double>(n) : 0.0;
  const double level = policy.identity_level(cases, false, true);
  e.detectable_tv =
      judging::detectable_tv(cells.probability, cells.groups, n, level, policy.required_power);
  // A test that is not run keeps its share of the level with p = 1 (valid, and it cannot undo
  // a rejection): near the level each would simulate its p-value for seconds.
  auto skip_iid = [&](const std::string& why) {
    e.iid_tests.assign(stats::kIidTests, stats::IidTest{"not run: " + why, 0, {}, std::nullopt});
  };
  if (samples.impossible > 0) {
    // An event of probability 0 under the null: p = 0 exactly, whatever the other tests say.
    e.chi_square.p_value = 0.0;
    e.chi_square.impossible = samples.impossible;
    skip_iid("an impossible generation");
    return e;
  }
  std::vector<std::uint64_t> counts(cells.probability.size(), 0);
  for (std::int64_t cell : samples.stream) ++counts[static_cast<std::size_t>(cell)];
  e.chi_square = stats::identity_test(counts, cells.probability, cells.groups,
                                      policy.identity_test_level(cases, index, false, true),
                                      judging::kReportedDeviations, &e.largest_deviations);
  // Rejected at its own share of the level: the case is not exact whatever the tests of
  // independence say.
  if (e.chi_square.p_value <= level) {
    skip_iid("the identity test rejected");
    return e;
  }
  e.iid_tests =
      stats::iid_tests(samples.stream, cells.probability, cells.groups,
                       policy.iid_test_levels(cases, index, false), policy.required_power);
  return e;
}

void add_exact_generation(judging::TreeEvidence& e, const SequenceCells& cells,
                          const SequenceLaw& reference, const SequenceLaw& exact,
                          const judging::VerdictPolicy& policy, std::size_t cases) {
  e.enumerated = true;
  e.exact_tv = sequence_tv(reference, exact);
  if (!(e.exact_tv > policy.exact_tolerance)) return;
  // The loop's law on the reference's cells; the rest is impossible, seen at once when drawn.
  std::vector<double> on_cells(cells.probability.size(), 0.0);
  double off = 1.0;
  for (const auto& [sequence, p] : exact) {
    const std::int64_t cell = cells.cell(sequence);
    if (cell == stats::kNoCell) continue;
    on_cells[static_cast<std::size_t>(cell)] = p;
    off -= p;
  }
  e.predicted_power =
      judging::exact_law_power(cells.probability, on_cells, off, cells.groups,
                               e.samples + e.invalid, policy.identity_level(cases, false, true));
}

}  // namespace tev::generation
