#pragma once
// Generation-level exactness of an engine's own loop: tevsuite hands the loop a request and a
// target and drafter (raw logits after any sequence), the loop generates as the engine does —
// drafting, verifying, and keeping the state it carries through a generation (stops,
// max_new_tokens, min_tokens, penalties, logit bias, a grammar's state) — and returns the emitted
// token sequences. Generations are the samples: their law is judged against plain generation's
// under the same request, computed exactly by tevsuite, by the identity test over emitted
// sequences and the tests of independence over consecutive generations (docs/generation.md).
#include <tevsuite/check.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tevsuite {

// An allowed-token automaton over the vocabulary, as structured-output backends compile one: a
// token is allowed in a state where allowed[state · V + token] is 1, and leads to next[...].
struct GenerationGrammar {
  std::int32_t states = 0;
  std::int32_t start = 0;
  std::vector<std::uint8_t> allowed;  // (states, V)
  std::vector<std::int32_t> next;     // (states, V)
};

// A request as the engine receives it. `semantics` names the engine whose sampler the parameters
// follow: "vllm", "hf" (transformers) or "llama_cpp"; docs/generation.md tabulates each one's
// processors, their order and the tokens they count. The emitted sequence holds the generated
// tokens up to and including the first EOS or stop id, or max_new_tokens of them.
struct GenerationRequest {
  std::string id;
  std::string semantics;
  std::int32_t vocab = 0;
  std::vector<std::int32_t> prompt;
  SamplingParams sampling;  // temperature, top-k, top-p, min-p, in the semantics' order
  double repetition_penalty = 1.0;
  double frequency_penalty = 0.0;
  double presence_penalty = 0.0;
  std::int32_t penalty_last_n = 64;  // llama_cpp's window over prompt ‖ output
  std::vector<std::pair<std::int32_t, double>> logit_bias;
  std::int32_t min_tokens = 0;
  std::vector<std::int32_t> eos;
  std::vector<std::int32_t> stop;
  std::int32_t max_new_tokens = 1;
  std::optional<GenerationGrammar> grammar;
};

// One request of the check and the models the loop calls.
class GenerationCase {
 public:
  struct Models;  // tevsuite's own
  GenerationCase(GenerationRequest request, std::shared_ptr<const Models> models);
  const GenerationRequest& request() const { return request_; }
  // (count, V) row-major: the raw logits of the next token after each sequence, a sequence being
  // prompt ‖ generated ‖ drafted tokens. Throws std::invalid_argument on a token outside [0, V).
  std::vector<double> target_logits(std::span<const std::vector<std::int32_t>> sequences) const;
  std::vector<double> draft_logits(std::span<const std::vector<std::int32_t>> sequences) const;
  // (V) The law plain generation samples the next token from after `output` (the generated tokens
  // so far): the target's logits through the request's processors in its semantics' order, its
  // penalties, min_tokens and grammar reading `output`. For a loop whose engine processes rows
  // elsewhere; an engine that processes its own rows is checked with them.
  std::vector<double> target_law(std::span<const std::int32_t> output) const;
  std::vector<double> draft_law(std::span<const std::int32_t> output) const;
  const Models& models() const { return *models_; }

 private:
  GenerationRequest request_;
  std::shared_ptr<const Models> models_;
};

// `count` whole generations, generations first .. first + count − 1 of the request, seeded once
// per call with 64 bits keyed by the check's seed, the request and `first`: one emitted sequence
// per generation, in order.
using GenerationLoop = std::function<std::vector<std::vector<std::int32_t>>(
    const GenerationCase&, std::uint64_t first, std::uint64_t count, std::uint64_t seed)>;

// The default requests: stops and min_tokens, penalties and logit bias, and a grammar in vLLM's
// semantics; penalties in transformers' and in llama.cpp's (V = 5).
struct GenerationCheckOptions {
  std::uint64_t samples = 40000;  // generations per request
  std::uint64_t batch = 4096;     // generations per call of the loop
  double alpha = TEV_DEFAULT_ALPHA;
  std::uint32_t seed = kDefaultSeed;
  // "vllm", "hf" or "llama_cpp": only the requests in that semantics, for a loop that implements
  // one engine's sampler; empty: every request.
  std::string semantics = {};
};

// The requests `check_generation` runs, as the loop will see them: those in `semantics` when it
// is not empty. Throws std::invalid_argument, listing the known names, on an unknown semantics.
std::vector<GenerationCase> generation_cases(std::string_view semantics = {});

// Calls the loop on every request and judges its generations: one CaseResult per request (its
// id, its parameters as label, p-values of the identity test, the TV its tests guarantee,
// mean_length = tokens per generation). A call that answers other than `count` sequences, or a
// sequence with a token outside [0, V), more than max_new_tokens tokens or a token the grammar
// forbids, is refused with std::invalid_argument naming the request and the generation, never
// judged. A sequence plain generation never emits otherwise (a token after the stop, a stop
// before min_tokens, a token the filters remove) is an impossible event: not exact.
Report check_generation(const GenerationLoop& loop, const GenerationCheckOptions& options = {});

}  // namespace tevsuite
