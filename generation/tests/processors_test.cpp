// Each semantics' processors against values derived by hand from the formulas its engine uses.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "generation/request.hpp"

namespace tev::generation {
namespace {

// softmax of a row, the expected law when no filter is on.
std::vector<double> softmax(std::vector<double> x) {
  double total = 0.0;
  for (double& v : x) total += (v = std::isfinite(v) ? std::exp(v) : 0.0);
  for (double& v : x) v /= total;
  return x;
}

void expect_rows_near(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t a = 0; a < got.size(); ++a) EXPECT_NEAR(got[a], want[a], 1e-12) << "token " << a;
}

Request base(Semantics s) {
  Request r;
  r.name = "test";
  r.semantics = s;
  r.sampling.order = native_order(s);
  r.max_new_tokens = 8;
  return r;
}

TEST(Processors, VllmRepetitionCountsPromptAndOutputFrequencyOnlyOutput) {
  Request r = base(Semantics::vllm);
  r.prompt = {0};
  r.repetition_penalty = 2.0;
  r.frequency_penalty = 0.5;
  r.presence_penalty = 0.25;
  const std::vector<double> logits{1.0, -1.0, 0.5, 2.0};
  const std::vector<Token> output{1, 1, 2};
  // Token 0 (prompt only): 1/2. Token 1 (output twice): −1·2 − 0.5·2 − 0.25 = −3.25.
  // Token 2 (output once): 0.5/2 − 0.5 − 0.25 = −0.5. Token 3: untouched.
  const auto got = processed_row(r, logits, {output, 3, kUnconstrained});
  expect_rows_near(got, softmax({0.5, -3.25, -0.5, 2.0}));
}

TEST(Processors, HfRefusesFrequencyAndPresencePenalties) {
  Request r = base(Semantics::hf);
  r.frequency_penalty = 0.5;
  EXPECT_THROW(validate(r, 4), std::invalid_argument);
}

TEST(Processors, EachSemanticsRefusesAnotherFilterOrder) {
  Request r = base(Semantics::vllm);
  r.sampling.order = FilterOrder::min_p_last;
  EXPECT_THROW(validate(r, 4), std::invalid_argument);
  Request h = base(Semantics::hf);
  h.sampling.order = FilterOrder::min_p_first;
  EXPECT_THROW(validate(h, 4), std::invalid_argument);
}

TEST(Processors, MinTokensSuppressesEosAndStopInVllmEosOnlyInHf) {
  const std::vector<double> logits{0.0, 0.0, 0.0, 0.0};
  Request v = base(Semantics::vllm);
  v.eos = {3};
  v.stop = {2};
  v.min_tokens = 2;
  expect_rows_near(processed_row(v, logits, {{}, 1, kUnconstrained}), {0.5, 0.5, 0.0, 0.0});
  expect_rows_near(processed_row(v, logits, {{}, 2, kUnconstrained}), {0.25, 0.25, 0.25, 0.25});
  Request h = v;
  h.semantics = Semantics::hf;
  h.sampling.order = FilterOrder::min_p_last;
  expect_rows_near(processed_row(h, logits, {{}, 1, kUnconstrained}),
                   {1.0 / 3, 1.0 / 3, 1.0 / 3, 0.0});
}

TEST(Processors, LlamaCppCountsOnlyTheLastNTokensOfPromptAndOutput) {
  Request r = base(Semantics::llama_cpp);
  r.prompt = {0, 1};
  r.penalty_last_n = 2;
  r.frequency_penalty = 1.0;
  const std::vector<double> logits{0.0, 0.0, 0.0, 0.0};
  // Window = the last two of [0 1 2 2]: token 2 twice, tokens 0 and 1 outside it.
  const std::vector<Token> output{2, 2};
  expect_rows_near(processed_row(r, logits, {output, 2, kUnconstrained}),
                   softmax({0.0, 0.0, -2.0, 0.0}));
}

TEST(Processors, LlamaCppTempersAfterItsFilters) {
  // Top-k 2 on untempered logits keeps tokens 0 and 1; temperature 0.5 then doubles their gap.
  Request r = base(Semantics::llama_cpp);
  r.sampling.top_k = 2;
  r.sampling.temperature = 0.5;
  const std::vector<double> logits{1.0, 0.5, 0.0, -1.0};
  expect_rows_near(processed_row(r, logits, {{}, 0, kUnconstrained}),
                   softmax({2.0, 1.0, -INFINITY, -INFINITY}));
}

TEST(Processors, LogitBiasComesBeforeTheRepetitionPenaltyInVllm) {
  Request r = base(Semantics::vllm);
  r.repetition_penalty = 2.0;
  r.logit_bias = {{0, 1.0}};
  const std::vector<double> logits{-0.5, 0.0};
  const std::vector<Token> output{0};
  // (−0.5 + 1) / 2 = 0.25: biased first, then penalized as a positive logit.
  expect_rows_near(processed_row(r, logits, {output, 1, kUnconstrained}), softmax({0.25, 0.0}));
}

TEST(Processors, GrammarMasksForbiddenTokensAndAdvances) {
  Grammar g;
  g.states = 2;
  g.vocab = 3;
  g.allowed = {1, 1, 0, /* state 1 */ 0, 0, 1};
  g.next = {1, 1, 0, 0, 0, 0};
  Request r = base(Semantics::vllm);
  r.grammar = g;
  EXPECT_NO_THROW(validate(r, 3));
  const std::vector<double> logits{0.0, 0.0, 0.0};
  expect_rows_near(processed_row(r, logits, {{}, 0, g.state_after(std::vector<Token>{})}),
                   {0.5, 0.5, 0.0});
  const std::vector<Token> one{1};
  expect_rows_near(processed_row(r, logits, {one, 1, g.state_after(one)}), {0.0, 0.0, 1.0});
  EXPECT_EQ(g.first_forbidden(std::vector<Token>{0, 0}), std::optional<std::size_t>(1));
  EXPECT_EQ(g.state_after(std::vector<Token>{0, 0}), kUnconstrained);
}

TEST(Processors, ValidateNamesTheRequestAndTheParameter) {
  Request r = base(Semantics::vllm);
  r.name = "mine";
  r.eos = {7};
  try {
    validate(r, 4);
    FAIL() << "an EOS outside the vocabulary was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("request 'mine': EOS token 7"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace tev::generation
