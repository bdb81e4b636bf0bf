// The public library as an engine sees it (only <tevsuite/check.hpp>): verdicts of a drawing
// verifier, its planted bug and a seeded verifier, the per-case results, a model verifier, the
// exact law on a case of one's own, and case lines read back.
#include <tevsuite/check.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>

#include "public_verifiers.hpp"

namespace {

using namespace tevsuite;
using namespace public_verifiers;

// Fewer samples than the default (40,000: the fewest at which two consecutive blocks' test still
// guarantees TV 0.05), and the sparse case over V = 64: the verdicts below are decided by
// enumeration (the drawing verifiers) or are far from the line, quick.
TreeCheckOptions small_options() {
  TreeCheckOptions options;
  options.samples = 40000;
  options.large_vocab = 64;
  options.large_vocab_factor = 1;
  options.threads = 2;
  return options;
}

// The library that runs answers the version of the headers it was built with, major.minor.patch.
TEST(PublicCheck, TheLibrarysVersionIsTheHeaders) {
  EXPECT_EQ(tevsuite::version(), TEVSUITE_VERSION_STRING);
  EXPECT_EQ(tevsuite::version(), std::to_string(TEVSUITE_VERSION_MAJOR) + "." +
                                     std::to_string(TEVSUITE_VERSION_MINOR) + "." +
                                     std::to_string(TEVSUITE_VERSION_PATCH));
}

TEST(PublicCheck, TargetWalkIsExactAndSaturatedByEnumerationAndSampling) {
  const Report report = check_tree_verifier(drawing(target_walk), small_options());
  EXPECT_EQ(report.verdict, Verdict::exact_saturated) << describe(report);
  EXPECT_EQ(report.verdict_text, "exact and saturated");
  EXPECT_EQ(report.first_failing(), nullptr);
  ASSERT_EQ(report.cases.size(), 8u);
  for (const CaseResult& c : report.cases) {
    ASSERT_TRUE(c.exact_tv.has_value()) << c.id << ": " << c.not_enumerated;
    EXPECT_LE(*c.exact_tv, report.exact_tolerance) << c.id;
    EXPECT_EQ(c.samples, 40000u);
    EXPECT_GT(c.p_value, 0.0);
    EXPECT_GE(c.p_holm, c.p_value);
    ASSERT_TRUE(c.mean_length && c.ceiling && c.detectable_tv && c.saturation_p_holm);
    EXPECT_GT(*c.ceiling, 1.0);
  }
}

TEST(PublicCheck, FullRowBonusIsNotExactWithItsExactTv) {
  const Report report = check_tree_verifier(drawing(target_walk_full_row_bonus), small_options());
  ASSERT_EQ(report.verdict, Verdict::not_exact);
  const CaseResult* failing = report.first_failing();
  ASSERT_NE(failing, nullptr);
  EXPECT_EQ(failing->verdict, Verdict::not_exact);
  EXPECT_NE(describe(report).find("first failing case: " + failing->id), std::string::npos)
      << describe(report);
  // Enumeration sees the bug on every case it can enumerate.
  const auto enumerated_bug = [&](const CaseResult& c) {
    return c.exact_tv && *c.exact_tv > report.exact_tolerance;
  };
  EXPECT_TRUE(std::any_of(report.cases.begin(), report.cases.end(), enumerated_bug));
}

TEST(PublicCheck, SeededVerifierIsJudgedBySampling) {
  TreeCheckOptions options = small_options();
  options.samples =
      100000;  // 20,000 cannot guarantee the policy's TV in every direction: inconclusive
  const Report report = check_tree_verifier(root_bonus, options);
  EXPECT_EQ(report.verdict, Verdict::exact_not_saturated) << describe(report);
  for (const CaseResult& c : report.cases) {
    EXPECT_FALSE(c.exact_tv.has_value());
    EXPECT_FALSE(c.not_enumerated.empty());
  }
  options.samples = 50;
  EXPECT_EQ(check_tree_verifier(root_bonus, options).verdict, Verdict::inconclusive);
}

// 100,000 samples a case (the default), the sparse case over V = 64 (this walk reads whole rows).
TEST(PublicCheck, BatchedWalkIsExactAndSaturated) {
  TreeCheckOptions options = small_options();
  options.samples = 100000;
  const Report report = check_tree_verifier_batched(target_walk_batch, options, 50000);
  EXPECT_EQ(report.verdict, Verdict::exact_saturated) << describe(report);
  for (const CaseResult& c : report.cases)
    EXPECT_EQ(c.not_enumerated, "a batched verifier: no enumeration");
  // The same run on one thread: the verifier's seeds and the completions do not depend on threads.
  options.threads = 1;
  const Report one = check_tree_verifier_batched(target_walk_batch, options, 50000);
  for (std::size_t k = 0; k < report.cases.size(); ++k)
    EXPECT_EQ(report.cases[k].p_value, one.cases[k].p_value);
}

// An InterruptPoll is called on the thread that runs the check, and what it throws ends the check
// and reaches the caller: here once the last case's samples are answered, so the check stops in
// its completion or judging (the rest of the work), never returning a report.
TEST(PublicCheck, AnInterruptPollStopsTheCheckOnItsCallersThread) {
  struct Interrupted {};
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<bool> answered{false}, elsewhere{false};
  std::atomic<int> polls{0};
  const InterruptPoll poll([&] {
    elsewhere = elsewhere || std::this_thread::get_id() != caller;
    ++polls;
    if (answered) throw Interrupted{};
  });
  const auto verifier = [&](const TreeCase& c, std::uint64_t first, std::uint64_t count,
                            std::uint64_t seed) {
    if (c.id == "c7") answered = true;  // one call per case (batch 0): the last case answered
    return target_walk_batch(c, first, count, seed);
  };
  EXPECT_THROW(check_tree_verifier_batched(verifier, small_options(), 0), Interrupted);
  EXPECT_TRUE(answered);
  EXPECT_GT(polls, 0);
  EXPECT_FALSE(elsewhere) << "only the caller's thread polls";
}

TEST(PublicCheck, BadBatchesAreRefusedNamingCaseAndSample) {
  const auto refused = [](auto&& spoil) {
    try {
      check_tree_verifier_batched(
          [&](const TreeCase& c, std::uint64_t first, std::uint64_t count, std::uint64_t seed) {
            BlockBatch b = target_walk_batch(c, first, count, seed);
            spoil(b, c);
            return b;
          },
          small_options(), 1000);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_EQ(refused([](BlockBatch& b, const TreeCase&) {
              b.bonus.pop_back();
            }).find("case c0, samples 0..999: a batch of 1000 needs"),
            0u);
  EXPECT_EQ(refused([](BlockBatch& b, const TreeCase& c) { b.bonus[3] = c.vocab; }),
            "case c0, sample 3: bonus token 16 outside [0, V)");
  EXPECT_EQ(refused([](BlockBatch& b, const TreeCase&) { b.accepted[0] = -7; }),
            "case c0, sample 0: accepted token -7 outside [0, V)");
  EXPECT_EQ(refused([](BlockBatch& b, const TreeCase&) {
              b.accepted[0] = -1;
              b.accepted[1] = 0;
            }),
            "case c0, sample 0: accepted token 0 after the -1 padding");
}

TEST(PublicCheck, VerifierExceptionsReachTheCaller) {
  EXPECT_THROW(
      check_tree_verifier(
          [](const TreeCase&, Randomness&) -> Block { throw std::runtime_error("engine failed"); },
          small_options()),
      std::runtime_error);
}

TEST(PublicCheck, ModelVerifierBonusFromPIsExactFromQIsNot) {
  ModelCheckOptions options;
  options.threads = 2;
  const Report exact = check_model_verifier(
      [](const ModelCase& c, Randomness& r) {
        return Block{{}, draw_from(c.p({}), r.uniform())};
      },
      options);
  EXPECT_EQ(exact.verdict, Verdict::exact_saturated) << describe(exact);
  EXPECT_EQ(exact.verdict_text, "exact (marginally)");
  const Report bug = check_model_verifier(
      [](const ModelCase& c, Randomness& r) {
        return Block{{}, draw_from(c.q({}), r.uniform())};
      },
      options);
  EXPECT_EQ(bug.verdict, Verdict::not_exact);
  EXPECT_NE(describe(bug).find("first failing case"), std::string::npos);
}

TEST(PublicCheck, ModelCasesCarryTheirDraftingHint) {
  ModelCheckOptions options;
  options.samples = 10;
  std::atomic<int> hinted = 0, other_depth = 0;
  check_model_verifier(
      [&](const ModelCase& c, Randomness& r) {
        hinted += c.drafting.has_value();
        other_depth += c.drafting && c.drafting->depth != c.depth;
        return Block{{}, draw_from(c.p({}), r.uniform())};
      },
      options);
  EXPECT_GT(hinted.load(), 0);
  EXPECT_EQ(other_depth.load(), 0);
}

// Engine-shaped cases: a verifier that processes the logits by the case's parameters (with
// tevsuite's reference) is exact and saturated; one that ignores them is not, on every case
// (small_options: V = 64 for the sparse case), by enumeration: its blocks that the processed target
// cannot produce count in the exact TV.
TEST(PublicCheck, EngineInputsMustBeProcessedAsTheCaseSays) {
  TreeCheckOptions options = small_options();
  options.engine_inputs = true;
  const Report exact = check_tree_verifier(drawing([](const TreeCase& c, Draws& d) {
                                             EXPECT_TRUE(c.probs.empty() && c.sampling.has_value());
                                             return engine_walk(c, d, true);
                                           }),
                                           options);
  EXPECT_EQ(exact.verdict, Verdict::exact_saturated) << describe(exact);
  const Report bug = check_tree_verifier(
      drawing([](const TreeCase& c, Draws& d) { return engine_walk(c, d, false); }), options);
  EXPECT_EQ(bug.verdict, Verdict::not_exact);
  for (const CaseResult& c : bug.cases) {
    EXPECT_EQ(c.verdict, Verdict::not_exact) << c.id << " " << c.label;
    ASSERT_TRUE(c.exact_tv.has_value()) << c.id << ": " << c.not_enumerated;
    EXPECT_GT(*c.exact_tv, 0.01) << c.id << " " << c.label;
  }
}

// engine_order: a case the engine does not offer is left out; the others are judged in the order
// the engine's sampler applies, the one the verifier sees. By enumeration: a walk in that order is
// exact (TV 0), one in the case's stated order is not exactly where the two orders' rows differ.
TEST(PublicCheck, EngineOrderLeavesOutWhatTheEngineDoesNotOfferAndJudgesTheRestInItsOrder) {
  TreeCheckOptions options = small_options();
  options.engine_inputs = true;
  std::mutex mutex;
  // each case as stated, from a check of 1 sample a case
  std::map<std::string, SamplingParams> stated;
  TreeCheckOptions record = options;
  record.samples = 1;
  check_tree_verifier(drawing([&](const TreeCase& c, Draws& d) {
                        const std::lock_guard lock(mutex);
                        stated.emplace(std::string(c.id), *c.sampling);
                        return engine_walk(c, d, true);
                      }),
                      record);
  const EngineOrder min_p_first_only =
      [](const SamplingParams& request,
         std::span<const SamplingParams> batch) -> std::optional<FilterOrder> {
    EXPECT_EQ(batch.size(), 1u);
    if (request.order == FilterOrder::top_p_full_and_top_k) return std::nullopt;
    return FilterOrder::min_p_first;
  };
  options.engine_order = &min_p_first_only;
  const Report exact = check_tree_verifier(drawing([](const TreeCase& c, Draws& d) {
                                             EXPECT_EQ(c.sampling->order, FilterOrder::min_p_first);
                                             return engine_walk(c, d, true);
                                           }),
                                           options);
  std::vector<std::string> offered;
  for (const auto& [id, params] : stated)
    if (params.order != FilterOrder::top_p_full_and_top_k) offered.push_back(id);
  std::vector<std::string> judged;
  for (const CaseResult& c : exact.cases) {
    judged.push_back(c.id);
    ASSERT_TRUE(c.exact_tv.has_value()) << c.id;
    EXPECT_LT(*c.exact_tv, 1e-12) << c.id;
  }
  EXPECT_EQ(judged, offered);
  const Report bug = check_tree_verifier(drawing([&](const TreeCase& c, Draws& d) {
                                           TreeCase as_stated = c;
                                           as_stated.sampling = stated.at(std::string(c.id));
                                           return engine_walk(as_stated, d, true);
                                         }),
                                         options);
  int restated = 0;
  for (const CaseResult& c : bug.cases) {
    const bool differs = stated.at(c.id).order == FilterOrder::min_p_last;
    restated += differs ? 1 : 0;
    EXPECT_EQ(*c.exact_tv > 1e-3, differs) << c.id << " " << *c.exact_tv;
  }
  EXPECT_GT(restated, 0);
}

TEST(PublicCheck, EngineModelCasesProcessTargetAndDrafterApart) {
  ModelCheckOptions options;
  options.threads = 2;
  options.engine_inputs = true;
  const Report exact = check_model_verifier(
      [](const ModelCase& c, Randomness& r) { return first_position_speculative(c, r, false); },
      options);
  EXPECT_EQ(exact.verdict, Verdict::exact_saturated) << describe(exact);
  const Report bug = check_model_verifier(
      [](const ModelCase& c, Randomness& r) { return first_position_speculative(c, r, true); },
      options);
  EXPECT_EQ(bug.verdict, Verdict::not_exact) << describe(bug);
  // p and q are given only as logits on these cases.
  EXPECT_THROW(check_model_verifier(
                   [](const ModelCase& c, Randomness&) {
                     return Block{{}, static_cast<std::int32_t>(c.p({}).size())};
                   },
                   options),
               std::logic_error);
}

TEST(PublicProcessLogits, IsTheReferenceProcessing) {
  // p = (0.5, 0.3, 0.2) as logits; top_p 0.6 keeps the first two (mass before them 0, 0.5).
  const std::vector<double> logits = {std::log(0.5), std::log(0.3), std::log(0.2)};
  std::vector<double> out(3);
  process_logits(logits, {.top_p = 0.6}, out);
  EXPECT_NEAR(out[0], 0.625, 1e-12);
  EXPECT_NEAR(out[1], 0.375, 1e-12);
  EXPECT_EQ(out[2], 0.0);
  EXPECT_THROW(process_logits(logits, {.top_p = 0.0}, out), std::invalid_argument);
}

// A case of one's own: root with children on tokens 0 and 1 (p 0.5, 0.25), node 1 a leaf.
OwnedTreeCase small_case() {
  OwnedTreeCase c;
  c.id = "own";
  c.vocab = 3;
  c.parents = {-1, 0, 0};
  c.tokens = {-1, 0, 1};
  c.probs = {0.5, 0.25, 0.25, 0.2, 0.3, 0.5, 0.1, 0.1, 0.8};
  return c;
}

TEST(PublicExactLaw, TargetWalkMeetsTheCeilingAndTheBugDoesNot) {
  const ExactLaw walk = exact_law(drawing(target_walk), small_case());
  EXPECT_NEAR(walk.tv, 0.0, 1e-12);
  // 1 + C_p = 1 + P(node 1) + P(node 2) = 1 + 0.5 + 0.25.
  EXPECT_NEAR(walk.ceiling, 1.75, 1e-12);
  EXPECT_NEAR(walk.mean_length, walk.ceiling, 1e-12);
  EXPECT_NEAR(walk.completion_probability, 0.0, 1e-12);
  const ExactLaw bug = exact_law(drawing(target_walk_full_row_bonus), small_case());
  // The bug's root exits (prob 0.25) draw the bonus from the full root row, so with prob 0.75 the
  // bonus is a drafted child's token and the judge completes it.
  EXPECT_NEAR(bug.completion_probability, 0.25 * 0.75, 1e-12);
  EXPECT_GT(bug.tv, 0.01);
}

TEST(PublicExactLaw, MalformedCasesAreInvalidArguments) {
  OwnedTreeCase bad = small_case();
  bad.probs.pop_back();
  EXPECT_THROW(exact_law(drawing(target_walk), bad), std::invalid_argument);
  bad = small_case();
  bad.tokens[2] = 0;  // two siblings on one token
  EXPECT_THROW(exact_law(drawing(target_walk), bad), std::invalid_argument);
}

// A block outside the vocabulary is mass on no cell of the canonical law: every block there, TV 1;
// half the time there, the other half the target's own root token, TV 1/2.
TEST(PublicExactLaw, ImpossibleBlocksAreMassOnNoCell) {
  EXPECT_NEAR(exact_law(drawing([](const TreeCase& c, Draws&) {
                          return Block{{}, c.vocab};
                        }),
                        small_case())
                  .tv,
              1.0, 1e-12);
  const ExactLaw half =
      exact_law(drawing([](const TreeCase& c, Draws& d) {
                  const std::array<double, 2> coin{0.5, 0.5};
                  return d.categorical(coin) == 0 ? Block{{}, c.vocab} : target_walk(c, d);
                }),
                small_case());
  EXPECT_NEAR(half.tv, 0.5, 1e-12);
}

TEST(PublicCaseLines, EmittedLinesReadBackAsTheCasesTheCheckRuns) {
  const TreeCheckOptions options = small_options();
  const std::vector<std::string> lines = tree_case_lines(options);
  ASSERT_EQ(lines.size(), 8u);
  const OwnedTreeCase c = read_tree_case(lines[6]);
  EXPECT_EQ(c.vocab, options.large_vocab);
  EXPECT_EQ(c.probs.size(), c.parents.size() * static_cast<std::size_t>(c.vocab));
  EXPECT_EQ(c.parents[0], -1);
  EXPECT_EQ(exact_law(drawing(target_walk), c).tv <= 1e-12, true);
  EXPECT_THROW(read_tree_case("{\"format_version\": 1}"), std::invalid_argument);
}

// Batches of requests on the defaults (2 batches of 4 requests, 100,000 rounds): 8 requests and
// 12 pairs. One seed for every request's generator leaves each request exact and is caught by
// the pairs alone.
TEST(PublicBatchCheck, IndependentRequestsPassAndOneSeedForTheBatchIsCaught) {
  const Report exact = check_batch_verifier([](std::span<const TreeCase> requests, Randomness& r) {
    return batch_walk(requests, r, false);
  });
  EXPECT_EQ(exact.verdict, Verdict::exact_saturated) << describe(exact);
  ASSERT_EQ(exact.cases.size(), 20u);
  EXPECT_EQ(exact.cases[0].id, "k0/c0");
  EXPECT_EQ(exact.cases[8].id, "k0/c0 x c1");
  const Report bug = check_batch_verifier([](std::span<const TreeCase> requests, Randomness& r) {
    return batch_walk(requests, r, true);
  });
  EXPECT_EQ(bug.verdict, Verdict::not_exact);
  for (std::size_t k = 0; k < 8; ++k)
    EXPECT_EQ(bug.cases[k].verdict, Verdict::exact_saturated) << bug.cases[k].id;
  for (std::size_t k = 8; k < bug.cases.size(); ++k) {
    EXPECT_EQ(bug.cases[k].verdict, Verdict::not_exact) << bug.cases[k].id;
    EXPECT_EQ(bug.cases[k].label,
              "independence within a round and across rounds: dependent (a leak)");
  }
  EXPECT_NE(describe(bug).find("first failing pair: k0/c0 x c1: dependent (a leak)"),
            std::string::npos)
      << describe(bug);
}

TEST(PublicBatchCheck, ABatchOfOtherThanOneRowPerRequestIsRefused) {
  BatchCheckOptions options;
  options.rounds = 10;
  try {
    check_batch_verifier([](std::span<const TreeCase> requests,
                            Randomness& r) { return batch_walk(requests.first(3), r, false); },
                         options);
    FAIL() << "a batch of 3 rows for 4 requests was judged";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("batch k0, round 0: a batch of 4 needs 4 bonus tokens"),
              std::string::npos)
        << e.what();
  }
}

// An option outside its range is std::invalid_argument naming it, and no verifier is called.
TEST(PublicCheck, OptionsOutsideTheirRangesAreRefusedBeforeAnythingRuns) {
  std::atomic<int> calls = 0;
  const auto refused = [&](auto&& check) {
    try {
      check();
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    } catch (const std::exception& e) {
      return std::string("(ran: ") + e.what() + ")";
    }
    return std::string("(ran)");
  };
  const auto tree = [&](auto&& spoil) {
    TreeCheckOptions options = small_options();
    spoil(options);
    return refused([&] {
      check_tree_verifier(
          [&](const TreeCase&, Randomness&) -> Block {
            ++calls;
            throw std::runtime_error("the verifier ran");
          },
          options);
    });
  };
  EXPECT_EQ(tree([](TreeCheckOptions& o) { o.alpha = std::nan(""); }),
            "alpha must lie in [1e-12, 0.5], not nan");
  EXPECT_EQ(tree([](TreeCheckOptions& o) { o.alpha = 0.0; }),
            "alpha must lie in [1e-12, 0.5], not 0");
  EXPECT_EQ(tree([](TreeCheckOptions& o) { o.alpha = 1.5; }),
            "alpha must lie in [1e-12, 0.5], not 1.5");
  EXPECT_EQ(tree([](TreeCheckOptions& o) { o.samples = 0; }),
            "samples must lie in [1, 4294967296], not 0");
  EXPECT_EQ(tree([](TreeCheckOptions& o) { o.samples = (std::uint64_t{1} << 32) + 1; }),
            "samples must lie in [1, 4294967296], not 4294967297");
  EXPECT_EQ(tree([](TreeCheckOptions& o) { o.cases = 0; }), "cases must lie in [1, 100000], not 0");
  ModelCheckOptions model;
  model.alpha = -1.0;
  EXPECT_EQ(refused([&] {
              check_model_verifier_batched(
                  [&](const ModelCase&, std::uint64_t, std::uint64_t, std::uint64_t) -> BlockBatch {
                    ++calls;
                    throw std::runtime_error("the verifier ran");
                  },
                  model);
            }),
            "alpha must lie in [1e-12, 0.5], not -1");
  BatchCheckOptions batch;
  batch.requests = 65;
  EXPECT_EQ(refused([&] {
              check_batch_verifier(
                  [&](std::span<const TreeCase>, Randomness&) -> BlockBatch {
                    ++calls;
                    throw std::runtime_error("the verifier ran");
                  },
                  batch);
            }),
            "requests must lie in [1, 64], not 65");
  EXPECT_EQ(calls, 0);
}

TEST(PublicVerdict, NumberedAsTheExitCodes) {
  EXPECT_EQ(static_cast<int>(Verdict::exact_not_saturated), 3);
  EXPECT_EQ(verdict_text(Verdict::not_exact), "not exact");
  EXPECT_EQ(verdict_text(Verdict::error), "error");
}

}  // namespace
