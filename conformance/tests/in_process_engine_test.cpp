// Engine-shaped cases (format 3) through the in-process check, on the default budgets (8 cases,
// 100,000 samples each, the V = 50,000 case 400,000; family α 1e-3; fixed seed): a TEV that
// processes the logits as the case says is exact and saturated, and the ways of getting the
// processing wrong are not exact. The verifiers draw through tevsuite's Draws, so each case also
// gets its exact TV by enumeration, which the verdict uses beside the samples.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "conformance/emit.hpp"
#include "conformance/in_process.hpp"
#include "conformance/tests/test_helpers.hpp"
#include "core/exit_law.hpp"
#include "core/format.hpp"

namespace tev::conformance {
namespace {

enum class ProcessingBug {
  none,
  unprocessed_target,
  temperature_after_softmax,
  min_p_bonus_rows_only,
  order_swapped,
  full_and_top_k_as_vllm
};

// The parameters the verifier believes in for a row: the case's, or the bug's version of them.
SamplingParams believed_params(const SamplingParams& params, bool verified_row, ProcessingBug bug) {
  SamplingParams out = params;
  switch (bug) {
    case ProcessingBug::none:
      break;
    case ProcessingBug::unprocessed_target:
      out = {};
      break;
    // Filters on the untempered softmax, then p / T renormalized, which is p: temperature ignored.
    case ProcessingBug::temperature_after_softmax:
      if (!params.greedy()) out.temperature = 1.0;
      break;
    case ProcessingBug::min_p_bonus_rows_only:
      if (verified_row) out.min_p = 0.0;
      break;
    case ProcessingBug::order_swapped:
      if (params.order != FilterOrder::top_p_full_and_top_k)
        out.order = params.order == FilterOrder::min_p_first ? FilterOrder::min_p_last
                                                             : FilterOrder::min_p_first;
      break;
    case ProcessingBug::full_and_top_k_as_vllm:
      if (params.order == FilterOrder::top_p_full_and_top_k) out.order = FilterOrder::min_p_first;
      break;
  }
  return out;
}

// The rows the verifier believes in: the logits processed by believed_params.
std::vector<double> believed_rows(const tevsuite::TreeCase& c, ProcessingBug bug) {
  std::vector<bool> verified(static_cast<std::size_t>(c.nodes()),
                             false);  // (N) nodes with drafted children
  for (std::int32_t v = 1; v < c.nodes(); ++v)
    verified[static_cast<std::size_t>(c.parents[static_cast<std::size_t>(v)])] = true;
  const auto vocab = static_cast<std::size_t>(c.vocab);
  std::vector<double> rows(c.logits.size());
  for (std::size_t v = 0; v * vocab < rows.size(); ++v) {
    process_logits(c.logits.subspan(v * vocab, vocab),
                   believed_params(internal_params(*c.sampling), verified[v], bug),
                   std::span<double>(rows).subspan(v * vocab, vocab));
  }
  return rows;
}

// What TEV needs of one case, from the believed rows: exit weights w(v) = P(v)·ρ(v), each node's
// residual row and path. Built once per case.
struct TevTables {
  std::vector<double> exit;                      // (N)
  std::vector<std::vector<double>> residual;     // (N)(V)
  std::vector<std::vector<std::int32_t>> paths;  // (N) tokens from the root
};

TevTables tev_tables(const tevsuite::TreeCase& c, ProcessingBug bug) {
  const std::vector<double> rows = believed_rows(c, bug);
  const auto vocab = static_cast<std::size_t>(c.vocab);
  const auto n = static_cast<std::size_t>(c.nodes());
  auto row = [&](std::size_t v) { return std::span<const double>(rows).subspan(v * vocab, vocab); };
  TevTables t{std::vector<double>(n), std::vector<std::vector<double>>(n),
              std::vector<std::vector<std::int32_t>>(n)};
  std::vector<double> prefix(n, 1.0);
  for (std::size_t v = 0; v < n; ++v) {
    t.residual[v].assign(row(v).begin(), row(v).end());
    if (v == 0) continue;
    const auto parent = static_cast<std::size_t>(c.parents[v]);
    prefix[v] = prefix[parent] * row(parent)[static_cast<std::size_t>(c.tokens[v])];
    t.paths[v] = t.paths[parent];
    t.paths[v].push_back(c.tokens[v]);
  }
  for (std::size_t v = 1; v < n; ++v)
    t.residual[static_cast<std::size_t>(c.parents[v])][static_cast<std::size_t>(c.tokens[v])] = 0.0;
  for (std::size_t v = 0; v < n; ++v) {
    double rho = 0.0;
    for (double x : t.residual[v]) rho += x;
    t.exit[v] = prefix[v] * rho;
  }
  return t;
}

// TEV on the believed rows: the exit node from w, the bonus from its residual.
struct EngineTev {
  ProcessingBug bug;
  test_helpers::PerCase<TevTables> tables;

  tevsuite::Block operator()(const tevsuite::TreeCase& c, tevsuite::Draws& draws) const {
    const TevTables& t = tables.get(c.id, [&] { return tev_tables(c, bug); });
    const std::size_t node = draws.categorical(t.exit);
    return {t.paths[node], draws.next_token(static_cast<std::int32_t>(node), t.residual[node])};
  }
};

TreeReport check_engine(ProcessingBug bug) {
  tevsuite::TreeCheckOptions options;
  options.engine_inputs = true;
  return conformance::check_tree_verifier(tevsuite::drawing(EngineTev{bug, {}}), options);
}

// The exact TV of TEV on the believed rows from the canonical law of the processed ones, per case,
// analytically: TEV's law on any rows is their canonical law (Corollary 2).
std::vector<double> exact_tvs(ProcessingBug bug) {
  std::vector<double> out;
  for (const Case& c : tree_cases({.engine_inputs = true})) {
    const std::vector<double> believed = believed_rows(view_of(c), bug);
    const TargetRows rows = TargetRows::from_probabilities(believed, c.tree.size(), c.tree.vocab);
    out.push_back(
        total_variation(canonical_block_law(c.tree, rows, ExitLaw::compute(c.tree, rows)),
                        canonical_block_law(c.tree, c.rows, ExitLaw::compute(c.tree, c.rows))));
  }
  return out;
}

// Printed for the table of planted bugs in docs/commands/conformance.md.
void print_exact_tvs(const char* name, const std::vector<double>& tvs) {
  std::cout << name << ": exact TV per case";
  for (double tv : tvs) std::cout << ' ' << num(tv);
  std::cout << '\n';
}

// The enumeration of every case (blocks of zero processed-target probability counted on their
// cells) agrees with the analytic TVs.
void expect_enumeration_agrees(const TreeReport& report, const std::vector<double>& tvs) {
  ASSERT_EQ(report.cases.size(), tvs.size());
  for (std::size_t k = 0; k < tvs.size(); ++k) {
    const CaseResult& r = report.cases[k];
    ASSERT_TRUE(r.evidence.enumerated) << r.id << ": " << r.not_enumerated;
    EXPECT_NEAR(r.evidence.exact_tv, tvs[k], 1e-9) << r.id;
  }
}

TEST(EngineCasesInProcess, TevOnTheProcessedTargetIsExactAndSaturated) {
  const TreeReport report = check_engine(ProcessingBug::none);
  EXPECT_EQ(report.overall, judging::Verdict::exact_saturated) << describe(report);
  for (const CaseResult& r : report.cases) {
    EXPECT_TRUE(r.evidence.enumerated) << r.id << ": " << r.not_enumerated;
    EXPECT_LT(r.evidence.exact_tv, 1e-9) << r.id;
  }
}

TEST(EngineCasesInProcess, TevOnTheUnprocessedTargetIsNotExact) {
  const TreeReport report = check_engine(ProcessingBug::unprocessed_target);
  const std::vector<double> tvs = exact_tvs(ProcessingBug::unprocessed_target);
  print_exact_tvs("unprocessed target", tvs);
  expect_enumeration_agrees(report, tvs);
  EXPECT_EQ(report.overall, judging::Verdict::not_exact) << describe(report);
  // Every case processes its rows: each is caught, by sampling as well as by enumeration.
  for (std::size_t k = 0; k < report.cases.size(); ++k) {
    const CaseResult& r = report.cases[k];
    EXPECT_EQ(r.decision.verdict, judging::Verdict::not_exact) << r.id << " " << r.label;
    EXPECT_TRUE(r.decision.sampled_not_exact) << r.id << " " << r.label;
    EXPECT_GT(tvs[k], 0.01) << r.id;
  }
}

// A bug that changes how `parameter` acts: every case where the parameter binds (emit.hpp's binds)
// and the bug changes a row is not exact, caught by sampling too; a case whose rows the bug leaves
// alone is not called not exact; at least one case is caught.
void expect_caught_where_it_binds(ProcessingBug bug, Parameter parameter, const char* name) {
  const TreeReport report = check_engine(bug);
  const std::vector<double> tvs = exact_tvs(bug);
  print_exact_tvs(name, tvs);
  expect_enumeration_agrees(report, tvs);
  EXPECT_EQ(report.overall, judging::Verdict::not_exact) << describe(report);
  const std::vector<Case> cases = tree_cases({.engine_inputs = true});
  int bound = 0;
  for (std::size_t k = 0; k < report.cases.size(); ++k) {
    const CaseResult& r = report.cases[k];
    const Case& c = cases[k];
    const bool changed =
        believed_rows(view_of(c), bug) != believed_rows(view_of(c), ProcessingBug::none);
    if (!changed) {
      EXPECT_NE(r.decision.verdict, judging::Verdict::not_exact) << r.id << " " << r.label;
      continue;
    }
    if (!binds(c.tree, c.logits, c.sampling, parameter)) continue;
    ++bound;
    EXPECT_EQ(r.decision.verdict, judging::Verdict::not_exact) << r.id << " " << r.label;
    EXPECT_TRUE(r.decision.sampled_not_exact) << r.id << " " << r.label;
  }
  EXPECT_GE(bound, 1) << name;
}

TEST(EngineCasesInProcess, TemperatureAfterSoftmaxIsNotExactWhereTheTemperatureBinds) {
  expect_caught_where_it_binds(ProcessingBug::temperature_after_softmax, Parameter::temperature,
                               "temperature after softmax");
}

TEST(EngineCasesInProcess, MinPOnBonusRowsOnlyIsNotExactWhereMinPBinds) {
  expect_caught_where_it_binds(ProcessingBug::min_p_bonus_rows_only, Parameter::min_p,
                               "min-p on bonus rows only");
}

TEST(EngineCasesInProcess, MinPOrderSwappedIsNotExactWhereTheOrderBinds) {
  expect_caught_where_it_binds(ProcessingBug::order_swapped, Parameter::order,
                               "min_p_first and min_p_last swapped");
}

TEST(EngineCasesInProcess, TopPFullAndTopKInVllmsOrderIsNotExactWhereTheOrderBinds) {
  expect_caught_where_it_binds(ProcessingBug::full_and_top_k_as_vllm, Parameter::order,
                               "top_p_full_and_top_k in vLLM's order");
}

}  // namespace
}  // namespace tev::conformance
