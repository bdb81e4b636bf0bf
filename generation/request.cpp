#include "generation/request.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "core/compensated_sum.hpp"

namespace tev::generation {

namespace {

constexpr double kMinusInfinity = -std::numeric_limits<double>::infinity();

bool contains(std::span<const Token> tokens, Token t) {
  return std::find(tokens.begin(), tokens.end(), t) != tokens.end();
}

// How often each token occurs in `tokens`.
std::vector<std::int32_t> counts_of(std::span<const Token> tokens, std::size_t vocab) {
  std::vector<std::int32_t> counts(vocab, 0);
  for (Token t : tokens) ++counts[static_cast<std::size_t>(t)];
  return counts;
}

// Repetition penalty on every token in `seen`: a positive logit divided by it, a negative one
// multiplied (vLLM, transformers and llama.cpp agree; llama.cpp divides at exactly 0, which
// leaves 0 unchanged as multiplying does).
void apply_repetition(std::vector<double>& logits, const std::vector<std::int32_t>& seen,
                      double penalty) {
  for (std::size_t a = 0; a < logits.size(); ++a) {
    if (seen[a] == 0 || !std::isfinite(logits[a])) continue;
    logits[a] = logits[a] > 0.0 ? logits[a] / penalty : logits[a] * penalty;
  }
}

// logit −= frequency · count + presence · [count > 0].
void apply_frequency_presence(std::vector<double>& logits, const std::vector<std::int32_t>& counts,
                              double frequency, double presence) {
  for (std::size_t a = 0; a < logits.size(); ++a) {
    if (counts[a] == 0 || !std::isfinite(logits[a])) continue;
    logits[a] -= frequency * counts[a] + presence;
  }
}

void apply_penalties(const Request& r, std::vector<double>& logits, std::span<const Token> output) {
  if (!r.penalized()) return;
  const std::size_t vocab = logits.size();
  if (r.semantics == Semantics::llama_cpp) {
    // One window over prompt ‖ output counts for all three penalties.
    std::vector<Token> history(r.prompt);
    history.insert(history.end(), output.begin(), output.end());
    const std::size_t window =
        r.penalty_last_n < 0 ? history.size()
                             : std::min(history.size(), static_cast<std::size_t>(r.penalty_last_n));
    const auto counts = counts_of(std::span<const Token>(history).last(window), vocab);
    apply_repetition(logits, counts, r.repetition_penalty);
    apply_frequency_presence(logits, counts, r.frequency_penalty, r.presence_penalty);
    return;
  }
  const auto output_counts = counts_of(output, vocab);
  if (r.repetition_penalty != 1.0) {
    std::vector<std::int32_t> seen = counts_of(r.prompt, vocab);
    for (std::size_t a = 0; a < vocab; ++a) seen[a] += output_counts[a];
    apply_repetition(logits, seen, r.repetition_penalty);
  }
  apply_frequency_presence(logits, output_counts, r.frequency_penalty, r.presence_penalty);
}

void apply_logit_bias(const Request& r, std::vector<double>& logits) {
  for (const auto& [token, bias] : r.logit_bias) logits[static_cast<std::size_t>(token)] += bias;
}

void apply_min_tokens(const Request& r, std::vector<double>& logits, std::int32_t generated) {
  if (generated >= r.min_tokens) return;
  for (Token t : r.eos) logits[static_cast<std::size_t>(t)] = kMinusInfinity;
  if (r.semantics != Semantics::hf) {
    // transformers' min_new_tokens suppresses only the EOS ids; vLLM also the stop ids.
    for (Token t : r.stop) logits[static_cast<std::size_t>(t)] = kMinusInfinity;
  }
}

void apply_grammar(const Request& r, std::vector<double>& logits, std::int32_t state) {
  if (!r.grammar || state == kUnconstrained) return;
  for (std::size_t a = 0; a < logits.size(); ++a) {
    if (!r.grammar->allows(state, static_cast<Token>(a))) logits[a] = kMinusInfinity;
  }
}

// llama.cpp's chain: top-k, top-p and min-p decide the kept tokens on untempered probabilities,
// then the temperature reshapes the kept ones.
std::vector<double> filter_then_temper(std::span<const double> logits, const SamplingParams& s) {
  std::vector<double> out(logits.size());
  if (s.greedy()) {
    process_logits(logits, s, out);
    return out;
  }
  SamplingParams untempered = s;
  untempered.temperature = 1.0;
  untempered.order = FilterOrder::min_p_last;  // top-k, top-p, min-p
  process_logits(logits, untempered, out);
  double largest = kMinusInfinity;
  for (std::size_t a = 0; a < logits.size(); ++a)
    if (out[a] > 0.0) largest = std::max(largest, logits[a]);
  CompensatedSum total;
  for (std::size_t a = 0; a < logits.size(); ++a) {
    out[a] = out[a] > 0.0 ? std::exp((logits[a] - largest) / s.temperature) : 0.0;
    total.add(out[a]);
  }
  for (double& x : out) x /= total.value();
  return out;
}

}  // namespace

std::string_view semantics_name(Semantics s) {
  switch (s) {
    case Semantics::vllm:
      return "vllm";
    case Semantics::hf:
      return "hf";
    case Semantics::llama_cpp:
      return "llama_cpp";
  }
  return "?";
}

Semantics parse_semantics(std::string_view name) {
  std::string known;
  for (Semantics s : kSemantics) {
    if (semantics_name(s) == name) return s;
    known += (known.empty() ? "" : ", ") + std::string(semantics_name(s));
  }
  throw std::invalid_argument("unknown semantics '" + std::string(name) + "': the known ones are " +
                              known);
}

bool Grammar::allows(std::int32_t state, Token t) const {
  return allowed[static_cast<std::size_t>(state) * static_cast<std::size_t>(vocab) +
                 static_cast<std::size_t>(t)] != 0;
}

std::optional<std::size_t> Grammar::first_forbidden(std::span<const Token> tokens) const {
  std::int32_t state = start;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i] < 0 || tokens[i] >= vocab || !allows(state, tokens[i])) return i;
    state = next[static_cast<std::size_t>(state) * static_cast<std::size_t>(vocab) +
                 static_cast<std::size_t>(tokens[i])];
  }
  return std::nullopt;
}

std::int32_t Grammar::state_after(std::span<const Token> tokens) const {
  if (first_forbidden(tokens)) return kUnconstrained;
  std::int32_t state = start;
  for (Token t : tokens)
    state = next[static_cast<std::size_t>(state) * static_cast<std::size_t>(vocab) +
                 static_cast<std::size_t>(t)];
  return state;
}

FilterOrder native_order(Semantics s) {
  return s == Semantics::vllm ? FilterOrder::min_p_first : FilterOrder::min_p_last;
}

bool Request::ends_generation(Token t) const { return contains(eos, t) || contains(stop, t); }

void validate(const Request& r, std::int32_t vocab) {
  const std::string who = "request '" + r.name + "': ";
  auto fail = [&](const std::string& what) { throw std::invalid_argument(who + what); };
  try {
    validate(r.sampling);
  } catch (const std::invalid_argument& e) {
    fail(e.what());
  }
  auto in_vocab = [&](Token t, const char* what) {
    if (t < 0 || t >= vocab)
      fail(std::string(what) + " token " + std::to_string(t) + " is outside the vocabulary [0, " +
           std::to_string(vocab) + ")");
  };
  for (Token t : r.prompt) in_vocab(t, "prompt");
  for (Token t : r.eos) in_vocab(t, "EOS");
  for (Token t : r.stop) in_vocab(t, "stop");
  for (const auto& [t, bias] : r.logit_bias) {
    in_vocab(t, "logit bias");
    if (!std::isfinite(bias)) fail("logit bias of token " + std::to_string(t) + " is not finite");
  }
  if (!(r.repetition_penalty > 0.0) || !std::isfinite(r.repetition_penalty))
    fail("repetition_penalty must be positive and finite");
  if (!std::isfinite(r.frequency_penalty) || !std::isfinite(r.presence_penalty))
    fail("frequency and presence penalties must be finite");
  if (r.semantics == Semantics::hf && (r.frequency_penalty != 0.0 || r.presence_penalty != 0.0))
    fail("hf does not offer frequency or presence penalties");
  if (r.sampling.order != native_order(r.semantics))
    fail(std::string(semantics_name(r.semantics)) + " filters in the order " +
         std::string(order_name(native_order(r.semantics))) + ", not " +
         std::string(order_name(r.sampling.order)));
  if (r.min_tokens < 0) fail("min_tokens must be ≥ 0");
  if (r.semantics == Semantics::llama_cpp && r.min_tokens > 0)
    fail("llama_cpp does not offer min_tokens");
  if (r.semantics == Semantics::llama_cpp && r.grammar)
    fail(
        "llama_cpp's grammar resamples after its chain rejects a token; that law is not "
        "modelled, so its requests carry no grammar");
  if (r.max_new_tokens < 1) fail("max_new_tokens must be ≥ 1");
  if (r.min_tokens > r.max_new_tokens) fail("min_tokens exceeds max_new_tokens");
  if (r.grammar) {
    const Grammar& g = *r.grammar;
    const auto cells = static_cast<std::size_t>(g.states) * static_cast<std::size_t>(g.vocab);
    if (g.vocab != vocab || g.states < 1 || g.start < 0 || g.start >= g.states ||
        g.allowed.size() != cells || g.next.size() != cells)
      fail("grammar tables do not match its states and the vocabulary");
    for (std::int32_t s = 0; s < g.states; ++s) {
      bool any = false;
      for (Token t = 0; t < vocab; ++t) {
        if (!g.allows(s, t)) continue;
        any = true;
        const std::int32_t to =
            g.next[static_cast<std::size_t>(s) * static_cast<std::size_t>(vocab) +
                   static_cast<std::size_t>(t)];
        if (to < 0 || to >= g.states) fail("grammar transition leads to no state");
      }
      if (!any) fail("grammar state " + std::to_string(s) + " allows no token");
    }
  }
}

std::vector<double> processed_row(const Request& r, std::span<const double> logits,
                                  const RowInputs& in) {
  std::vector<double> x(logits.begin(), logits.end());
  switch (r.semantics) {
    case Semantics::vllm:
      apply_grammar(r, x, in.grammar_state);
      apply_min_tokens(r, x, in.generated);
      apply_logit_bias(r, x);
      apply_penalties(r, x, in.output);
      break;
    case Semantics::hf:
      apply_grammar(r, x, in.grammar_state);
      apply_logit_bias(r, x);
      apply_penalties(r, x, in.output);
      apply_min_tokens(r, x, in.generated);
      break;
    case Semantics::llama_cpp:
      apply_grammar(r, x, in.grammar_state);
      apply_logit_bias(r, x);
      apply_penalties(r, x, in.output);
      apply_min_tokens(r, x, in.generated);
      return filter_then_temper(x, r.sampling);
  }
  std::vector<double> out(x.size());
  process_logits(x, r.sampling, out);
  return out;
}

}  // namespace tev::generation
