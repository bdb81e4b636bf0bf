// The generation check's model pair over real language models (live/live_generation.hpp), on small
// models of the test's own: each row is the log of the model's normalized row, computed once and
// recomputed to the same numbers, the same from any thread; bad input is refused; the prompt and
// the requests are read off the target; and every exact loop is exact on the pair by enumeration.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <limits>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "live/live_generation.hpp"

namespace tev::live {
namespace {

// Rows a fixed function of the sequence's last token and its length; no mass on token 2 after
// token 1; each row's total `total` (a real model's rounding leaves it near 1, not at it). Token 0
// begins every context. Counts the rows it is asked for.
class TinyModel final : public models::LanguageModel {
 public:
  TinyModel(std::int32_t vocab, int shift, double total = 1.02)
      : vocab_(vocab), shift_(shift), total_(total) {}
  std::string name() const override { return "tiny-" + std::to_string(shift_); }
  std::int32_t vocab() const override { return vocab_; }
  std::string token_text(Token t) const override { return "w" + std::to_string(t); }
  Token begin_token() const override { return 0; }
  std::vector<double> next_row(std::span<const Token> context) const override {
    ++calls_;
    const auto last = static_cast<std::size_t>(context.empty() ? 0 : context.back());
    std::vector<double> row(static_cast<std::size_t>(vocab_));
    double sum = 0.0;
    for (std::size_t t = 0; t < row.size(); ++t) {
      row[t] =
          1.0 + static_cast<double>(
                    (3 * last + 5 * t + static_cast<std::size_t>(shift_) + context.size()) % 7);
      if (last == 1 && t == 2) row[t] = 0.0;
      sum += row[t];
    }
    for (double& p : row) p *= total_ / sum;
    return row;
  }
  std::size_t calls() const { return calls_.load(); }

 private:
  std::int32_t vocab_;
  int shift_;
  double total_;
  mutable std::atomic<std::size_t> calls_{0};
};

constexpr std::int32_t kVocab = 10;
constexpr Token kEnd = 9;

std::shared_ptr<const TinyModel> tiny(int shift, std::int32_t vocab = kVocab, double total = 1.02) {
  return std::make_shared<const TinyModel>(vocab, shift, total);
}

// The model's row after `sequence`, normalized, as log-probabilities (−∞ without mass).
std::vector<double> expected_logits(const models::LanguageModel& model,
                                    std::span<const Token> sequence) {
  std::vector<double> row = model.next_row(sequence);
  double sum = 0.0;
  for (double p : row) sum += p;
  for (double& p : row) p = p > 0.0 ? std::log(p / sum) : -std::numeric_limits<double>::infinity();
  return row;
}

const std::vector<std::vector<Token>> kSequences = {{0},          {0, 3},          {0, 1},
                                                    {0, 1, 4, 2}, {0, 7, 7, 7, 1}, {}};

TEST(LanguageModelPair, RowsAreTheLogOfEachModelsNormalizedRow) {
  const auto target = tiny(0), drafter = tiny(3);
  const LanguageModelPair pair(target, drafter, models::kModelRowTolerance);
  EXPECT_EQ(pair.vocab(), kVocab);
  bool differ = false;
  for (const std::vector<Token>& s : kSequences) {
    const std::vector<double> p = pair.target_logits(s), q = pair.draft_logits(s);
    const std::vector<double> want_p = expected_logits(*target, s),
                              want_q = expected_logits(*drafter, s);
    ASSERT_EQ(p.size(), static_cast<std::size_t>(kVocab));
    ASSERT_EQ(q.size(), static_cast<std::size_t>(kVocab));
    for (std::size_t t = 0; t < p.size(); ++t) {
      if (std::isinf(want_p[t])) {
        EXPECT_EQ(p[t], want_p[t]) << "token " << t;
      } else {
        EXPECT_NEAR(p[t], want_p[t], 1e-14) << "token " << t;
      }
      if (std::isinf(want_q[t])) {
        EXPECT_EQ(q[t], want_q[t]) << "token " << t;
      } else {
        EXPECT_NEAR(q[t], want_q[t], 1e-14) << "token " << t;
      }
      differ = differ || p[t] != q[t];
    }
  }
  EXPECT_TRUE(differ) << "the target's and the drafter's rows were never told apart";
  // After token 1 token 2 has no mass: −∞, so no processing can give it any.
  EXPECT_EQ(pair.target_logits(std::vector<Token>{0, 1})[2],
            -std::numeric_limits<double>::infinity());
}

TEST(LanguageModelPair, RowsAreComputedOnceAndRecomputedAlikeOnceDropped) {
  const auto target = tiny(0), drafter = tiny(3);
  const LanguageModelPair kept(target, drafter, models::kModelRowTolerance);
  for (int i = 0; i < 3; ++i) {
    for (const std::vector<Token>& s : kSequences) {
      kept.target_logits(s);
      kept.draft_logits(s);
    }
  }
  EXPECT_EQ(target->calls(), kSequences.size());
  EXPECT_EQ(drafter->calls(), kSequences.size());
  // A cache of one row drops every row but the last: each is recomputed, bit for bit.
  const LanguageModelPair dropping(tiny(0), tiny(3), models::kModelRowTolerance, 1);
  for (int i = 0; i < 2; ++i) {
    for (const std::vector<Token>& s : kSequences) {
      EXPECT_EQ(dropping.target_logits(s), kept.target_logits(s));
      EXPECT_EQ(dropping.draft_logits(s), kept.draft_logits(s));
    }
  }
}

TEST(LanguageModelPair, EveryThreadReadsTheSameRows) {
  const LanguageModelPair pair(tiny(0), tiny(3), models::kModelRowTolerance, 4);
  const LanguageModelPair serial(tiny(0), tiny(3), models::kModelRowTolerance);
  std::vector<std::vector<Token>> sequences;
  for (Token a = 0; a < kVocab; ++a)
    for (Token b = 0; b < kVocab; ++b) sequences.push_back({0, a, b});
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int k = 0; k < 4; ++k) {
    threads.emplace_back([&, k] {
      for (std::size_t i = 0; i < sequences.size(); ++i) {
        const std::vector<Token>& s =
            sequences[(i + 17 * static_cast<std::size_t>(k)) % sequences.size()];
        if (pair.target_logits(s) != serial.target_logits(s) ||
            pair.draft_logits(s) != serial.draft_logits(s))
          ++mismatches;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(mismatches.load(), 0);
}

TEST(LanguageModelPair, RefusesBadInput) {
  const double tolerance = models::kModelRowTolerance;
  EXPECT_THROW(LanguageModelPair(tiny(0), tiny(3, 8), tolerance), std::invalid_argument);
  EXPECT_THROW(LanguageModelPair(tiny(0), nullptr, tolerance), std::invalid_argument);
  EXPECT_THROW(LanguageModelPair(nullptr, tiny(3), tolerance), std::invalid_argument);
  const LanguageModelPair pair(tiny(0), tiny(3), tolerance);
  try {
    pair.target_logits(std::vector<Token>{0, kVocab});
    FAIL() << "a token outside the vocabulary was read";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "token 10 at position 1 is outside the vocabulary [0, 10)");
  }
  EXPECT_THROW(pair.draft_logits(std::vector<Token>{-1}), std::invalid_argument);
  // A row whose total is 2: a broken model, beyond the tolerance.
  const LanguageModelPair broken(tiny(0, kVocab, 2.0), tiny(3), tolerance);
  EXPECT_THROW(broken.target_logits(std::vector<Token>{0}), std::runtime_error);
  EXPECT_NO_THROW(broken.draft_logits(std::vector<Token>{0}));
}

TEST(LiveGeneration, APromptIsTheBeginTokenThenOneTokenPerWord) {
  const auto model = tiny(0);
  EXPECT_EQ(encode_prompt(*model, "w3  w7 w3"), (std::vector<Token>{0, 3, 7, 3}));
  EXPECT_EQ(encode_prompt(*model, ""), std::vector<Token>{0});
  try {
    encode_prompt(*model, "w3 zebra");
    FAIL() << "a word of no token was encoded";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("prompt word 'zebra' is no token of tiny-0"),
              std::string::npos)
        << e.what();
  }
}

TEST(LiveGeneration, TheRequestsAreReadOffTheTargetsRow) {
  const auto target = tiny(0);
  const auto pair =
      std::make_shared<const LanguageModelPair>(target, tiny(3), models::kModelRowTolerance);
  const std::vector<Token> prompt = encode_prompt(*target, "w3 w5");
  const std::vector<generation::GenerationCase> cases =
      live_generation_cases(pair, *target, kEnd, "d", prompt);
  std::vector<std::string> ids;
  for (const generation::GenerationCase& c : cases) ids.push_back(c.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"d/stops_vllm", "d/penalties_vllm", "d/grammar_vllm",
                                           "d/penalties_hf", "d/penalties_llama_cpp"}));
  // The stop word: the target's likeliest token after the prompt, the begin and end tokens aside.
  const std::vector<double> row = target->next_row(prompt);
  Token likeliest = kNoToken;
  for (Token t = 1; t < kEnd; ++t) {
    if (likeliest == kNoToken ||
        row[static_cast<std::size_t>(t)] > row[static_cast<std::size_t>(likeliest)])
      likeliest = t;
  }
  ASSERT_FALSE(cases.empty());
  EXPECT_EQ(cases[0].request.stop, std::vector<Token>{likeliest});
  for (const generation::GenerationCase& c : cases) {
    EXPECT_EQ(c.models, pair) << c.id;
    EXPECT_EQ(c.request.prompt, prompt) << c.id;
    EXPECT_EQ(c.request.eos, std::vector<Token>{kEnd}) << c.id;
    EXPECT_NO_THROW(generation::validate(c.request, kVocab)) << c.id;
  }
  EXPECT_THROW(live_generation_cases(pair, *target, kNoToken, "d", prompt), std::invalid_argument);
  // Six ranked tokens besides the begin and end tokens: a vocabulary of 8 at least.
  const auto small = tiny(0, 7);
  const auto small_pair =
      std::make_shared<const LanguageModelPair>(small, tiny(3, 7), models::kModelRowTolerance);
  EXPECT_THROW(live_generation_cases(small_pair, *small, 6, "d", std::vector<Token>{0}),
               std::invalid_argument);
}

// Whether a loop is exact is the enumeration's finding, so a few generations suffice.
TEST(LiveGeneration, ExactLoopsAreExactOnTheModelPairByEnumeration) {
  const auto target = tiny(0);
  const auto pair =
      std::make_shared<const LanguageModelPair>(target, tiny(3), models::kModelRowTolerance);
  std::ostringstream progress;
  const generation::GenerationCheckResult result = generation::run_generation_check(
      live_generation_cases(pair, *target, kEnd, "d", encode_prompt(*target, "w3 w5")),
      {.samples = 200}, progress);
  ASSERT_EQ(result.cases.size(), 5u);
  std::size_t exact = 0;
  for (const generation::LoopOutcome& l : result.loops) {
    if (!generation::is_exact_loop(l.loop)) continue;
    ++exact;
    EXPECT_LE(l.max_exact_tv, result.policy.exact_tolerance) << l.loop.name;
    EXPECT_FALSE(l.caught_by_enumeration) << l.loop.name;
  }
  EXPECT_EQ(exact, 4u);
}

}  // namespace
}  // namespace tev::live
