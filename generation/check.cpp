#include "generation/check.hpp"

#include <algorithm>
#include <chrono>
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>
#include <ostream>
#include <stdexcept>

#include "core/choosers.hpp"
#include "core/format.hpp"
#include "core/interrupt.hpp"
#include "core/philox.hpp"
#include "core/random_streams.hpp"

namespace tev::generation {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

constexpr std::int32_t kVocab = 5;
constexpr Token kEos = 4;

std::shared_ptr<const ModelPair> pair(std::uint32_t seed) {
  return std::make_shared<const NgramPair>(NgramSpec{kVocab, 2, 1.5, 0.8, seed});
}

// s0 → {0, 1} → s1 → {2 → s2, 3 → s0}; s2 → {0 → s1, EOS}: EOS only after a 2.
Grammar alternating_grammar() {
  Grammar g;
  g.states = 3;
  g.vocab = kVocab;
  g.allowed.assign(static_cast<std::size_t>(g.states * kVocab), 0);
  g.next.assign(static_cast<std::size_t>(g.states * kVocab), 0);
  auto allow = [&](std::int32_t from, Token t, std::int32_t to) {
    g.allowed[static_cast<std::size_t>(from * kVocab + t)] = 1;
    g.next[static_cast<std::size_t>(from * kVocab + t)] = to;
  };
  allow(0, 0, 1);
  allow(0, 1, 1);
  allow(1, 2, 2);
  allow(1, 3, 0);
  allow(2, 0, 1);
  allow(2, kEos, 2);
  return g;
}

}  // namespace

std::vector<GenerationCase> default_generation_cases(std::optional<Semantics> semantics) {
  std::vector<GenerationCase> cases;
  {
    Request r;
    r.name = "stops_vllm";
    r.prompt = {1, 2};
    r.sampling.temperature = 0.9;
    r.eos = {kEos};
    r.stop = {3};
    r.min_tokens = 2;
    r.max_new_tokens = 4;
    cases.push_back({r.name, pair(11), r});
  }
  {
    Request r;
    r.name = "penalties_vllm";
    r.prompt = {0, 0, 2};
    r.repetition_penalty = 1.5;
    r.frequency_penalty = 0.7;
    r.presence_penalty = 0.4;
    r.logit_bias = {{1, 0.8}, {kEos, -3.0}};
    r.sampling.top_p = 0.95;
    r.eos = {kEos};
    r.max_new_tokens = 4;
    cases.push_back({r.name, pair(12), r});
  }
  {
    Request r;
    r.name = "grammar_vllm";
    r.prompt = {3};
    r.sampling.min_p = 0.05;
    r.eos = {kEos};
    r.max_new_tokens = 4;
    r.grammar = alternating_grammar();
    cases.push_back({r.name, pair(13), r});
  }
  {
    Request r;
    r.name = "penalties_hf";
    r.semantics = Semantics::hf;
    r.prompt = {2, 1};
    r.repetition_penalty = 1.6;
    r.sampling.top_k = 4;
    r.sampling.min_p = 0.05;
    r.sampling.order = FilterOrder::min_p_last;
    r.min_tokens = 1;
    r.eos = {kEos};
    r.max_new_tokens = 4;
    cases.push_back({r.name, pair(14), r});
  }
  {
    Request r;
    r.name = "penalties_llama_cpp";
    r.semantics = Semantics::llama_cpp;
    r.prompt = {0, 1, 0};
    r.penalty_last_n = 3;
    r.repetition_penalty = 1.3;
    r.frequency_penalty = 0.5;
    r.presence_penalty = 0.3;
    r.sampling.temperature = 0.8;
    r.sampling.order = FilterOrder::min_p_last;
    r.eos = {kEos};
    r.max_new_tokens = 4;
    cases.push_back({r.name, pair(15), r});
  }
  for (const GenerationCase& c : cases) validate(c.request, c.models->vocab());
  if (semantics)
    std::erase_if(cases,
                  [&](const GenerationCase& c) { return c.request.semantics != *semantics; });
  return cases;
}

std::uint64_t loop_call_seed(std::uint32_t seed, std::size_t request, std::uint64_t call) {
  const auto block =
      philox_block(uses::engine_generation_loops.site(seed, static_cast<std::uint32_t>(request)),
                   static_cast<std::uint32_t>(call));
  return (std::uint64_t{block[0]} << 32) | block[1];
}

GenerationSamples sample_generations(const GenerationCase& c, const Loop& loop,
                                     const SequenceCells& cells, std::uint64_t samples,
                                     std::uint32_t seed, std::uint32_t site, int threads) {
  GenerationSamples out;
  out.stream.assign(samples, stats::kNoCell);
  std::vector<std::uint32_t> lengths(samples), rounds(samples);
  oneapi::tbb::enumerable_thread_specific<RowMemo> memos;
  oneapi::tbb::task_arena arena(std::max(1, threads));
  arena.execute([&] {
    oneapi::tbb::parallel_for(
        oneapi::tbb::blocked_range<std::uint64_t>(0, samples, 1024),
        [&](const oneapi::tbb::blocked_range<std::uint64_t>& range) {
          poll_interrupt();
          PhiloxChooser chooser(DrawSite{});
          RowMemo& memo = memos.local();
          for (std::uint64_t g = range.begin(); g < range.end(); ++g) {
            chooser.restart(DrawSite{seed, uses::generation_runs.stream, site, g});
            const GenerationState s = generate(c, loop, chooser, memo);
            out.stream[g] = cells.cell(s.output);
            lengths[g] = static_cast<std::uint32_t>(s.output.size());
            rounds[g] = static_cast<std::uint32_t>(s.rounds);
          }
        });
  });
  for (std::uint64_t g = 0; g < samples; ++g) {
    out.tokens += lengths[g];
    out.rounds += rounds[g];
    if (out.stream[g] != stats::kNoCell) continue;
    if (out.impossible++ == 0) {
      PhiloxChooser chooser(DrawSite{seed, uses::generation_runs.stream, site, g});
      RowMemo memo;
      out.first_impossible =
          "generation " + std::to_string(g) + " of request '" + c.request.name + "': " +
          why_impossible(c.request, c.models->vocab(), generate(c, loop, chooser, memo).output);
    }
  }
  return out;
}

bool GenerationCheckResult::inconclusive() const {
  return std::all_of(loops.begin(), loops.end(), [](const LoopOutcome& l) {
    return l.as_expected || (l.judged_exact && !l.caught_by_enumeration &&
                             l.verdict.verdict == judging::Verdict::inconclusive);
  });
}

bool GenerationCheckResult::passed() const {
  return std::all_of(loops.begin(), loops.end(),
                     [](const LoopOutcome& l) { return l.as_expected; });
}

GenerationCheckResult run_generation_check(const GenerationCheckOptions& options,
                                           std::ostream& progress) {
  return run_generation_check(default_generation_cases(options.semantics), options, progress);
}

GenerationCheckResult run_generation_check(std::vector<GenerationCase> cases,
                                           const GenerationCheckOptions& options,
                                           std::ostream& progress) {
  if (options.semantics)
    std::erase_if(
        cases, [&](const GenerationCase& c) { return c.request.semantics != *options.semantics; });
  if (cases.empty()) throw std::invalid_argument("no generation requests to judge");
  for (const GenerationCase& c : cases) validate(c.request, c.models->vocab());
  GenerationCheckResult result;
  result.cases = std::move(cases);
  const auto loops = generation_loops();
  result.policy.alpha = options.alpha / static_cast<double>(loops.size());
  result.policy.seed = options.seed;
  result.policy.max_detectable_tv = options.max_detectable_tv;
  validate(result.policy);
  const std::size_t n_cases = result.cases.size();
  std::vector<SequenceCells> cells;
  for (const GenerationCase& c : result.cases) {
    const auto start = Clock::now();
    result.references.push_back(enumerate_generation(c, plain_loop()));
    result.reference_seconds.push_back(seconds_since(start));
    cells.emplace_back(result.references.back().law);
  }
  for (std::size_t l = 0; l < loops.size(); ++l) {
    const auto loop_start = Clock::now();
    LoopOutcome out;
    out.loop = loops[l];
    std::vector<judging::TreeEvidence> evidence;
    for (std::size_t k = 0; k < n_cases; ++k) {
      const GenerationCase& c = result.cases[k];
      CaseOutcome co;
      auto start = Clock::now();
      const ExactGeneration exact = enumerate_generation(c, loops[l]);
      co.enumeration_seconds = seconds_since(start);
      start = Clock::now();
      const GenerationSamples samples =
          sample_generations(c, loops[l], cells[k], options.samples, options.seed,
                             static_cast<std::uint32_t>(l * n_cases + k), options.threads);
      co.sampling_seconds = seconds_since(start);
      co.evidence = generation_evidence(cells[k], samples, result.policy, n_cases, k);
      add_exact_generation(co.evidence, cells[k], result.references[k].law, exact.law,
                           result.policy, n_cases);
      co.first_impossible = samples.first_impossible;
      co.exact_tokens_per_round = exact.mean_length / exact.mean_rounds;
      co.tokens_per_round = static_cast<double>(samples.tokens) /
                            static_cast<double>(std::max<std::uint64_t>(1, samples.rounds));
      co.largest = largest_difference(result.references[k].law, exact.law);
      if (co.evidence.exact_tv > out.max_exact_tv) {
        out.max_exact_tv = co.evidence.exact_tv;
        out.worst_case = k;
      }
      evidence.push_back(co.evidence);
      out.cases.push_back(std::move(co));
    }
    double enumeration = 0.0;
    for (const CaseOutcome& co : out.cases) enumeration += co.enumeration_seconds;
    progress << "generation loop " << loops[l].name << " (" << l + 1 << " of " << loops.size()
             << "): " << fixed(seconds_since(loop_start), 1) << " s, " << fixed(enumeration, 1)
             << " s of it exact enumeration\n";
    out.verdict = judging::decide(evidence, result.policy);
    for (std::size_t k = 0; k < n_cases; ++k) {
      const judging::CaseVerdict& v = out.verdict.cases[k];
      out.caught_by_enumeration = out.caught_by_enumeration || v.enumerated_not_exact;
      out.caught_by_sampling = out.caught_by_sampling || v.sampled_not_exact;
      if (v.enumerated_not_exact && evidence[k].predicted_power >= result.policy.required_power &&
          !v.sampled_not_exact)
        out.sampling_missed = true;
    }
    out.exercised = is_exact_loop(out.loop) || out.max_exact_tv > result.policy.exact_tolerance;
    out.judged_exact = is_exact_loop(out.loop) || (options.semantics && !out.exercised);
    out.as_expected = out.judged_exact ? out.verdict.verdict == judging::Verdict::exact_saturated
                                       : out.verdict.verdict == judging::Verdict::not_exact &&
                                             out.caught_by_enumeration && !out.sampling_missed;
    result.loops.push_back(std::move(out));
  }
  return result;
}

}  // namespace tev::generation
