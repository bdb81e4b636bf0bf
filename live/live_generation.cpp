#include "live/live_generation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace tev::live {

namespace {

std::vector<double> log_row(const models::LanguageModel& model, std::span<const Token> sequence,
                            double tolerance) {
  std::vector<double> row = model.next_row(sequence);
  models::normalize_row(row, model, sequence, tolerance);
  for (double& p : row) p = p > 0.0 ? std::log(p) : -std::numeric_limits<double>::infinity();
  return row;
}

// The target's tokens after the prompt, likeliest first, without the begin and end tokens (a
// request's stop word and grammar are drawn from them).
std::vector<Token> ranked_after(const models::LanguageModel& target, std::span<const Token> prompt,
                                Token end_token, std::size_t count) {
  const std::vector<double> row = target.next_row(prompt);
  std::vector<Token> order(row.size());
  std::iota(order.begin(), order.end(), 0);
  std::erase_if(order, [&](Token t) { return t == end_token || t == target.begin_token(); });
  if (order.size() < count)
    throw std::invalid_argument("the live generation requests need a vocabulary of at least " +
                                std::to_string(count + 2) + " tokens");
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(count), order.end(),
                    [&](Token a, Token b) {
                      return row[static_cast<std::size_t>(a)] > row[static_cast<std::size_t>(b)];
                    });
  order.resize(count);
  return order;
}

// The synthetic cases' alternating grammar over the ranked tokens r: s0 → {r0, r1, r2} → s1 →
// {r3, r4 → s2, r5 → s0}; s2 → {r0 → s1, EOS}: EOS only after r3 or r4.
generation::Grammar ranked_grammar(std::int32_t vocab, std::span<const Token> r, Token eos) {
  generation::Grammar g;
  g.states = 3;
  g.vocab = vocab;
  const auto cells = static_cast<std::size_t>(g.states) * static_cast<std::size_t>(vocab);
  g.allowed.assign(cells, 0);
  g.next.assign(cells, 0);
  auto allow = [&](std::int32_t from, Token t, std::int32_t to) {
    const std::size_t cell = static_cast<std::size_t>(from) * static_cast<std::size_t>(vocab) +
                             static_cast<std::size_t>(t);
    g.allowed[cell] = 1;
    g.next[cell] = to;
  };
  for (std::size_t i = 0; i < 3; ++i) allow(0, r[i], 1);
  allow(1, r[3], 2);
  allow(1, r[4], 2);
  allow(1, r[5], 0);
  allow(2, r[0], 1);
  allow(2, eos, 2);
  return g;
}

}  // namespace

LanguageModelPair::LanguageModelPair(std::shared_ptr<const models::LanguageModel> target,
                                     std::shared_ptr<const models::LanguageModel> drafter,
                                     double row_tolerance, std::size_t cache_rows)
    : target_(std::move(target)),
      drafter_(std::move(drafter)),
      row_tolerance_(row_tolerance),
      cache_rows_(cache_rows) {
  if (!target_ || !drafter_)
    throw std::invalid_argument("a language-model pair needs a target and a drafter");
  if (target_->vocab() != drafter_->vocab())
    throw std::invalid_argument("target and drafter have different vocabularies");
}

std::vector<double> LanguageModelPair::logits(bool target, std::span<const Token> sequence) const {
  for (std::size_t i = 0; i < sequence.size(); ++i) {
    if (sequence[i] < 0 || sequence[i] >= vocab())
      throw std::invalid_argument("token " + std::to_string(sequence[i]) + " at position " +
                                  std::to_string(i) + " is outside the vocabulary [0, " +
                                  std::to_string(vocab()) + ")");
  }
  std::vector<Token> key{target ? 1 : 0};
  key.insert(key.end(), sequence.begin(), sequence.end());
  {
    const std::lock_guard lock(cache_mutex_);
    if (const auto it = cache_.find(key); it != cache_.end()) return *it->second;
  }
  auto row = std::make_shared<const std::vector<double>>(
      log_row(target ? *target_ : *drafter_, sequence, row_tolerance_));
  const std::lock_guard lock(cache_mutex_);
  if (cache_.size() >= cache_rows_) cache_.clear();
  cache_.emplace(std::move(key), row);
  return *row;
}

std::vector<double> LanguageModelPair::target_logits(std::span<const Token> sequence) const {
  return logits(true, sequence);
}

std::vector<double> LanguageModelPair::draft_logits(std::span<const Token> sequence) const {
  return logits(false, sequence);
}

std::vector<Token> encode_prompt(const models::LanguageModel& model, std::string_view text) {
  std::vector<Token> out{model.begin_token()};
  std::istringstream words{std::string(text)};
  for (std::string word; words >> word;) {
    Token found = kNoToken;
    for (Token t = 0; t < model.vocab() && found == kNoToken; ++t) {
      const std::string piece = model.token_text(t);
      if (piece == word || piece == " " + word) found = t;
    }
    if (found == kNoToken)
      throw std::invalid_argument("prompt word '" + word + "' is no token of " + model.name() +
                                  " (give the tokenizer, or a prompt of its token texts)");
    out.push_back(found);
  }
  return out;
}

std::vector<generation::GenerationCase> live_generation_cases(
    std::shared_ptr<const generation::ModelPair> pair, const models::LanguageModel& target,
    Token end_token, std::string_view drafter, std::span<const Token> prompt) {
  using generation::Request;
  using generation::Semantics;
  if (end_token == kNoToken)
    throw std::invalid_argument("the live generation requests need the model's end token");
  const std::vector<Token> ranked = ranked_after(target, prompt, end_token, 6);
  const std::vector<Token> p(prompt.begin(), prompt.end());
  std::vector<generation::GenerationCase> cases;
  // top-k 2 (3 where penalties must reorder the likeliest tokens): a few branches per draw, so
  // every loop's law is enumerable; temperatures below 1 make the drafter confident enough to
  // draft (loops.hpp: kDraftConfidence), so blocks hold the drafted tokens the faults mishandle.
  auto named = [](std::string name, Semantics semantics) {
    Request r;
    r.name = std::move(name);
    r.semantics = semantics;
    return r;
  };
  auto add = [&](Request r, std::int32_t top_k, double temperature) {
    r.prompt = p;
    r.eos = {end_token};
    r.sampling.top_k = top_k;
    r.sampling.temperature = temperature;
    r.sampling.order = generation::native_order(r.semantics);
    r.max_new_tokens = 4;
    cases.push_back({std::string(drafter) + "/" + r.name, pair, std::move(r)});
  };
  {
    Request r = named("stops_vllm", Semantics::vllm);
    r.stop = {ranked[0]};
    r.logit_bias = {{end_token, 2.0}};  // the end token among the likeliest two, often
    r.min_tokens = 1;
    add(r, 2, 0.8);
  }
  // The likeliest word biased up and penalized as it recurs: repetition, frequency, presence.
  auto penalized = [&](std::string name, Semantics semantics, double repetition, double frequency,
                       double presence) {
    Request r = named(std::move(name), semantics);
    r.repetition_penalty = repetition;
    r.frequency_penalty = frequency;
    r.presence_penalty = presence;
    r.logit_bias = {{ranked[0], 3.0}};
    return r;
  };
  {
    Request r = penalized("penalties_vllm", Semantics::vllm, 1.3, 0.5, 0.3);
    r.logit_bias.push_back({end_token, -3.0});
    add(r, 3, 0.6);
  }
  {
    Request r = named("grammar_vllm", Semantics::vllm);
    r.grammar = ranked_grammar(target.vocab(), ranked, end_token);
    add(r, 2, 1.0);
  }
  {
    Request r = penalized("penalties_hf", Semantics::hf, 1.5, 0.0, 0.0);
    r.min_tokens = 1;
    add(r, 3, 0.6);
  }
  {
    Request r = penalized("penalties_llama_cpp", Semantics::llama_cpp, 1.3, 0.5, 0.3);
    r.penalty_last_n = 3;
    add(r, 3, 0.6);
  }
  return cases;
}

generation::GenerationCheckResult run_live_generation(const LiveGenerationOptions& options,
                                                      std::ostream& progress) {
  const models::ModelSet set = models::load_models(options.models);
  const std::vector<Token> prompt = encode_prompt(*set.target, options.prompt);
  std::vector<generation::GenerationCase> cases;
  std::string drafters;
  for (const models::NamedModel& d : set.drafters) {
    auto pair =
        std::make_shared<const LanguageModelPair>(set.target, d.model, options.row_tolerance);
    for (generation::GenerationCase& c :
         live_generation_cases(pair, *set.target, set.end_token, d.name, prompt))
      cases.push_back(std::move(c));
    drafters += " " + d.name + " (" + d.model->name() + ")";
  }
  progress << "live generation: " << cases.size() << " requests on " << set.description << "\n";
  generation::GenerationCheckResult result =
      generation::run_generation_check(std::move(cases), options.check, progress);
  result.models = set.description + "; drafters:" + drafters + "; prompt \"" +
                  models::render_tokens(*set.target, prompt) + "\"";
  return result;
}

}  // namespace tev::live
