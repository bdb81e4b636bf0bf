#pragma once
// Generation cases (format_version 6): one request of the generation check (generation/) as an
// engine in another process reads it. The engine runs its own speculative generation loop on the
// tabulated target and drafter, `samples` whole generations of the request with its generator
// seeded by `seed`, and answers one line per generation, in order, with the tokens it emitted:
//   {"format_version": 6, "case_id": "stops_vllm", "label": "...", "samples": n, "seed": s,
//    "vocab": V, "context": c, "target_logits": [row, ...], "draft_logits": [row, ...],
//    "request": {"semantics": "vllm", "prompt": [...], "sampling": {...},
//                "repetition_penalty": 1.0, "frequency_penalty": 0.0, "presence_penalty": 0.0,
//                "penalty_last_n": 64, "logit_bias": [[token, bias], ...], "min_tokens": 0,
//                "eos": [...], "stop": [...], "max_new_tokens": N,
//                "grammar": null | {"states": S, "start": s0, "allowed": [[0|1, ...], ...],
//                                   "next": [[state, ...], ...]}}}
//   {"case_id": "stops_vllm", "tokens": [t1, t2, ...]}
// A table holds (V + 1)^c rows of V raw logits: the row after a sequence (prompt ‖ generated ‖
// drafted tokens) is the one its last c tokens name as base-(V + 1) digits, the oldest first,
// a position before the sequence's start reading 0 and token t reading t + 1. Each parameter
// means what it means in the engine `semantics` names (docs/generation.md tabulates them); the
// emitted sequence holds the tokens up to and including the first EOS or stop id, or
// max_new_tokens of them. The answers are judged against plain generation's exact law under the
// same request (conformance/generation_judge.hpp).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "conformance/case_io.hpp"
#include "generation/loops.hpp"

namespace tev::conformance {

// What a case may ask of the judge: plain generation's law is enumerated, V^max_new_tokens
// sequences at most, so both are bounded (the default requests: V = 5, 4 tokens).
inline constexpr std::int64_t kMaxGenerationVocab = 256;
inline constexpr std::int64_t kMaxGenerationTokens = 16;
inline constexpr std::int64_t kMaxGenerationSequences = std::int64_t{1} << 20;

struct GenerationCase {
  std::string id;
  std::string label;
  std::uint64_t samples = 0;  // generations
  std::uint64_t seed = 0;     // the engine's generator
  generation::GenerationCase generation;
};

// The n-gram pair a generation case's models are: what a case file holds as tables. Throws
// std::invalid_argument for models of another kind (a real language model has no tables).
const generation::NgramPair& ngram_models(const generation::GenerationCase& c);

// Both tables, and the reference law's cells at most, while judged.
std::int64_t held_cells(const GenerationCase& c);

// Writes a generation case as one JSON line: the request's tables, prompt and parameters. Its
// models must be an n-gram pair (ngram_models).
std::string write_generation_case(const generation::GenerationCase& c, std::uint64_t samples,
                                  std::uint64_t seed);

// Parses one generation-case line; `where` prefixes every message. Refused: another
// format_version, a table of the wrong shape or with a logit that is not finite, a grammar whose
// tables do not match it, a parameter out of range or one its semantics does not offer, and a
// request whose plain-generation law may hold more than kMaxGenerationSequences sequences.
GenerationCase parse_generation_case(std::string_view line, const std::string& where,
                                     const CaseLimits& limits = {});
using GenerationCaseReader = BasicCaseReader<GenerationCase, parse_generation_case>;

struct GenerationEmitConfig {
  std::uint64_t samples = 40000;  // generations per request, as `check --generation` draws
  std::uint32_t seed = kDefaultSeed;
  // Only its requests (all when empty).
  std::optional<generation::Semantics> semantics = std::nullopt;
};

// The default generation requests (generation::default_generation_cases) as lines. Request k's
// seed is the one the in-process check (check_generation) hands a loop for its first batch of
// request k at the same seed and selection: an engine that draws as that loop does, asked for
// every generation in one batch, emits the same sequences in both.
std::vector<std::string> emit_generation_cases(const GenerationEmitConfig& config);

}  // namespace tev::conformance
