#include "conformance/generation_case.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>

#include "conformance/json_input.hpp"
#include "generation/check.hpp"

namespace tev::conformance {

namespace {

using nlohmann::json;
namespace tg = generation;

// A table as (V + 1)^context rows of V logits.
json table_json(std::span<const double> table, std::size_t vocab) {
  json rows = json::array();
  for (std::size_t r = 0; r < table.size(); r += vocab)
    rows.push_back(std::vector<double>(table.begin() + static_cast<std::ptrdiff_t>(r),
                                       table.begin() + static_cast<std::ptrdiff_t>(r + vocab)));
  return rows;
}

std::vector<double> read_table(const json& j, std::size_t rows, std::int64_t vocab,
                               const std::string& at, const char* name) {
  if (!j.is_array() || j.size() != rows)
    fail(at, std::string(name) + " must be an array of " + std::to_string(rows) +
                 " rows, (V + 1)^context");
  std::vector<double> out(rows * static_cast<std::size_t>(vocab));
  for (std::size_t r = 0; r < rows; ++r)
    read_logit_row(j[r], vocab,
                   std::span<double>(out).subspan(r * static_cast<std::size_t>(vocab),
                                                  static_cast<std::size_t>(vocab)),
                   at + " " + name + " row " + std::to_string(r));
  return out;
}

double number(const json& j, const std::string& at, const std::string& what) {
  if (!j.is_number() || !std::isfinite(j.get<double>()))
    fail(at, what + " must be a finite number, got " + j.dump());
  return j.get<double>();
}

std::vector<Token> tokens(const json& j, const std::string& at, const std::string& what) {
  if (!j.is_array()) fail(at, what + " must be an array of tokens");
  std::vector<Token> out;
  for (const json& t : j) out.push_back(static_cast<Token>(integer(t, 0, kMaxVocab, at, what)));
  return out;
}

// (states, V) from an array of `states` rows of V integers in [lo, hi].
template <class T>
std::vector<T> grammar_table(const json& j, std::int32_t states, std::int64_t vocab,
                             std::int64_t lo, std::int64_t hi, const std::string& at,
                             const char* name) {
  if (!j.is_array() || static_cast<std::int64_t>(j.size()) != states)
    fail(at, std::string("grammar ") + name + " must hold one row per state");
  std::vector<T> out;
  for (const json& row : j) {
    if (!row.is_array() || static_cast<std::int64_t>(row.size()) != vocab)
      fail(at, std::string("grammar ") + name + " rows must hold V entries");
    for (const json& x : row) out.push_back(static_cast<T>(integer(x, lo, hi, at, name)));
  }
  return out;
}

tg::Grammar read_grammar(const json& j, std::int64_t vocab, const std::string& at) {
  if (!j.is_object())
    fail(at, "grammar must be null or {\"states\", \"start\", \"allowed\", \"next\"}");
  tg::Grammar g;
  g.vocab = static_cast<std::int32_t>(vocab);
  g.states = static_cast<std::int32_t>(
      integer(field(j, "states", at), 1, kMaxGenerationSequences / vocab, at, "grammar states"));
  g.start = static_cast<std::int32_t>(
      integer(field(j, "start", at), 0, g.states - 1, at, "grammar start"));
  g.allowed =
      grammar_table<std::uint8_t>(field(j, "allowed", at), g.states, vocab, 0, 1, at, "allowed");
  g.next = grammar_table<std::int32_t>(field(j, "next", at), g.states, vocab, 0, g.states - 1, at,
                                       "next");
  return g;
}

tg::Request read_request(const json& j, std::int64_t vocab, const std::string& at) {
  if (!j.is_object()) fail(at, "request must be an object");
  tg::Request r;
  const json& semantics = field(j, "semantics", at);
  if (!semantics.is_string()) fail(at, "semantics must be a string");
  try {
    r.semantics = tg::parse_semantics(semantics.get<std::string>());
  } catch (const std::invalid_argument& e) {
    fail(at, e.what());
  }
  r.prompt = tokens(field(j, "prompt", at), at, "prompt token");
  // The sampling parameters default to the semantics' own filter order.
  json sampling = j.value("sampling", json::object());
  if (sampling.is_object() && !sampling.contains("order"))
    sampling["order"] = order_name(tg::native_order(r.semantics));
  r.sampling = read_sampling(sampling, at + " sampling");
  r.repetition_penalty = number(field(j, "repetition_penalty", at), at, "repetition_penalty");
  r.frequency_penalty = number(field(j, "frequency_penalty", at), at, "frequency_penalty");
  r.presence_penalty = number(field(j, "presence_penalty", at), at, "presence_penalty");
  r.penalty_last_n = static_cast<std::int32_t>(
      integer(field(j, "penalty_last_n", at), -1, 1 << 30, at, "penalty_last_n"));
  const json& bias = field(j, "logit_bias", at);
  if (!bias.is_array()) fail(at, "logit_bias must be an array of [token, bias] pairs");
  for (const json& pair : bias) {
    if (!pair.is_array() || pair.size() != 2)
      fail(at, "logit_bias must be an array of [token, bias] pairs");
    r.logit_bias.emplace_back(
        static_cast<Token>(integer(pair[0], 0, kMaxVocab, at, "logit_bias token")),
        number(pair[1], at, "logit_bias"));
  }
  r.min_tokens = static_cast<std::int32_t>(
      integer(field(j, "min_tokens", at), 0, kMaxGenerationTokens, at, "min_tokens"));
  r.eos = tokens(field(j, "eos", at), at, "EOS token");
  r.stop = tokens(field(j, "stop", at), at, "stop token");
  r.max_new_tokens = static_cast<std::int32_t>(
      integer(field(j, "max_new_tokens", at), 1, kMaxGenerationTokens, at, "max_new_tokens"));
  if (j.contains("grammar") && !j["grammar"].is_null())
    r.grammar = read_grammar(j["grammar"], vocab, at);
  return r;
}

// V^tokens, the most sequences plain generation's law may hold, or limit + 1 when more.
std::int64_t sequence_bound(std::int64_t vocab, std::int64_t tokens, std::int64_t limit) {
  std::int64_t sequences = 1;
  for (std::int64_t i = 0; i < tokens && sequences <= limit; ++i) sequences *= vocab;
  return std::min(sequences, limit + 1);
}

}  // namespace

const tg::NgramPair& ngram_models(const tg::GenerationCase& c) {
  const auto* pair = dynamic_cast<const tg::NgramPair*>(c.models.get());
  if (pair == nullptr)
    throw std::invalid_argument("request '" + c.id +
                                "' runs on models that are no n-gram pair: a generation case "
                                "holds its models as tables");
  return *pair;
}

std::int64_t held_cells(const GenerationCase& c) {
  const auto tables = static_cast<std::int64_t>(ngram_models(c.generation).target_table().size());
  return 2 * tables + sequence_bound(c.generation.models->vocab(),
                                     c.generation.request.max_new_tokens, kMaxGenerationSequences);
}

std::string write_generation_case(const tg::GenerationCase& c, std::uint64_t samples,
                                  std::uint64_t seed) {
  const tg::Request& r = c.request;
  const tg::NgramPair& models = ngram_models(c);
  const auto vocab = static_cast<std::size_t>(models.vocab());
  json request = {{"semantics", tg::semantics_name(r.semantics)},
                  {"prompt", r.prompt},
                  {"sampling", sampling_json(r.sampling)},
                  {"repetition_penalty", r.repetition_penalty},
                  {"frequency_penalty", r.frequency_penalty},
                  {"presence_penalty", r.presence_penalty},
                  {"penalty_last_n", r.penalty_last_n},
                  {"logit_bias", json::array()},
                  {"min_tokens", r.min_tokens},
                  {"eos", r.eos},
                  {"stop", r.stop},
                  {"max_new_tokens", r.max_new_tokens},
                  {"grammar", nullptr}};
  for (const auto& [token, bias] : r.logit_bias) request["logit_bias"].push_back({token, bias});
  if (r.grammar) {
    const tg::Grammar& g = *r.grammar;
    json allowed = json::array(), next = json::array();
    for (std::size_t s = 0; s < static_cast<std::size_t>(g.states); ++s) {
      const auto row = static_cast<std::ptrdiff_t>(s * vocab);
      const auto end = row + static_cast<std::ptrdiff_t>(vocab);
      allowed.push_back(std::vector<int>(g.allowed.begin() + row, g.allowed.begin() + end));
      next.push_back(std::vector<std::int32_t>(g.next.begin() + row, g.next.begin() + end));
    }
    request["grammar"] = {
        {"states", g.states}, {"start", g.start}, {"allowed", allowed}, {"next", next}};
  }
  return json{{"format_version", kGenerationFormatVersion},
              {"case_id", c.id},
              {"label", tg::request_text(r)},
              {"samples", samples},
              {"seed", seed},
              {"vocab", models.vocab()},
              {"context", models.context()},
              {"target_logits", table_json(models.target_table(), vocab)},
              {"draft_logits", table_json(models.draft_table(), vocab)},
              {"request", request}}
      .dump();
}

GenerationCase parse_generation_case(std::string_view line, const std::string& where,
                                     const CaseLimits& limits) {
  const json j = parse_bounded(line, limits.json_values, where);
  const std::int64_t version = format_version(j, where);
  if (version != kGenerationFormatVersion)
    fail(where, "format_version " + std::to_string(version) +
                    " is not a generation case (this file's first case is one, format_version " +
                    std::to_string(kGenerationFormatVersion) + "): a file holds one kind");
  std::string id, label;
  std::uint64_t samples = 0;
  const std::string at = read_header(j, where, id, label, samples);
  const json& seed = field(j, "seed", at);
  if (!seed.is_number_unsigned() && !(seed.is_number_integer() && seed.get<std::int64_t>() >= 0))
    fail(at, "seed must be an integer in [0, 2^64)");
  const std::int64_t vocab = integer(field(j, "vocab", at), 2, kMaxGenerationVocab, at, "vocab");
  const auto context =
      static_cast<std::int32_t>(integer(field(j, "context", at), 1, 3, at, "context"));
  const std::size_t rows = tg::NgramPair::contexts(static_cast<std::int32_t>(vocab), context);
  if (2 * static_cast<std::int64_t>(rows) * vocab > limits.cells)
    fail(at, "tables of V = " + std::to_string(vocab) + " and context " + std::to_string(context) +
                 " need more than the " + std::to_string(limits.cells) +
                 " cells this case may hold");
  tg::Request request = read_request(field(j, "request", at), vocab, at + " request");
  request.name = id;
  if (sequence_bound(vocab, request.max_new_tokens, kMaxGenerationSequences) >
      kMaxGenerationSequences)
    fail(at, "V^max_new_tokens = " + std::to_string(vocab) + "^" +
                 std::to_string(request.max_new_tokens) + " exceeds the " +
                 std::to_string(kMaxGenerationSequences) +
                 " sequences plain generation's law is enumerated over (kMaxGenerationSequences)");
  try {
    tg::validate(request, static_cast<std::int32_t>(vocab));
  } catch (const std::invalid_argument& e) {
    fail(at, e.what());
  }
  auto models = std::make_shared<const tg::NgramPair>(
      static_cast<std::int32_t>(vocab), context,
      read_table(field(j, "target_logits", at), rows, vocab, at, "target_logits"),
      read_table(field(j, "draft_logits", at), rows, vocab, at, "draft_logits"));
  return {
      id, label, samples, seed.get<std::uint64_t>(), {id, std::move(models), std::move(request)}};
}

std::vector<std::string> emit_generation_cases(const GenerationEmitConfig& config) {
  std::vector<std::string> lines;
  const std::vector<tg::GenerationCase> cases = tg::default_generation_cases(config.semantics);
  for (std::size_t k = 0; k < cases.size(); ++k)
    lines.push_back(
        write_generation_case(cases[k], config.samples, tg::loop_call_seed(config.seed, k, 0)));
  return lines;
}

}  // namespace tev::conformance
