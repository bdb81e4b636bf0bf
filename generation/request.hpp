#pragma once
// A generation request as an engine receives it, and the one function that turns a raw logit row
// into the law the engine samples the next token from. Each parameter means what it means in the
// engine the request names (Semantics): the processors, their order and the tokens they count are
// that engine's, as docs/generation.md tabulates with the source lines they were read from.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/block.hpp"
#include "core/sampling_params.hpp"

namespace tev::generation {

// Whose sampler the request's parameters follow.
enum class Semantics {
  vllm,       // grammar mask, min_tokens (EOS and stop ids), logit bias, then penalties
              // (repetition over prompt + output; frequency and presence over output), then
              // temperature, min-p, top-k, top-p
  hf,         // transformers: logit bias, repetition over prompt + output, min_new_tokens (EOS
              // ids only), then temperature, top-k, top-p, min-p; no frequency or presence penalty
  llama_cpp,  // logit bias, then penalties over the last penalty_last_n tokens of prompt + output,
              // then top-k, top-p, min-p on untempered probabilities, temperature last; no
              // min_tokens; grammars not modelled (llama.cpp resamples after a rejected token)
};
inline constexpr Semantics kSemantics[] = {Semantics::vllm, Semantics::hf, Semantics::llama_cpp};
std::string_view semantics_name(Semantics s);
// Throws std::invalid_argument on another name, listing the known ones.
Semantics parse_semantics(std::string_view name);

// The filter order of the semantics' sampler (llama_cpp's top-k, top-p, min-p is min_p_last's,
// with the temperature after them).
FilterOrder native_order(Semantics s);

// The state no grammar constrains: a row computed with it is unmasked.
inline constexpr std::int32_t kUnconstrained = -1;

// An allowed-token automaton over the vocabulary, as structured-output backends compile a grammar:
// a mask of allowed tokens per state and the state each allowed token leads to.
struct Grammar {
  std::int32_t states = 0;
  std::int32_t vocab = 0;
  std::int32_t start = 0;
  std::vector<std::uint8_t> allowed;  // (states, V) 1 where the token is allowed in the state
  std::vector<std::int32_t> next;     // (states, V) the state after an allowed token
  bool allows(std::int32_t state, Token t) const;
  // The state after `tokens` from the start; kUnconstrained once a token was forbidden (the
  // matcher has nothing left to constrain; the sequence is already one the grammar rejects).
  std::int32_t state_after(std::span<const Token> tokens) const;
  // std::nullopt when `tokens` is a path of allowed tokens from the start, else the first
  // forbidden position.
  std::optional<std::size_t> first_forbidden(std::span<const Token> tokens) const;
};

struct Request {
  std::string name;
  Semantics semantics = Semantics::vllm;
  std::vector<Token> prompt;
  SamplingParams sampling;  // temperature, top-k, top-p, min-p and vLLM's or HF's filter order
  double repetition_penalty = 1.0;   // ≥ 1 in practice; 1: off
  double frequency_penalty = 0.0;    // 0: off (not offered by hf)
  double presence_penalty = 0.0;     // 0: off (not offered by hf)
  std::int32_t penalty_last_n = 64;  // llama_cpp: the window the penalties count (−1: all)
  std::vector<std::pair<Token, double>> logit_bias;  // added to the raw logit
  std::int32_t min_tokens = 0;  // EOS and stop tokens forbidden before this many are generated
  std::vector<Token> eos;       // end-of-sequence ids: generation ends after one
  std::vector<Token> stop;      // stop token ids: generation ends after one (included)
  std::int32_t max_new_tokens = 1;
  std::optional<Grammar> grammar;

  bool ends_generation(Token t) const;  // an EOS or stop id
  bool penalized() const {
    return repetition_penalty != 1.0 || frequency_penalty != 0.0 || presence_penalty != 0.0;
  }
};

// Throws std::invalid_argument naming the request and the first parameter out of range, or one
// its semantics does not offer.
void validate(const Request& r, std::int32_t vocab);

// What the processors read at one position.
struct RowInputs {
  std::span<const Token> output;  // the tokens the penalties count as generated before it
  std::int32_t generated = 0;     // tokens generated before it (min_tokens)
  std::int32_t grammar_state = kUnconstrained;
};

// The law the engine samples from: the raw logits through the request's processors in its
// semantics' order. Throws std::invalid_argument when no token keeps mass.
std::vector<double> processed_row(const Request& r, std::span<const double> logits,
                                  const RowInputs& in);

}  // namespace tev::generation
