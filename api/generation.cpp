// The public generation check (include/tevsuite/generation.hpp) over the generation layer: the
// default requests handed to the engine's loop in public types, its answers validated and judged
// against plain generation's exact law.
#include <tevsuite/generation.hpp>

#include <algorithm>
#include <stdexcept>

#include "core/format.hpp"
#include "core/interrupt.hpp"
#include "generation/check.hpp"

namespace tevsuite {

namespace tg = tev::generation;

struct GenerationCase::Models {
  tg::GenerationCase internal;
};

namespace {

GenerationRequest public_request(const tg::GenerationCase& c) {
  const tg::Request& r = c.request;
  GenerationRequest out;
  out.id = c.id;
  out.semantics = std::string(tg::semantics_name(r.semantics));
  out.vocab = c.models->vocab();
  out.prompt = r.prompt;
  out.sampling = {r.sampling.temperature, r.sampling.top_k, r.sampling.top_p, r.sampling.min_p,
                  static_cast<FilterOrder>(r.sampling.order)};
  out.repetition_penalty = r.repetition_penalty;
  out.frequency_penalty = r.frequency_penalty;
  out.presence_penalty = r.presence_penalty;
  out.penalty_last_n = r.penalty_last_n;
  out.logit_bias = r.logit_bias;
  out.min_tokens = r.min_tokens;
  out.eos = r.eos;
  out.stop = r.stop;
  out.max_new_tokens = r.max_new_tokens;
  if (r.grammar)
    out.grammar =
        GenerationGrammar{r.grammar->states, r.grammar->start, r.grammar->allowed, r.grammar->next};
  return out;
}

GenerationCase public_case(const tg::GenerationCase& c) {
  return {public_request(c),
          std::make_shared<const GenerationCase::Models>(GenerationCase::Models{c})};
}

std::vector<double> logits_of(const tg::ModelPair& models, bool target,
                              std::span<const std::vector<std::int32_t>> sequences) {
  const auto vocab = static_cast<std::size_t>(models.vocab());
  std::vector<double> out;
  out.reserve(sequences.size() * vocab);
  for (std::size_t i = 0; i < sequences.size(); ++i) {
    for (std::int32_t t : sequences[i]) {
      if (t < 0 || t >= models.vocab())
        throw std::invalid_argument("sequence " + std::to_string(i) + " holds token " +
                                    std::to_string(t) + ", outside the vocabulary [0, " +
                                    std::to_string(vocab) + ")");
    }
    const auto row =
        target ? models.target_logits(sequences[i]) : models.draft_logits(sequences[i]);
    out.insert(out.end(), row.begin(), row.end());
  }
  return out;
}

// The default cases in `semantics` (all of them when it is empty).
std::vector<tg::GenerationCase> selected_cases(std::string_view semantics) {
  return tg::default_generation_cases(
      semantics.empty() ? std::nullopt : std::optional(tg::parse_semantics(semantics)));
}

}  // namespace

GenerationCase::GenerationCase(GenerationRequest request, std::shared_ptr<const Models> models)
    : request_(std::move(request)), models_(std::move(models)) {}

std::vector<double> GenerationCase::target_logits(
    std::span<const std::vector<std::int32_t>> sequences) const {
  return logits_of(*models_->internal.models, true, sequences);
}

std::vector<double> GenerationCase::draft_logits(
    std::span<const std::vector<std::int32_t>> sequences) const {
  return logits_of(*models_->internal.models, false, sequences);
}

std::vector<double> GenerationCase::target_law(std::span<const std::int32_t> output) const {
  return tg::plain_law(models_->internal, output, true);
}

std::vector<double> GenerationCase::draft_law(std::span<const std::int32_t> output) const {
  return tg::plain_law(models_->internal, output, false);
}

std::vector<GenerationCase> generation_cases(std::string_view semantics) {
  std::vector<GenerationCase> out;
  for (const tg::GenerationCase& c : selected_cases(semantics)) out.push_back(public_case(c));
  return out;
}

Report check_generation(const GenerationLoop& loop, const GenerationCheckOptions& options) {
  if (options.samples < 1 || options.samples > kMaxSamples)
    throw std::invalid_argument("samples must be 1 .. " + std::to_string(kMaxSamples));
  if (options.batch < 1) throw std::invalid_argument("batch must be at least 1");
  if (!(options.alpha >= kMinAlpha && options.alpha <= kMaxAlpha))
    throw std::invalid_argument("alpha must lie in [1e-12, 0.5]");
  const std::vector<tg::GenerationCase> cases = selected_cases(options.semantics);
  tev::judging::VerdictPolicy policy;
  policy.alpha = options.alpha;
  policy.seed = options.seed;
  std::vector<tev::judging::TreeEvidence> evidence;
  std::vector<std::string> first_impossible;
  std::vector<tg::SequenceCells> all_cells;
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const tg::GenerationCase& c = cases[k];
    const tg::SequenceCells& cells =
        all_cells.emplace_back(tg::enumerate_generation(c, tg::plain_loop()).law);
    const GenerationCase shown = public_case(c);
    tg::GenerationSamples samples;
    samples.stream.reserve(options.samples);
    for (std::uint64_t first = 0; first < options.samples; first += options.batch) {
      tev::poll_interrupt();
      const std::uint64_t count = std::min(options.batch, options.samples - first);
      const std::uint64_t seed = tg::loop_call_seed(options.seed, k, first / options.batch);
      const auto answers = loop(shown, first, count, seed);
      const std::string where = "request '" + c.id + "'";
      if (answers.size() != count)
        throw std::invalid_argument(
            where + ": the loop returned " + std::to_string(answers.size()) +
            " sequences for generations " + std::to_string(first) + " to " +
            std::to_string(first + count - 1) + " (" + std::to_string(count) + " asked)");
      for (std::uint64_t g = 0; g < count; ++g) {
        const std::vector<std::int32_t>& s = answers[g];
        const std::string why = tg::refused_sequence(c.request, c.models->vocab(), s);
        if (!why.empty())
          throw std::invalid_argument(where + ", generation " + std::to_string(first + g) + ": " +
                                      tg::sequence_text(s) + ": " + why);
        const std::int64_t cell = cells.cell(s);
        samples.stream.push_back(cell);
        samples.tokens += s.size();
        if (cell != tev::stats::kNoCell) continue;
        if (samples.impossible++ == 0)
          samples.first_impossible = "generation " + std::to_string(first + g) + " of " + where +
                                     ": " + tg::why_impossible(c.request, c.models->vocab(), s);
      }
    }
    evidence.push_back(tg::generation_evidence(cells, samples, policy, cases.size(), k));
    first_impossible.push_back(samples.first_impossible);
  }
  const tev::judging::SubjectVerdict verdict = tev::judging::decide(evidence, policy);
  Report report;
  report.verdict = static_cast<Verdict>(tev::judging::verdict_exit_code(verdict.verdict));
  report.verdict_text = tg::generation_verdict_text(verdict.verdict);
  report.alpha = policy.alpha;
  report.exact_tolerance = policy.exact_tolerance;
  std::string failing;
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const tev::judging::TreeEvidence& e = evidence[k];
    const tev::judging::CaseVerdict& v = verdict.cases[k];
    CaseResult r{cases[k].id,
                 std::string(tg::semantics_name(cases[k].request.semantics)) + " request",
                 static_cast<Verdict>(tev::judging::verdict_exit_code(v.verdict)),
                 e.samples + e.invalid,
                 e.invalid,
                 e.chi_square.p_value,
                 v.exactness_p_holm,
                 std::nullopt,
                 tev::judging::stated_tv(e),
                 std::nullopt,
                 e.mean_length,
                 std::nullopt,
                 "a generation loop: sampling only"};
    if (failing.empty() && v.verdict != tev::judging::Verdict::exact_saturated) {
      failing = "request '" + cases[k].id + "': " + tg::generation_verdict_text(v.verdict) +
                ", identity p " + tev::num(e.chi_square.p_value) + ", smallest independence p " +
                tev::num(tev::judging::smallest_iid_p(e)) +
                (first_impossible[k].empty() ? "" : "; first impossible: " + first_impossible[k]);
      if (!e.largest_deviations.empty()) {
        const tev::stats::BinDeviation& d = e.largest_deviations.front();
        failing +=
            "; the bin farthest from plain generation (" +
            (d.cell >= 0
                 ? tg::sequence_text(all_cells[k].sequences[static_cast<std::size_t>(d.cell)])
                 : std::to_string(d.cells) + " rare sequences") +
            ") holds " + std::to_string(d.observed) + " generations, " + tev::num(d.expected) +
            " expected";
      }
    }
    report.cases.push_back(std::move(r));
  }
  report.description = report.verdict_text + (failing.empty() ? "" : ": " + failing);
  return report;
}

}  // namespace tevsuite
