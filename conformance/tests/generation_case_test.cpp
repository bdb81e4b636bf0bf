// Generation cases (format_version 6): an emitted line reads back as the request and models it
// was written from, malformed cases are refused naming the problem, and answers that are not
// generations (outside the vocabulary, past max_new_tokens, a token the grammar forbids, ragged,
// empty, too many) are InputError naming the request and the generation, never samples.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "conformance/generation_case.hpp"
#include "conformance/generation_judge.hpp"
#include "generation/check.hpp"

namespace tev::conformance {
namespace {

namespace tg = generation;
using nlohmann::json;

TEST(GenerationCase, AnEmittedLineReadsBackAsItsRequestAndModels) {
  const std::vector<tg::GenerationCase> cases = tg::default_generation_cases();
  const std::vector<std::string> lines = emit_generation_cases({.samples = 7, .seed = 3});
  ASSERT_EQ(lines.size(), cases.size());
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const tg::GenerationCase& want = cases[k];
    const GenerationCase got = parse_generation_case(lines[k], "line");
    EXPECT_EQ(got.id, want.id);
    EXPECT_EQ(got.samples, 7u);
    EXPECT_EQ(got.seed, tg::loop_call_seed(3, k, 0));
    const tg::Request& a = got.generation.request;
    const tg::Request& b = want.request;
    EXPECT_EQ(a.semantics, b.semantics);
    EXPECT_EQ(a.prompt, b.prompt);
    EXPECT_EQ(a.sampling.temperature, b.sampling.temperature);
    EXPECT_EQ(a.sampling.top_k, b.sampling.top_k);
    EXPECT_EQ(a.sampling.top_p, b.sampling.top_p);
    EXPECT_EQ(a.sampling.min_p, b.sampling.min_p);
    EXPECT_EQ(a.sampling.order, b.sampling.order);
    EXPECT_EQ(a.repetition_penalty, b.repetition_penalty);
    EXPECT_EQ(a.frequency_penalty, b.frequency_penalty);
    EXPECT_EQ(a.presence_penalty, b.presence_penalty);
    EXPECT_EQ(a.penalty_last_n, b.penalty_last_n);
    EXPECT_EQ(a.logit_bias, b.logit_bias);
    EXPECT_EQ(a.min_tokens, b.min_tokens);
    EXPECT_EQ(a.eos, b.eos);
    EXPECT_EQ(a.stop, b.stop);
    EXPECT_EQ(a.max_new_tokens, b.max_new_tokens);
    ASSERT_EQ(a.grammar.has_value(), b.grammar.has_value());
    if (a.grammar) {
      EXPECT_EQ(a.grammar->allowed, b.grammar->allowed);
      EXPECT_EQ(a.grammar->next, b.grammar->next);
      EXPECT_EQ(a.grammar->start, b.grammar->start);
    }
    // The tables bit for bit, so plain generation's law is the check's own.
    const auto equal = [](std::span<const double> x, std::span<const double> y) {
      return std::equal(x.begin(), x.end(), y.begin(), y.end());
    };
    const tg::NgramPair& got_models = ngram_models(got.generation);
    const tg::NgramPair& want_models = ngram_models(want);
    EXPECT_TRUE(equal(got_models.target_table(), want_models.target_table()));
    EXPECT_TRUE(equal(got_models.draft_table(), want_models.draft_table()));
    EXPECT_EQ(tg::enumerate_generation(got.generation, tg::plain_loop()).law,
              tg::enumerate_generation(want, tg::plain_loop()).law);
  }
}

TEST(GenerationCase, TheSelectionEmitsOneSemantics) {
  for (const std::string& line :
       emit_generation_cases({.samples = 7, .semantics = tg::Semantics::hf})) {
    EXPECT_EQ(parse_generation_case(line, "line").generation.request.semantics, tg::Semantics::hf);
  }
}

// The message of parsing the first emitted line with `change` applied.
std::string refusal(const std::function<void(json&)>& change) {
  json j = json::parse(emit_generation_cases({.samples = 7}).front());
  change(j);
  try {
    parse_generation_case(j.dump(), "cases.jsonl:1");
  } catch (const InputError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(GenerationCase, MalformedCasesAreRefused) {
  const auto has = [](const std::string& message, const std::string& part) {
    return message.find(part) != std::string::npos;
  };
  std::string m = refusal([](json& j) { j["format_version"] = 2; });
  EXPECT_TRUE(has(m, "format_version 2 is not a generation case")) << m;
  m = refusal([](json& j) { j["target_logits"].erase(0); });
  EXPECT_TRUE(has(m, "target_logits must be an array of 36 rows")) << m;
  m = refusal([](json& j) { j["draft_logits"][3][1] = "x"; });
  EXPECT_TRUE(has(m, "draft_logits row 3")) << m;
  m = refusal([](json& j) { j["request"]["semantics"] = "sglang"; });
  EXPECT_TRUE(has(m, "unknown semantics 'sglang': the known ones are vllm, hf, llama_cpp")) << m;
  m = refusal([](json& j) { j["request"]["prompt"] = {1, 5}; });
  EXPECT_TRUE(has(m, "prompt token 5 is outside the vocabulary")) << m;
  m = refusal([](json& j) { j["request"]["max_new_tokens"] = 1; });
  EXPECT_TRUE(has(m, "min_tokens exceeds max_new_tokens")) << m;
  m = refusal([](json& j) {
    j["vocab"] = 5;
    j["request"]["max_new_tokens"] = 16;
  });
  EXPECT_TRUE(has(m, "exceeds the 1048576 sequences")) << m;
}

// The judge of the grammar request, and the message of one answer line given to it.
TEST(GenerationCase, BadAnswersNameTheRequestAndTheGeneration) {
  const std::vector<std::string> lines = emit_generation_cases({.samples = 2});
  std::vector<GenerationCase> cases;
  for (const std::string& line : lines) cases.push_back(parse_generation_case(line, "line"));
  const GenerationCase& grammar = cases[2];
  ASSERT_TRUE(grammar.generation.request.grammar.has_value());
  const auto answer = [&](const std::vector<std::string>& answers) -> std::string {
    GenerationCaseJudge judge(grammar, 0, 0);
    try {
      for (const std::string& a : answers) judge.add_line(a, "out:1");
    } catch (const InputError& e) {
      return e.what();
    }
    return "accepted";
  };
  const std::string at = "out:1 (request '" + grammar.id + "', generation ";
  const auto line = [&](const std::string& tokens) {
    return R"({"case_id": ")" + grammar.id + R"(", "tokens": )" + tokens + "}";
  };
  EXPECT_EQ(answer({line("[0, 9]")}),
            at + "0): token 9 at position 1 is outside the vocabulary [0, 5) in [0 9]");
  EXPECT_EQ(answer({line("[0, 2, 0, 2, 0]")}),
            at + "0): 5 tokens, more than max_new_tokens 4 (a loop that does not stop) in "
                 "[0 2 0 2 0]");
  EXPECT_EQ(answer({line("[0, 2]"), line("[2]")}),
            at + "1): the grammar forbids token 2 at position 0 in [2]");
  EXPECT_EQ(answer({line("[[0, 2]]")}),
            at + "0): its tokens must be a flat array of token ids, not an array of arrays (one "
                 "line per generation)");
  EXPECT_EQ(answer({line("[]")}),
            at + "0): an empty sequence (every generation emits at least one token)");
  EXPECT_EQ(answer({line("[0, 2, 4]"), line("[0, 2, 4]"), line("[0, 2, 4]")}),
            at + "2): more generations than the case's 2");
  EXPECT_EQ(answer({line("[0, 2, 4]"), line("[1, 3, 0, 2]")}), "accepted");
}

TEST(GenerationCase, ACaseWithoutAllItsGenerationsIsNotJudged) {
  const GenerationCase c =
      parse_generation_case(emit_generation_cases({.samples = 2}).front(), "line");
  std::vector<GenerationCaseJudge> judges;
  judges.emplace_back(c, 0, 0);
  judges.back().add_sequence(std::vector<Token>{0, 1, 4}, "out:1");
  EXPECT_THROW(judge_generations(judges, {}), InputError);
}

}  // namespace
}  // namespace tev::conformance
