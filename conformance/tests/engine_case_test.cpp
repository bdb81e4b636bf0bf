// Engine-shaped cases (format_version 3 and 4): rows are the logits processed by the case's
// sampling parameters; the readers refuse what an engine could not mean; the emitted cases cover
// what their labels say, with every filter threshold clear of what it cuts.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "conformance/emit.hpp"
#include "conformance/tests/test_helpers.hpp"
#include "conformance/model_case.hpp"
#include "conformance/model_judge.hpp"

namespace tev::conformance {
namespace {

using nlohmann::json;
using test_helpers::message_of;

// The example of docs/protocol.md: a star with three children, temperature 0.7 and top-k 2.
json tree_case() {
  return json::parse(
      R"({"format_version": 3, "case_id": "e1", "vocab": 4, "parents": [-1, 0, 0, 0], "tokens": [null, 0, 1, 2],
    "samples": 100000, "sampling": {"temperature": 0.7, "top_k": 2},
    "logits": [[1.5, 0.25, -0.5, 0.0], [0.0, 0.0, 0.0, 0.0],
               {"tokens": [0, 3], "logits": [2.0, -1.0], "fill": -4.0}, [0.5, 0.5, 0.5, 0.5]]})");
}

json model_case() {
  return json::parse(R"({"format_version": 4, "case_id": "n", "vocab": 2, "depth": 1, "samples": 4,
    "sampling": {"target": {"temperature": 0.0}, "drafter": {"top_p": 0.5}},
    "rows": [{"prefix": [], "p_logits": [0.0, 1.0], "q_logits": [2.0, 1.0]},
             {"prefix": [0], "p_logits": [1.0, 0.0], "q_logits": {"tokens": [1], "logits": [3.0], "fill": 0.0}},
             {"prefix": [1], "p_logits": [0.5, 0.25], "q_logits": [0.0, 0.0]}]})");
}

std::vector<double> processed(std::vector<double> logits, const SamplingParams& params) {
  std::vector<double> out(logits.size());
  process_logits(logits, params, out);
  return out;
}

void expect_row(std::span<const double> got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t a = 0; a < got.size(); ++a) EXPECT_NEAR(got[a], want[a], 1e-12) << "token " << a;
}

TEST(EngineCases, TreeRowsAreTheProcessedLogits) {
  const Case c = parse_case(tree_case().dump(), "cases.jsonl:1");
  EXPECT_EQ(c.format_version, kEngineFormatVersion);
  const SamplingParams params{.temperature = 0.7, .top_k = 2};
  EXPECT_EQ(c.sampling, params);
  // The star keeps its node order (level order of a star is the input order).
  expect_row(c.rows.row(0), processed({1.5, 0.25, -0.5, 0.0}, params));
  expect_row(c.rows.row(2), processed({2.0, -4.0, -4.0, -1.0}, params));
  // Top-k 2 of equal logits keeps all four (ties at the k-th value).
  expect_row(c.rows.row(1), {0.25, 0.25, 0.25, 0.25});
  // Row 0: the root's drafted token 2 has no mass left: top-k removed it.
  EXPECT_EQ(c.rows.row(0)[2], 0.0);
}

TEST(EngineCases, ModelRowsAreProcessedByTheirOwnParameters) {
  const ModelCase c = parse_model_case(model_case().dump(), "cases.jsonl:1");
  EXPECT_EQ(c.format_version, kEngineModelFormatVersion);
  EXPECT_TRUE(c.target_sampling.greedy());
  const std::vector<Token> after0 = {0}, after1 = {1};
  expect_row(c.pair.p({}), {0.0, 1.0});  // greedy: the argmax
  expect_row(c.pair.p(after1), {1.0, 0.0});
  expect_row(c.pair.q({}), {1.0, 0.0});  // top-p 0.5: the first token already reaches it
  expect_row(c.pair.q(after0), {0.0, 1.0});
  expect_row(
      c.pair.q(after1),
      {1.0, 0.0});  // equal logits, ties by token id: the mass before token 1 is 0.5, not below
}

void expect_tree_refused(const std::function<void(json&)>& edit, const std::string& expected) {
  json j = tree_case();
  edit(j);
  const std::string message = message_of([&] { parse_case(j.dump(), "cases.jsonl:3"); });
  EXPECT_NE(message.find("cases.jsonl:3"), std::string::npos) << message;
  EXPECT_NE(message.find(expected), std::string::npos)
      << "expected \"" << expected << "\" in: " << message;
}

TEST(EngineCases, TheTreeReaderRefusesWhatAnEngineCouldNotMean) {
  expect_tree_refused([](json& j) { j["probs"] = j["logits"]; },
                      "gives its rows as \"logits\", not \"probs\"");
  expect_tree_refused([](json& j) { j.erase("logits"); }, "missing field \"logits\"");
  expect_tree_refused([](json& j) { j["logits"][0][1] = "x"; }, "logit 1 must be a number");
  expect_tree_refused([](json& j) { j["logits"][0].erase(3); },
                      "dense logit row has 3 entries, vocab is 4");
  expect_tree_refused([](json& j) { j["logits"][2].erase("fill"); }, "missing field \"fill\"");
  expect_tree_refused([](json& j) { j["logits"][2]["tokens"] = {0, 0}; }, "lists token 0 twice");
  expect_tree_refused(
      [](json& j) {
        j["logits"][2]["tokens"] = {0, 4};
      },
      "sparse token 1 is 4, outside [0, 3]");
  expect_tree_refused([](json& j) { j["sampling"]["top_n"] = 3; },
                      "unknown sampling parameter \"top_n\"");
  expect_tree_refused([](json& j) { j["sampling"]["temperature"] = -0.5; }, "temperature is -0.5");
  expect_tree_refused([](json& j) { j["sampling"]["top_k"] = -1; },
                      "top_k is -1, outside [0, 16777216]");
  expect_tree_refused([](json& j) { j["sampling"]["top_k"] = 1.5; }, "top_k must be an integer");
  expect_tree_refused([](json& j) { j["sampling"]["top_p"] = 0.0; },
                      "top_p is 0.0: must lie in (0, 1]");
  expect_tree_refused([](json& j) { j["sampling"]["top_p"] = 1.5; }, "top_p is 1.5");
  expect_tree_refused([](json& j) { j["sampling"]["min_p"] = 1.0; }, "min_p is 1");
  expect_tree_refused([](json& j) { j["sampling"]["order"] = "top_p_first"; },
                      "order must be min_p_first, min_p_last or top_p_full_and_top_k");
  expect_tree_refused([](json& j) { j["sampling"] = 0.7; }, "sampling must be an object");
  expect_tree_refused([](json& j) { j["format_version"] = 4; }, "is a model case");
  expect_tree_refused([](json& j) { j["format_version"] = 6; },
                      "format_version 6 is not supported (expected 1 or 3)");
}

TEST(EngineCases, TheModelReaderRefusesWhatAnEngineCouldNotMean) {
  auto refused = [](const std::function<void(json&)>& edit, const std::string& expected) {
    json j = model_case();
    edit(j);
    const std::string message = message_of([&] { parse_model_case(j.dump(), "m.jsonl:2"); });
    EXPECT_NE(message.find("m.jsonl:2"), std::string::npos) << message;
    EXPECT_NE(message.find(expected), std::string::npos)
        << "expected \"" << expected << "\" in: " << message;
  };
  refused([](json& j) { j["sampling"]["targets"] = json::object(); },
          "unknown key \"targets\" (known: target, drafter)");
  refused([](json& j) { j["sampling"]["drafter"]["min_p"] = -0.1; },
          "sampling drafter: min_p is -0.1");
  refused([](json& j) { j["rows"][0].erase("q_logits"); }, "missing field \"q_logits\"");
  refused([](json& j) { j["rows"][1]["p_logits"] = {1.0, true}; }, "logit 1 must be a number");
  refused([](json& j) { j["format_version"] = 3; }, "is a fixed-tree case");
}

// A format-4 block's reported tree is checked against the drafter's processed q: the drafter of
// model_case() keeps only token 0 at the root (top-p 0.5 of softmax(2, 1) = (0.73, 0.27)), so a
// tree drafting token 1 there is refused, while the same block without the tree is judged.
TEST(EngineCases, AReportedTreeIsCheckedAgainstTheProcessedDrafter) {
  const ModelCase c = parse_model_case(model_case().dump(), "m.jsonl:1");
  EXPECT_EQ(c.pair.q({})[1], 0.0);
  ModelCaseJudge judge(c, 1, 0);
  const std::string message = message_of([&] {
    judge.add_line(
        R"({"case_id": "n", "accepted": [], "bonus": 1, "tree": {"parents": [-1, 0], "tokens": [null, 1]}})",
        "s:1");
  });
  EXPECT_NE(message.find("drafted token 1 after prefix [] has q = 0 there"), std::string::npos)
      << message;
  judge.add_line(R"({"case_id": "n", "accepted": [], "bonus": 1})", "s:2");
  EXPECT_EQ(judge.lines(), 1u);
  EXPECT_EQ(judge.impossible(), 0u);
}

double smallest_margin(const json& logits_rows, std::int64_t vocab, const SamplingParams& params) {
  double margin = INFINITY;
  for (const json& r : logits_rows) {
    std::vector<double> row(static_cast<std::size_t>(vocab));
    if (r.is_array()) {
      row = r.get<std::vector<double>>();
    } else {
      std::fill(row.begin(), row.end(), r["fill"].get<double>());
      for (std::size_t k = 0; k < r["tokens"].size(); ++k)
        row[r["tokens"][k].get<std::size_t>()] = r["logits"][k].get<double>();
    }
    margin = std::min(margin, filter_margin(row, params));
  }
  return margin;
}

bool splits_drafted_children(const Case& c) {
  for (NodeId v = 0; v < c.tree.size(); ++v) {
    bool kept = false, removed = false;
    for (NodeId child = c.tree.first_child[v];
         child < c.tree.first_child[v] + c.tree.child_count[v]; ++child) {
      (c.rows.row(v)[static_cast<std::size_t>(c.tree.token[child])] > 0.0 ? kept : removed) = true;
    }
    if (kept && removed) return true;
  }
  return false;
}

// What each emitted case's label promises, checked on the case as read back.
TEST(EngineCases, EmittedTreeCasesCoverWhatTheySay) {
  const std::vector<std::string> lines = emit_engine_cases({.samples = 10});
  ASSERT_EQ(lines.size(), 8u);
  std::vector<Case> cases;
  for (const std::string& line : lines) {
    cases.push_back(parse_case(line, "emitted"));
    const json j = json::parse(line);
    EXPECT_GE(smallest_margin(j["logits"], j["vocab"], cases.back().sampling), kMinFilterMargin)
        << cases.back().label;
    // Logits are float32 values.
    const json& first = j["logits"][0];
    const double z = first.is_array() ? first[0].get<double>() : first["fill"].get<double>();
    EXPECT_EQ(z, static_cast<double>(static_cast<float>(z)));
  }
  // Some node has a drafted child that keeps mass and one that loses it: greedy at a star's root,
  // top-p between a node's children.
  for (std::size_t i : {1u, 2u}) EXPECT_TRUE(splits_drafted_children(cases[i])) << cases[i].label;
  EXPECT_EQ(cases[4].sampling.order, FilterOrder::min_p_last);
  for (std::size_t i : {0u, 2u, 6u})
    EXPECT_EQ(cases[i].sampling.order, FilterOrder::top_p_full_and_top_k) << cases[i].label;
  // Greedy, at temperature 0 and at a positive temperature below kGreedyTemperature: every row is one-hot.
  EXPECT_GT(cases[1].sampling.temperature, 0.0);
  for (std::size_t i : {1u, 3u, 5u}) {
    EXPECT_TRUE(cases[i].sampling.greedy()) << cases[i].label;
    for (NodeId v = 0; v < cases[i].tree.size(); ++v) {
      const auto row = cases[i].rows.row(v);
      EXPECT_EQ(std::count(row.begin(), row.end(), 1.0), 1) << cases[i].label << " row " << v;
    }
  }
  // The large vocabulary: min-p leaves at most the listed tokens.
  const Case& large = cases[7];
  EXPECT_EQ(large.tree.vocab, 50000);
  const auto root = large.rows.row(0);
  EXPECT_LE(std::count_if(root.begin(), root.end(), [](double p) { return p > 0.0; }), 16);
}

// Raw logits as an engine sees them: every row's largest logit lies ±[10, 30) away from 0, both
// signs occur, and the rows span more than log-probabilities of the same rows would at scale 1.
TEST(EngineCases, EmittedTreeCasesHoldRawLogits) {
  int positive = 0, negative = 0;
  for (const std::string& line : emit_engine_cases({.samples = 10})) {
    const Case c = parse_case(line, "emitted");
    const auto vocab = static_cast<std::size_t>(c.tree.vocab);
    for (NodeId v = 0; v < c.tree.size(); ++v) {
      const std::span<const double> row(c.logits.data() + static_cast<std::size_t>(v) * vocab,
                                        vocab);
      const double top = *std::max_element(row.begin(), row.end());
      EXPECT_GE(std::abs(top), 10.0 - 1e-5) << c.label;
      EXPECT_LT(std::abs(top), 30.0 + 1e-5) << c.label;
      (top > 0.0 ? positive : negative) += 1;
    }
  }
  EXPECT_GT(positive, 0);
  EXPECT_GT(negative, 0);
}

// Every parameter binds on verified rows (binds: at least kBindingMass of the block
// law moves at a node with drafted children) in at least three default cases, counted on the
// cases as read back.
TEST(EngineCases, EveryParameterBindsOnVerifiedRowsOfThreeDefaultCases) {
  std::map<Parameter, int> cases_bound;
  for (const std::string& line : emit_engine_cases({.samples = 10})) {
    const Case c = parse_case(line, "emitted");
    for (Parameter p : kParameters) cases_bound[p] += binds(c.tree, c.logits, c.sampling, p);
  }
  for (Parameter p : kParameters) EXPECT_GE(cases_bound[p], 3) << parameter_name(p);
}

TEST(EngineCases, EmittedModelCasesProcessTargetAndDrafterApart) {
  const std::vector<std::string> lines = emit_engine_model_cases({.cases = 8, .samples = 10});
  ASSERT_EQ(lines.size(), 8u);
  int differing = 0;
  for (const std::string& line : lines) {
    const ModelCase c = parse_model_case(line, "emitted");
    const json j = json::parse(line);
    for (const json& r : j["rows"]) {
      for (const auto& [key, params] :
           {std::pair{"p_logits", c.target_sampling}, std::pair{"q_logits", c.drafter_sampling}}) {
        EXPECT_GE(filter_margin(r[key].get<std::vector<double>>(), params), kMinFilterMargin)
            << c.label << " " << key;
      }
    }
    differing += c.target_sampling != c.drafter_sampling;
  }
  EXPECT_EQ(differing, 7);  // all but "min-p 0.2 for both"
  const ModelCase greedy = parse_model_case(lines[4], "emitted");
  EXPECT_TRUE(greedy.target_sampling.greedy());
  const auto root = greedy.pair.p({});
  EXPECT_EQ(std::count(root.begin(), root.end(), 1.0), 1);
}

}  // namespace
}  // namespace tev::conformance
