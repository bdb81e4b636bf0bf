#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>

#include "conformance/case_io.hpp"
#include "conformance/emit.hpp"
#include "conformance/judge.hpp"
#include "core/choosers.hpp"
#include "core/verifier_catalog.hpp"

namespace tev::conformance {
namespace {

using nlohmann::json;

// root --0--> a, root --1--> b over V = 3; rows dense.
json good_case() {
  return json::parse(R"({"format_version": 1, "case_id": "t", "vocab": 3, "parents": [-1, 0, 0],
    "tokens": [null, 0, 1], "probs": [[0.5, 0.3, 0.2], [0.1, 0.2, 0.7], [0.6, 0.3, 0.1]], "samples": 4})");
}

// Parses the case after one edit and expects an InputError whose message contains `expected`.
void expect_rejected(const std::function<void(json&)>& edit, const std::string& expected) {
  json j = good_case();
  edit(j);
  try {
    parse_case(j.dump(), "cases.jsonl:7");
    FAIL() << "accepted a case that should fail with: " << expected;
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("cases.jsonl:7"), std::string::npos) << message;
    EXPECT_NE(message.find(expected), std::string::npos) << message;
  }
}

TEST(CaseFormat, ReadsAGoodCase) {
  const Case c = parse_case(good_case().dump(), "x");
  EXPECT_EQ(c.id, "t");
  EXPECT_EQ(c.tree.size(), 3);
  EXPECT_EQ(c.samples, 4u);
  EXPECT_DOUBLE_EQ(c.rows.row(2)[0], 0.6);
}

TEST(CaseFormat, RejectsEveryKindOfMalformedCase) {
  expect_rejected([](json& j) { j["parents"] = {-1, 2, 1}; }, "not reachable from the root");
  expect_rejected(
      [](json& j) {
        j["parents"] = {-1, 0, 9};
      },
      "node 2 parent is 9, outside [-1, 2]");
  expect_rejected([](json& j) { j["parents"] = {-1, 2, 2}; }, "invalid parent 2");
  expect_rejected([](json& j) { j["tokens"] = {nullptr, 1, 1}; }, "same token 1");
  expect_rejected(
      [](json& j) {
        j["tokens"] = {nullptr, 0, 3};
      },
      "node 2 token is 3, outside [0, 2]");
  expect_rejected([](json& j) { j["tokens"] = {0, 0, 1}; }, "tokens[0] (the root) must be null");
  expect_rejected([](json& j) { j["probs"][1] = {0.5, 0.5}; }, "dense row has 2 entries");
  expect_rejected([](json& j) { j["probs"][1] = {0.1, 0.2, 0.8}; }, "not 1 within");
  expect_rejected([](json& j) { j["probs"][1] = {-0.1, 0.4, 0.7}; }, "finite and non-negative");
  expect_rejected(
      [](json& j) {
        j["probs"][0] = {{"tokens", {0}}, {"probs", {0.5}}};
      },
      "does not list child token 1");
  expect_rejected(
      [](json& j) {
        j["probs"][0] = {{"tokens", {0, 1, 1}}, {"probs", {0.1, 0.1, 0.1}}};
      },
      "lists token 1 twice");
  expect_rejected(
      [](json& j) {
        j["probs"][0] = {{"tokens", {0, 1}}, {"probs", {0.7, 0.6}}};
      },
      "> 1");
  expect_rejected(
      [](json& j) {
        j["probs"][0] = {{"tokens", {0, 1, 5}}, {"probs", {0.3, 0.3, 0.1}}};
      },
      "sparse token 2 is 5, outside [0, 2]");
  expect_rejected([](json& j) { j["vocab"] = 1; }, "vocab is 1, outside [2, 16777216]");
  expect_rejected([](json& j) { j["format_version"] = 2; }, "format_version 2 is a model case");
  expect_rejected([](json& j) { j["format_version"] = 6; },
                  "format_version 6 is not supported (expected 1 or 3)");
  expect_rejected([](json& j) { j.erase("samples"); }, "missing field \"samples\"");
  expect_rejected([](json& j) { j["samples"] = 0; }, "samples is 0, outside [1, 9007199254740992]");
  expect_rejected([](json& j) { j["probs"] = {{0.5, 0.3, 0.2}}; }, "one entry per node");
  expect_rejected([](json& j) { j["vocab"] = "three"; }, "vocab must be an integer");
}

TEST(CaseFormat, RejectsTruncatedAndNonJsonLines) {
  const std::string line = good_case().dump();
  EXPECT_THROW(parse_case(line.substr(0, line.size() / 2), "f:1"), InputError);
  EXPECT_THROW(parse_case("NaN", "f:1"), InputError);
  EXPECT_THROW(parse_case("[1, 2]", "f:1"), InputError);
  // Found by fuzz_case_reader: a number too large for a double escaped as a non-InputError.
  std::string overflow = line;
  overflow.replace(overflow.find("0.5"), 3, "0.053e0128814");
  EXPECT_THROW(parse_case(overflow, "f:1"), InputError);
}

TEST(CaseFormat, SparseRowsSpreadTheRestUniformly) {
  json j = good_case();
  j["vocab"] = 10;
  // Lists the two children (0.5 + 0.3); 0.2 remains over 8 unlisted tokens: 0.025 each.
  j["probs"] = {{{"tokens", {0, 1}}, {"probs", {0.5, 0.3}}},
                std::vector<double>(10, 0.1),
                std::vector<double>(10, 0.1)};
  const Case c = parse_case(j.dump(), "x");
  EXPECT_DOUBLE_EQ(c.rows.row(0)[0], 0.5);
  EXPECT_DOUBLE_EQ(c.rows.row(0)[9], 0.025);
}

TEST(CaseFormat, EmittedCasesReadBackWithTheirKinds) {
  EmitConfig config;
  config.samples = 10;
  const auto lines = emit_cases(config);
  ASSERT_EQ(lines.size(), 8u);
  bool deep = false, wide = false, sparse_large = false;
  for (std::size_t k = 0; k < lines.size(); ++k) {
    const Case c = parse_case(lines[k], "emitted:" + std::to_string(k));
    deep = deep || c.tree.max_depth() >= 6;
    for (NodeId v = 0; v < c.tree.size(); ++v) wide = wide || c.tree.child_count[v] >= 4;
    sparse_large = sparse_large ||
                   (c.tree.vocab >= 50000 && lines[k].find("\"tokens\":[") != std::string::npos);
  }
  EXPECT_TRUE(deep);
  EXPECT_TRUE(wide);
  EXPECT_TRUE(sparse_large);
}

// Sample lines as an engine would print them, from one of our own verifiers.
std::vector<std::string> sample_lines(const Case& c, VerifierId id, std::uint64_t n) {
  std::vector<std::string> lines;
  PhiloxChooser chooser({5, Stream::verifier, 0, 0});
  for (std::uint64_t s = 0; s < n; ++s) {
    chooser.restart({5, Stream::verifier, 0, s});
    const Block b = run_verifier(id, c.tree, c.rows, chooser);
    lines.push_back(
        json{{"case_id", c.id}, {"accepted", c.tree.path_tokens(b.exit)}, {"bonus", b.bonus}}
            .dump());
  }
  return lines;
}

judging::Verdict judge_verifier(const Case& c, VerifierId id) {
  std::vector<CaseJudge> judges;
  judges.emplace_back(c, 1, 0);
  for (const std::string& line : sample_lines(c, id, c.samples)) judges.back().add_line(line, "s");
  return judge(judges, judging::VerdictPolicy{}).overall;
}

// Three verdicts at alpha = 1e-3 with 50,000 samples from a fixed seed (fewer cannot guarantee
// TV 0.05 for two consecutive blocks: inconclusive).
TEST(Judge, GivesEachKindOfVerifierItsVerdict) {
  EmitConfig config;
  config.samples = 50000;
  const Case c = parse_case(emit_cases(config)[1], "ddtree case");
  EXPECT_EQ(judge_verifier(c, VerifierId::tree_exit), judging::Verdict::exact_saturated);
  EXPECT_EQ(judge_verifier(c, VerifierId::first_child_chain),
            judging::Verdict::exact_not_saturated);
  EXPECT_EQ(judge_verifier(c, VerifierId::mutant_bonus_from_full_row), judging::Verdict::not_exact);
}

// One sample cannot detect any contamination at the policy's level: the case is inconclusive
// (exit 4), never exact, even though the sample itself is a valid TEV block.
TEST(Judge, TooFewSamplesAreInconclusiveNeverExact) {
  EmitConfig config;
  config.samples = 1;
  const Case c = parse_case(emit_cases(config)[1], "ddtree case");
  const judging::Verdict v = judge_verifier(c, VerifierId::tree_exit);
  EXPECT_EQ(v, judging::Verdict::inconclusive);
  EXPECT_EQ(judging::verdict_exit_code(v), 4);
}

TEST(Judge, ImpossibleEventsAndBadSamples) {
  json j = good_case();
  j["probs"][1] = {0.0, 0.3, 0.7};  // after token 0, token 0 has zero probability
  const Case c = parse_case(j.dump(), "x");
  CaseJudge judge_one(c, 1, 0);
  judge_one.add_line(R"({"case_id": "t", "accepted": [2], "bonus": 0})",
                     "s:1");  // 2 is not a drafted child
  judge_one.add_line(R"({"case_id": "t", "accepted": [0], "bonus": 0})",
                     "s:2");  // zero-probability bonus
  judge_one.add_line(R"({"case_id": "t", "accepted": [], "bonus": 7})",
                     "s:3");  // outside the vocabulary
  judge_one.add_line(R"({"case_id": "t", "accepted": [1], "bonus": 2})", "s:4");  // fine
  EXPECT_EQ(judge_one.impossible(), 3u);
  EXPECT_NE(judge_one.first_impossible().find("s:1"), std::string::npos);
  EXPECT_NE(judge_one.first_impossible().find("invalid path"), std::string::npos);
  EXPECT_THROW(judge_one.add_line(R"({"case_id": "other", "accepted": [], "bonus": 0})", "s:5"),
               InputError);
  EXPECT_THROW(judge_one.add_line(R"({"case_id": "t", "accepted": [0]})", "s:6"), InputError);
  EXPECT_THROW(judge_one.add_line(R"({"case_id": "t", "accepted": ["a"], "bonus": 0})", "s:7"),
               InputError);
  EXPECT_THROW(judge_one.add_line("{\"case_id\": \"t\", \"acc", "s:8"), InputError);
  EXPECT_THROW(judge_one.add_line(R"({"case_id": "t", "accepted": [], "bonus": 1e999})", "s:9"),
               InputError);
  std::vector<CaseJudge> judges = {judge_one};
  // 4 lines counted, the case asks for 4: judged, and not exact because of the impossible events.
  EXPECT_EQ(judge(judges, judging::VerdictPolicy{}).overall, judging::Verdict::not_exact);
  CaseJudge short_one(c, 1, 0);
  short_one.add_line(R"({"case_id": "t", "accepted": [1], "bonus": 2})", "s:1");
  std::vector<CaseJudge> short_judges = {short_one};
  EXPECT_THROW(judge(short_judges, judging::VerdictPolicy{}),
               InputError);  // 1 sample where 4 were asked for
}

}  // namespace
}  // namespace tev::conformance
