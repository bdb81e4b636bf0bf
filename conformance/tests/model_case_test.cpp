// Model cases (format_version 2): the reader's refusals, the judge's checks of a sample, verdicts
// on samples from the suite's own q-based verifiers, and what the emitted cases can detect.
#include <gtest/gtest.h>

#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <nlohmann/json.hpp>
#include <sstream>

#include "conformance/emit.hpp"
#include "conformance/tests/test_helpers.hpp"
#include "conformance/model_judge.hpp"
#include "judging/sampled_law.hpp"

namespace tev::conformance {
namespace {

using nlohmann::json;
using test_helpers::message_of;

// V = 2, D = 1: rows for prefixes [], [0], [1]; listed out of order on purpose.
json good_case() {
  return json::parse(R"({"format_version": 2, "case_id": "m", "vocab": 2, "depth": 1, "samples": 4,
    "drafting": {"policy": "iid", "width": 2},
    "rows": [{"prefix": [1], "p": [0.5, 0.5], "q": [0.9, 0.1]},
             {"prefix": [], "p": [0.25, 0.75], "q": [0.5, 0.5]},
             {"prefix": [0], "p": {"tokens": [0], "probs": [0.2]}, "q": [1.0, 0.0]}]})");
}

void expect_rejected(const std::function<void(json&)>& edit, const std::string& expected) {
  json j = good_case();
  edit(j);
  const std::string message = message_of([&] { parse_model_case(j.dump(), "cases.jsonl:7"); });
  EXPECT_NE(message.find("cases.jsonl:7"), std::string::npos)
      << "accepted, or no file:line, for: " << expected << " / " << message;
  EXPECT_NE(message.find(expected), std::string::npos) << message;
}

TEST(ModelCaseFormat, ReadsRowsKeyedByPrefixInAnyOrder) {
  const ModelCase c = parse_model_case(good_case().dump(), "x");
  EXPECT_EQ(c.id, "m");
  EXPECT_EQ(c.depth, 1);
  EXPECT_EQ(c.pair.horizon(), 2);
  ASSERT_TRUE(c.drafting.has_value());
  EXPECT_EQ(c.drafting->policy, drafts::DraftPolicy::iid_children);
  EXPECT_EQ(c.drafting->width, 2);
  EXPECT_DOUBLE_EQ(c.pair.p(std::vector<Token>{})[1], 0.75);
  EXPECT_DOUBLE_EQ(c.pair.q(std::vector<Token>{1})[0], 0.9);
  EXPECT_DOUBLE_EQ(c.pair.p(std::vector<Token>{0})[1],
                   0.8);  // sparse: the rest on the unlisted token
}

TEST(ModelCaseFormat, RejectsEveryKindOfMalformedCase) {
  expect_rejected([](json& j) { j["rows"].erase(0); },
                  "no row for prefix [1] (1 of the 3 prefixes");
  expect_rejected([](json& j) { j["rows"][0]["prefix"] = {0}; },
                  "prefix [0] already has a row (rows[0])");
  expect_rejected(
      [](json& j) {
        j["rows"][0]["prefix"] = {0, 1};
      },
      "deeper than the case's depth 1");
  expect_rejected([](json& j) { j["rows"][0]["prefix"] = {2}; },
                  "prefix token 0 is 2, outside [0, 1]");
  expect_rejected(
      [](json& j) {
        j["rows"][1]["p"] = {0.3, 0.75};
      },
      "rows[1] (prefix []) p: row sums to");
  expect_rejected([](json& j) { j["rows"][1]["q"] = {-0.5, 1.5}; }, "finite and non-negative");
  expect_rejected(
      [](json& j) {
        j["rows"][1]["q"] = {0.5, 0.25, 0.25};
      },
      "dense row has 3 entries, vocab is 2");
  expect_rejected([](json& j) { j["rows"][1].erase("q"); }, "missing field \"q\"");
  expect_rejected([](json& j) { j["rows"].push_back(j["rows"][0]); },
                  "rows has 4 entries; a depth-1 case over 2 tokens has 3 prefixes");
  expect_rejected([](json& j) { j["rows"][2] = 3; }, "a row entry must be an object");
  expect_rejected([](json& j) { j["depth"] = 0; }, "depth is 0, outside [1, 11]");
  expect_rejected([](json& j) { j["depth"] = 12; }, "depth is 12, outside [1, 11]");
  expect_rejected(
      [](json& j) {
        j["vocab"] = 4097;
        j["depth"] = 2;
      },
      "cells this case may hold");
  expect_rejected([](json& j) { j["vocab"] = 1; }, "vocab is 1, outside");
  expect_rejected([](json& j) { j["drafting"]["policy"] = "beam"; },
                  "is not one of chain, independent-chains, iid, without-replacement, top-k");
  expect_rejected(
      [](json& j) {
        j["drafting"] = {{"policy", "chain"}, {"width", 2}};
      },
      "its width is 1");
  expect_rejected([](json& j) { j["drafting"]["width"] = 0; },
                  "drafting width is 0, outside [1, 64]");
  expect_rejected([](json& j) { j["format_version"] = 1; },
                  "format_version 1 is a fixed-tree case");
  expect_rejected([](json& j) { j.erase("samples"); }, "missing field \"samples\"");
  EXPECT_NE(message_of([] {
              parse_model_case("{\"format_version\": 2, \"case", "f:3");
            }).find("f:3: not valid JSON"),
            std::string::npos);
}

TEST(ModelCaseFormat, ReaderKeepsFileLinesAndRefusesMixedFiles) {
  std::istringstream in(good_case().dump() + "\n\n" + good_case().dump() + "\n");
  ModelCaseReader reader(in, "cases.jsonl");
  ASSERT_TRUE(reader.next().has_value());
  EXPECT_NE(message_of([&] {
              reader.next();
            }).find("cases.jsonl:3: case_id \"m\" already used on line 1"),
            std::string::npos);
  std::istringstream fixed(
      R"({"format_version": 1, "case_id": "t", "vocab": 2, "parents": [-1], "tokens": [null], "probs": [[0.5, 0.5]], "samples": 1})");
  ModelCaseReader wrong(fixed, "mixed.jsonl");
  EXPECT_NE(message_of([&] {
              wrong.next();
            }).find("mixed.jsonl:1: format_version 1 is a fixed-tree case"),
            std::string::npos);
}

TEST(ModelCaseFormat, EmittedCasesReadBackAndCoverEveryPolicyAndDrafterKind) {
  const auto lines = emit_model_cases({.cases = 8, .samples = 10});
  ASSERT_EQ(lines.size(), 8u);
  std::set<drafts::DraftPolicy> policies;
  std::set<std::string> drafters;
  for (std::size_t k = 0; k < lines.size(); ++k) {
    const ModelCase c = parse_model_case(lines[k], "emitted:" + std::to_string(k));
    ASSERT_TRUE(c.drafting.has_value());
    policies.insert(c.drafting->policy);
    for (drafts::DrafterKind d :
         {drafts::DrafterKind::perturbed, drafts::DrafterKind::drafts_forbidden_tokens,
          drafts::DrafterKind::misses_target_tokens}) {
      if (c.label.find("drafter=" + drafts::drafter_name(d)) != std::string::npos)
        drafters.insert(drafts::drafter_name(d));
    }
    // Rows survive a round trip through the writer.
    const ModelCase again =
        parse_model_case(write_model_case(c.id, c.label, c.pair, c.drafting, c.samples), "again");
    for (std::size_t i = 0; i < c.pair.prefixes(); ++i) {
      const std::vector<Token> prefix = c.pair.prefix(i);
      for (Token t = 0; t < c.pair.vocab(); ++t) {
        EXPECT_NEAR(again.pair.p(prefix)[static_cast<std::size_t>(t)],
                    c.pair.p(prefix)[static_cast<std::size_t>(t)], 1e-15);
        EXPECT_NEAR(again.pair.q(prefix)[static_cast<std::size_t>(t)],
                    c.pair.q(prefix)[static_cast<std::size_t>(t)], 1e-15);
      }
    }
  }
  EXPECT_EQ(policies.size(), 5u);
  EXPECT_EQ(drafters.size(), 3u);
}

TEST(ModelJudge, RefusesMalformedSamplesAndCountsImpossibleOnes) {
  const ModelCase c = parse_model_case(good_case().dump(), "x");
  ModelCaseJudge judge(c, 1, 0);
  const auto refused = [&](const std::string& line) {
    return message_of([&] { judge.add_line(line, "samples.jsonl:5"); });
  };
  EXPECT_NE(refused(R"({"case_id": "m", "accepted": [0, 1], "bonus": 0})")
                .find("samples.jsonl:5: a block of 3 tokens"),
            std::string::npos);
  EXPECT_NE(refused(R"({"case_id": "m", "accepted": [2], "bonus": 0})")
                .find("accepted[0] is 2, outside [0, 1]"),
            std::string::npos);
  EXPECT_NE(refused(R"({"case_id": "m", "accepted": [], "bonus": -1})")
                .find("bonus is -1, outside [0, 1]"),
            std::string::npos);
  EXPECT_NE(refused(R"({"case_id": "x", "accepted": [], "bonus": 0})")
                .find("where case \"m\" was expected"),
            std::string::npos);
  EXPECT_NE(refused(R"({"case_id": "m", "accepted": []})").find("must be an object with"),
            std::string::npos);
  // The diagnostic tree must stay within D, hold the accepted path and have distinct siblings.
  const std::string too_deep =
      R"({"case_id": "m", "accepted": [0], "bonus": 1, "tree": {"parents": [-1, 0, 1], "tokens": [null, 0, 1]}})";
  EXPECT_NE(refused(too_deep).find("deeper than the case's D = 1"), std::string::npos);
  const std::string off_path =
      R"({"case_id": "m", "accepted": [1], "bonus": 1, "tree": {"parents": [-1, 0], "tokens": [null, 0]}})";
  EXPECT_NE(refused(off_path).find("accepted token 1 at position 0 is not a drafted child there"),
            std::string::npos);
  const std::string repeated =
      R"({"case_id": "m", "accepted": [], "bonus": 1, "tree": {"parents": [-1, 0, 0], "tokens": [null, 0, 0]}})";
  EXPECT_NE(refused(repeated).find("same token 0"), std::string::npos);
  EXPECT_EQ(judge.lines(), 0u);  // refusals are not counted
  judge.add_line(
      R"({"case_id": "m", "accepted": [0], "bonus": 1, "tree": {"parents": [-1, 0, 0], "tokens": [null, 0, 1]}})",
      "s:1");
  EXPECT_EQ(judge.trees(), 1u);
  EXPECT_EQ(judge.tree_nodes(), 2u);
  EXPECT_EQ(judge.impossible(), 0u);

  json zero = good_case();
  zero["rows"][1]["p"] = {0.0, 1.0};  // token 0 is impossible at the root, and q cannot draft it
  zero["rows"][1]["q"] = {0.0, 1.0};
  const ModelCase z = parse_model_case(zero.dump(), "x");
  ModelCaseJudge judge_z(z, 1, 0);
  EXPECT_NE(
      message_of([&] {
        judge_z.add_line(
            R"({"case_id": "m", "accepted": [], "bonus": 1, "tree": {"parents": [-1, 0], "tokens": [null, 0]}})",
            "s:2");
      }).find("drafted token 0 after prefix [] has q = 0 there"),
      std::string::npos);
  judge_z.add_line(R"({"case_id": "m", "accepted": [0], "bonus": 1})", "s:3");
  EXPECT_EQ(judge_z.impossible(), 1u);
  EXPECT_NE(judge_z.first_impossible().find("s:3"), std::string::npos);
}

// Sample lines as an outside engine prints them, from one of the suite's own sampled-draft verifiers.
// With `reuse_lag` l > 0, sample s with s mod 2l >= l replays the draws (drafts and verification)
// of sample s − l, as two generators used in turn that each replay their last state once.
std::vector<std::string> sample_lines(const ModelCase& c, drafts::SampledVerifierId id,
                                      std::uint64_t n, std::uint32_t seed,
                                      std::uint64_t reuse_lag = 0) {
  std::vector<std::string> lines;
  const judging::SampledPlan plan{seed, 0, n, 1};
  PhiloxChooser verify({seed, Stream::verifier, 0, 0});
  for (std::uint64_t s = 0; s < n; ++s) {
    const std::uint64_t drawn =
        reuse_lag > 0 && s % (2 * reuse_lag) >= reuse_lag ? s - reuse_lag : s;
    judging::PhiloxNodeChoosers choosers = judging::node_choosers(c.pair, plan, drawn);
    drafts::LazyDrafts drafts(c.pair, *c.drafting, choosers);
    verify.restart({seed, Stream::verifier, 0, drawn});
    std::vector<Token> block = drafts::run_sampled_verifier(id, drafts, verify, c.pair.vocab());
    const Token bonus = block.back();
    block.pop_back();
    lines.push_back(json{{"case_id", c.id}, {"accepted", block}, {"bonus", bonus}}.dump());
  }
  return lines;
}

ModelReport judge_report(const std::vector<std::string>& emitted,
                         const std::vector<drafts::SampledVerifierId>& ids,
                         std::uint64_t reuse_lag = 0) {
  std::vector<ModelCase> cases;
  for (const std::string& line : emitted) cases.push_back(parse_model_case(line, "emitted"));
  std::vector<ModelCaseJudge> judges;
  for (std::size_t k = 0; k < cases.size(); ++k) {
    judges.emplace_back(cases[k], 1, static_cast<std::uint32_t>(k));
    for (const std::string& line : sample_lines(cases[k], ids[k], cases[k].samples, 5, reuse_lag))
      judges.back().add_line(line, "s");
  }
  return judge_models(judges, judging::VerdictPolicy{});
}

judging::Verdict judge_verifier(const std::vector<std::string>& emitted,
                                const std::vector<drafts::SampledVerifierId>& ids) {
  return judge_report(emitted, ids).overall;
}

// Fixed seeds, alpha = 1e-3, 40,000 samples per case (the default model-case budget).
TEST(ModelJudge, ExactQBasedVerifiersPassAndAMutantFails) {
  const auto emitted = emit_model_cases({.cases = 4, .samples = 40000});
  using Id = drafts::SampledVerifierId;
  // m0, m1 chains; m2 independent chains; m3 i.i.d. children.
  EXPECT_EQ(
      judge_verifier(emitted, {Id::speculative_sampling, Id::speculative_sampling,
                               Id::rejection_with_replacement, Id::rejection_with_replacement}),
      judging::Verdict::exact_saturated);
  EXPECT_EQ(model_verdict_text(judging::Verdict::exact_saturated), "exact (marginally)");
  EXPECT_EQ(
      judge_verifier(emitted, {Id::speculative_sampling, Id::speculative_sampling,
                               Id::rejection_with_replacement, Id::mutant_bonus_from_target_row}),
      judging::Verdict::not_exact);
}

TEST(ModelJudge, TooFewSamplesAreInconclusiveNeverExact) {
  const auto emitted = emit_model_cases({.cases = 1, .samples = 1});
  EXPECT_EQ(judge_verifier(emitted, {drafts::SampledVerifierId::speculative_sampling}),
            judging::Verdict::inconclusive);
}

// By enumeration: each emitted case's hinted verifier is exact on it, and each planted bug of the
// example verifier that is also a core mutant (on the with-replacement cases, where the example's
// code is the core's) has predicted χ² power ≥ 0.99 on some case at the default budget and the
// level the verdict tests each case at. Prints the table docs/commands/conformance.md quotes.
TEST(ModelEmit, DefaultBudgetPowersThePlantedBugs) {
  const ModelEmitConfig config;
  const auto emitted = emit_model_cases(config);
  const double level = judging::VerdictPolicy{}.chi_square_level(emitted.size());
  using Id = drafts::SampledVerifierId;
  const Id bugs[] = {Id::mutant_residual_not_renormalized, Id::mutant_cumulative_ratio_without_min,
                     Id::mutant_bonus_from_target_row, Id::mutant_shared_sibling_uniform};
  std::map<Id, double> best_power;
  std::cout << "level " << level << ", " << config.samples << " samples per case\n";
  for (std::size_t k = 0; k < emitted.size(); ++k) {
    const ModelCase c = parse_model_case(emitted[k], "emitted");
    const std::vector<double> reference = c.pair.sequence_law();
    const auto groups = stats::node_groups(static_cast<std::int32_t>(reference.size() / 4), 4);
    const judging::SampledExactLaw exact = judging::enumerate_marginal(
        c.pair, {drafts::exact_verifier_for(c.drafting->policy), *c.drafting});
    EXPECT_LE(exact.tv, judging::kSampledExactTolerance) << c.label;
    std::cout
        << c.id << " " << c.drafting->label() << "  exact verifier E[L] " << exact.mean_length
        << "  TV@99% "
        << judging::detectable_tv(reference, groups, config.samples, level, 0.99).value_or(-1.0)
        << "\n";
    const drafts::DraftPolicy policy = c.drafting->policy;
    if (policy == drafts::DraftPolicy::without_replacement || policy == drafts::DraftPolicy::top_k)
      continue;  // the example's code is not the core mutant's there
    for (Id bug : bugs) {
      if (bug == Id::mutant_cumulative_ratio_without_min && policy != drafts::DraftPolicy::chain)
        continue;  // a chain bug in the example
      const judging::SampledExactLaw law = judging::enumerate_marginal(c.pair, {bug, *c.drafting});
      const double power = stats::chi_square_power(reference, law.law, groups,
                                                   static_cast<double>(config.samples), level);
      best_power[bug] = std::max(best_power[bug], power);
      std::cout << "   " << drafts::sampled_verifier_info(bug).name << ": exact TV " << law.tv
                << ", power " << power << "\n";
    }
  }
  for (Id bug : bugs) EXPECT_GE(best_power[bug], 0.99) << drafts::sampled_verifier_info(bug).name;
}

// Exact verifiers whose samples 4k+2 and 4k+3 replay the draws of samples 4k and 4k+1 (lag 2,
// two generators in turn): each block's law is exact, every case's lag-2 test at phase 0 rejects
// and the case is not exact; the same verifiers without the replay pass every test of
// independence (the test above). Fixed seeds, alpha = 1e-3, 2 cases x 40,000 samples.
TEST(ModelJudge, ABlockReplayedTwoSamplesLaterIsNotExact) {
  const auto emitted = emit_model_cases({.cases = 2, .samples = 40000});
  using Id = drafts::SampledVerifierId;
  const ModelReport report =
      judge_report(emitted, {Id::speculative_sampling, Id::speculative_sampling}, 2);
  EXPECT_EQ(report.overall, judging::Verdict::not_exact);
  for (const ModelCaseResult& r : report.cases) {
    ASSERT_EQ(r.evidence.iid_tests.size(), stats::kIidTests) << r.id;
    const stats::IidTest& lag2 = r.evidence.iid_tests[stats::serial_test_index(2, 0)];
    EXPECT_EQ(lag2.name, "pairs (i, i+2), i mod 4 < 2");
    EXPECT_LT(lag2.result.p_value, 1e-9)
        << r.id << ": " << stats::iid_tests_text(r.evidence.iid_tests);
    EXPECT_EQ(r.decision.verdict, judging::Verdict::not_exact) << r.id;
  }
  const ModelReport clean =
      judge_report(emitted, {Id::speculative_sampling, Id::speculative_sampling});
  EXPECT_EQ(clean.overall, judging::Verdict::exact_saturated);
  for (const ModelCaseResult& r : clean.cases) {
    ASSERT_EQ(r.evidence.iid_tests.size(), stats::kIidTests) << r.id;
    ASSERT_TRUE(judging::stated_tv(r.evidence).has_value());
    EXPECT_LE(*judging::stated_tv(r.evidence), 0.05) << r.id;
  }
}

}  // namespace
}  // namespace tev::conformance
