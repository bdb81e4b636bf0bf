// The public generation check, through <tevsuite/generation.hpp> alone: plain generation drawn
// from the cases' own laws is exact, a loop that emits past a stop is not, and bad answers are
// refused naming the request and the generation. Statistical verdicts at the defaults: α = 1e-3
// family-wise, 40,000 generations per request, the default seed.
#include <gtest/gtest.h>
#include <tevsuite/generation.hpp>

#include <algorithm>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using tevsuite::GenerationCase;
using Sequences = std::vector<std::vector<std::int32_t>>;

bool ends(const tevsuite::GenerationRequest& r, std::int32_t t) {
  return std::find(r.eos.begin(), r.eos.end(), t) != r.eos.end() ||
         std::find(r.stop.begin(), r.stop.end(), t) != r.stop.end();
}

std::int32_t draw(const std::vector<double>& law, std::mt19937_64& rng) {
  return std::discrete_distribution<std::int32_t>(law.begin(), law.end())(rng);
}

// Plain generation with the engine's own generator; `tokens_per_round` tokens are drawn before
// the stop is looked for, as a loop that checks it only at a block's end would.
Sequences generate(const GenerationCase& c, std::uint64_t count, std::uint64_t seed,
                   std::size_t tokens_per_round) {
  const tevsuite::GenerationRequest& r = c.request();
  std::mt19937_64 rng(seed);
  Sequences out(count);
  for (std::vector<std::int32_t>& output : out) {
    bool stopped = false;
    while (!stopped && static_cast<std::int32_t>(output.size()) < r.max_new_tokens) {
      for (std::size_t k = 0;
           k < tokens_per_round && static_cast<std::int32_t>(output.size()) < r.max_new_tokens;
           ++k) {
        const std::int32_t t = draw(c.target_law(output), rng);
        output.push_back(t);
        stopped = stopped || ends(r, t);
      }
    }
  }
  return out;
}

TEST(PublicGeneration, PlainGenerationFromTheCasesLawsIsExact) {
  const tevsuite::Report report =
      tevsuite::check_generation([](const GenerationCase& c, std::uint64_t, std::uint64_t count,
                                    std::uint64_t seed) { return generate(c, count, seed, 1); });
  EXPECT_EQ(report.verdict, tevsuite::Verdict::exact_saturated) << report.description;
  EXPECT_EQ(report.verdict_text, "exact");
  ASSERT_EQ(report.cases.size(), tevsuite::generation_cases().size());
  for (const tevsuite::CaseResult& c : report.cases) {
    ASSERT_TRUE(c.detectable_tv.has_value()) << c.id;
    EXPECT_LE(*c.detectable_tv, 0.05) << c.id;
  }
}

TEST(PublicGeneration, TokensAfterAStopAreNotExactAndNamed) {
  const tevsuite::Report report =
      tevsuite::check_generation([](const GenerationCase& c, std::uint64_t, std::uint64_t count,
                                    std::uint64_t seed) { return generate(c, count, seed, 2); });
  EXPECT_EQ(report.verdict, tevsuite::Verdict::not_exact);
  EXPECT_NE(report.description.find("goes on after the stop token"), std::string::npos)
      << report.description;
}

TEST(PublicGeneration, BadAnswersAreRefusedNamingTheRequestAndGeneration) {
  const std::string first = tevsuite::generation_cases().front().request().id;
  auto refused = [](const tevsuite::GenerationLoop& loop) -> std::string {
    try {
      tevsuite::check_generation(loop, {.samples = 100});
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "accepted";
  };
  const std::string outside =
      refused([](const GenerationCase&, std::uint64_t, std::uint64_t count, std::uint64_t) {
        return Sequences(count, std::vector<std::int32_t>{99});
      });
  EXPECT_NE(outside.find("request '" + first + "', generation 0: [99]: token 99"),
            std::string::npos)
      << outside;
  const std::string endless =
      refused([](const GenerationCase& c, std::uint64_t, std::uint64_t count, std::uint64_t) {
        return Sequences(count, std::vector<std::int32_t>(
                                    static_cast<std::size_t>(c.request().max_new_tokens) + 1, 0));
      });
  EXPECT_NE(endless.find("more than max_new_tokens"), std::string::npos) << endless;
  const std::string short_answer =
      refused([](const GenerationCase&, std::uint64_t, std::uint64_t count, std::uint64_t) {
        return Sequences(count - 1, std::vector<std::int32_t>{0});
      });
  EXPECT_NE(short_answer.find("returned 99 sequences for generations 0 to 99"), std::string::npos)
      << short_answer;
}

TEST(PublicGeneration, GrammarForbiddenTokensAreRefused) {
  std::string grammar_id;
  for (const GenerationCase& c : tevsuite::generation_cases())
    if (c.request().grammar) grammar_id = c.request().id;
  ASSERT_FALSE(grammar_id.empty());
  try {
    tevsuite::check_generation(
        [&](const GenerationCase& c, std::uint64_t, std::uint64_t count, std::uint64_t seed) {
          if (c.request().id != grammar_id) return generate(c, count, seed, 1);
          const tevsuite::GenerationGrammar& g = *c.request().grammar;
          // The first token the grammar forbids at its start.
          std::int32_t t = 0;
          while (g.allowed[static_cast<std::size_t>(g.start * c.request().vocab + t)] != 0) ++t;
          return Sequences(count, std::vector<std::int32_t>{t});
        },
        {.samples = 100});
    FAIL() << "a grammar-forbidden token was judged";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("request '" + grammar_id + "', generation 0"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("the grammar forbids"), std::string::npos) << e.what();
  }
}

// A loop that implements vLLM's semantics alone: it refuses any other request, so it can pass only
// on the vLLM requests, which the selection leaves it.
TEST(PublicGeneration, ALoopOfOneSemanticsPassesOnItsRequests) {
  const auto vllm_only = [](const GenerationCase& c, std::uint64_t, std::uint64_t count,
                            std::uint64_t seed) {
    if (c.request().semantics != "vllm")
      throw std::logic_error("request '" + c.request().id + "' is not in vLLM's semantics");
    return generate(c, count, seed, 1);
  };
  EXPECT_THROW(tevsuite::check_generation(vllm_only, {.samples = 100}), std::logic_error);
  const tevsuite::Report report = tevsuite::check_generation(vllm_only, {.semantics = "vllm"});
  EXPECT_EQ(report.verdict, tevsuite::Verdict::exact_saturated) << report.description;
  std::vector<std::string> judged, selected;
  for (const tevsuite::CaseResult& c : report.cases) judged.push_back(c.id);
  for (const GenerationCase& c : tevsuite::generation_cases("vllm")) {
    EXPECT_EQ(c.request().semantics, "vllm");
    selected.push_back(c.request().id);
  }
  EXPECT_EQ(judged, selected);
  std::size_t others = 0;
  for (const GenerationCase& c : tevsuite::generation_cases())
    others += c.request().semantics == "vllm" ? 0 : 1;
  EXPECT_EQ(selected.size() + others, tevsuite::generation_cases().size());
  EXPECT_GT(others, 0u);
}

TEST(PublicGeneration, AnUnknownSemanticsIsRefusedListingTheKnownOnes) {
  for (const auto& attempt : std::vector<std::function<void()>>{
           [] { tevsuite::generation_cases("sglang"); },
           [] {
             tevsuite::check_generation(
                 [](const GenerationCase&, std::uint64_t, std::uint64_t count, std::uint64_t) {
                   return Sequences(count, std::vector<std::int32_t>{0});
                 },
                 {.semantics = "sglang"});
           }}) {
    try {
      attempt();
      ADD_FAILURE() << "an unknown semantics was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_STREQ(e.what(), "unknown semantics 'sglang': the known ones are vllm, hf, llama_cpp");
    }
  }
}

TEST(PublicGeneration, CasesHandOutTheirModelsLogitsAndLaws) {
  for (const GenerationCase& c : tevsuite::generation_cases()) {
    const auto vocab = static_cast<std::size_t>(c.request().vocab);
    const std::vector<std::vector<std::int32_t>> sequences{{}, {0, 1}};
    EXPECT_EQ(c.target_logits(sequences).size(), 2 * vocab);
    EXPECT_EQ(c.draft_logits(sequences).size(), 2 * vocab);
    const std::vector<double> law = c.target_law(std::vector<std::int32_t>{});
    double total = 0.0;
    for (double p : law) total += p;
    EXPECT_NEAR(total, 1.0, 1e-12) << c.request().id;
    const std::vector<std::vector<std::int32_t>> bad{{static_cast<std::int32_t>(vocab)}};
    EXPECT_THROW(c.target_logits(bad), std::invalid_argument);
  }
}

}  // namespace
