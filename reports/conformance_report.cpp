#include "reports/conformance_report.hpp"

#include <algorithm>
#include <iomanip>
#include <ostream>

#include "reports/document.hpp"
#include "reports/verdict_json.hpp"
#include "conformance/case_io.hpp"

namespace tev::reports {

namespace {

using namespace conformance;
using nlohmann::json;

std::string tv_text(const std::optional<double>& tv) { return tv ? num(*tv) : "none"; }

// What "indep p" is, under a table of cases.
std::string indep_legend() {
  return "indep p: the smallest p of the case's tests of independence (each half of its sample "
         "stream against the canonical law; the\njoint law of the bins of samples i and i + l "
         "against the product, for every lag l = 1 .. " +
         std::to_string(stats::kSerialLags) +
         ", at phases i mod 2l < l and >= l: at lag 1 pairs (2k, 2k+1) and (2k+1, 2k+2)).\n";
}

// One row per fixed-tree case (a batch's request), then its impossible events; `width` fits the ids.
void print_case_rows(const std::vector<CaseResult>& cases, std::size_t width, std::ostream& out) {
  out << std::left << std::setw(static_cast<int>(width)) << "case" << std::setw(10) << "samples"
      << std::setw(11) << "impossible" << std::setw(12) << "in-tree bon" << std::setw(11)
      << "exact p(H)" << std::setw(10) << "sat p(H)" << std::setw(10) << "indep p" << std::setw(9)
      << "mean L" << std::setw(9) << "1+C_p" << std::setw(11) << "TV@99%" << std::setw(23)
      << "verdict"
      << "what it exercises\n";
  for (const CaseResult& r : cases) {
    out << std::left << std::setw(static_cast<int>(width)) << r.id << std::setw(10) << r.samples
        << std::setw(11) << r.impossible << std::setw(12) << r.evidence.completions << std::setw(11)
        << num(r.decision.exactness_p_holm) << std::setw(10) << num(r.decision.saturation_p_holm)
        << std::setw(10)
        << (r.evidence.iid_tests.empty() ? "-" : num(judging::smallest_iid_p(r.evidence)))
        << std::setw(9) << num(r.evidence.mean_length) << std::setw(9) << num(r.evidence.ceiling)
        << std::setw(11) << tv_text(judging::stated_tv(r.evidence)) << std::setw(23)
        << verdict_text(r.decision.verdict) << r.label << '\n';
  }
  for (const CaseResult& r : cases) {
    if (r.impossible > 0)
      out << "impossible event (" << r.impossible << " in case " << r.id
          << "), first: " << r.first_impossible << '\n';
    if (r.decision.verdict == judging::Verdict::not_exact && !r.evidence.iid_tests.empty()) {
      out << "case " << r.id
          << ", tests of independence: " << stats::iid_tests_text(r.evidence.iid_tests) << '\n';
    }
  }
}

// The fields every conformance results file has: its kind, the policy at a family of `family`
// tests, the overall verdict and the first failing case.
json results_header(ResultsKind kind, const judging::VerdictPolicy& policy, std::size_t family,
                    std::size_t exactness_tests, const std::string& overall,
                    judging::Verdict verdict, const std::string& first_failing) {
  return {{"format_version", 2},
          {"command", "conformance"},
          {"kind", results_kind_name(kind)},
          {"alpha", policy.alpha},
          {"policy", policy_json(policy, family)},
          {"exactness_tests", exactness_tests},
          {"overall", overall},
          {"exit_code", judging::verdict_exit_code(verdict)},
          {"first_failing_case", first_failing}};
}

// The last line of every conformance table.
void print_overall(std::ostream& out, const std::string& text, const char* member,
                   const std::string& first_failing) {
  out << "overall: " << text;
  if (!first_failing.empty()) out << " (first such " << member << ": " << first_failing << ")";
  out << '\n';
}

// A case judged by sampling alone (a model or generation case): its identity test, its tests of
// independence and the policy's decision on it.
json sampled_case_json(const judging::TreeEvidence& e, const judging::CaseVerdict& decision) {
  return {{"chi_square", e.chi_square.statistic},
          {"dof", e.chi_square.dof},
          {"p_value", e.chi_square.p_value},
          {"exactness_p_holm", decision.exactness_p_holm},
          {"detectable_tv", optional_json(e.detectable_tv)},
          {"iid_tests", iid_tests_json(e.iid_tests)},
          {"stated_tv", optional_json(judging::stated_tv(e))},
          {"powered", decision.powered}};
}

json case_json(const CaseResult& r) {
  json c = evidence_json(r.evidence, r.decision);
  c["case_id"] = r.id;
  c["label"] = r.label;
  c["first_impossible"] = r.first_impossible;
  c["prefix"] = r.evidence.prefix;
  return c;
}

}  // namespace

json conformance_json(const ConformanceReport& report) {
  json j = results_header(ResultsKind::conformance, report.policy, report.cases.size(),
                          report.exactness_tests, verdict_text(report.overall), report.overall,
                          report.first_failing);
  j["saturation_tests"] = report.saturation_tests;
  for (const CaseResult& r : report.cases) j["cases"].push_back(case_json(r));
  return j;
}

void print_conformance(const ConformanceReport& report, std::ostream& out) {
  print_case_rows(report.cases, 6, out);
  const judging::VerdictPolicy& p = report.policy;
  out << "\nalpha " << p.alpha << " family-wise: " << p.exactness_alpha()
      << " for exactness (Holm over " << report.exactness_tests
      << " cases: identity test, tests of independence, E[L] and acceptance above their ceilings), "
      << p.saturation_alpha() << " for saturation (Holm over " << report.saturation_tests
      << " E[L] and per-node acceptance shortfall tests).\n"
      << indep_legend()
      << "TV@99%: every law at least this far from the canonical one (or a half's law, or the "
         "joint law of two blocks up to "
      << stats::kSerialLags << " apart this far from the\n"
      << "product), in any direction, tails included, is rejected with " << p.required_power * 100
      << " % power by the case's tests at their levels (identity test "
      << num(p.identity_level(report.cases.size(), true, true))
      << "); 'none': no TV below 1 is.\nA case that cannot guarantee TV " << p.max_detectable_tv
      << " is 'inconclusive' (exit 4): give it more samples; one whose E[L] test cannot see a "
         "shortfall of "
      << p.max_detectable_shortfall << " tokens is 'exact, saturation inconclusive' (exit 5).\n";
  print_overall(out, verdict_text(report.overall), "case", report.first_failing);
}

void print_model_conformance(const ModelReport& report, std::ostream& out) {
  out << std::left << std::setw(6) << "case" << std::setw(10) << "samples" << std::setw(11)
      << "impossible" << std::setw(11) << "exact p(H)" << std::setw(10) << "indep p" << std::setw(9)
      << "mean L" << std::setw(9) << "ref E[L]" << std::setw(10) << "TV@99%" << std::setw(20)
      << "verdict" << std::setw(24) << "drafting hint"
      << "what it exercises\n";
  for (const ModelCaseResult& r : report.cases) {
    out << std::left << std::setw(6) << r.id << std::setw(10) << r.evidence.samples << std::setw(11)
        << r.impossible << std::setw(11) << num(r.decision.exactness_p_holm) << std::setw(10)
        << (r.evidence.iid_tests.empty() ? "-" : num(judging::smallest_iid_p(r.evidence)))
        << std::setw(9) << fixed(r.evidence.mean_length, 4) << std::setw(9)
        << (r.reference_mean_length ? fixed(*r.reference_mean_length, 4) : "-") << std::setw(10)
        << tv_text(judging::stated_tv(r.evidence)) << std::setw(20)
        << model_verdict_text(r.decision.verdict) << std::setw(24)
        << (r.drafting.empty() ? "-" : r.drafting) << r.label << '\n';
  }
  for (const ModelCaseResult& r : report.cases) {
    if (r.impossible > 0)
      out << "impossible event (" << r.impossible << " in case " << r.id
          << "), first: " << r.first_impossible << '\n';
    if (r.decision.verdict == judging::Verdict::not_exact && !r.evidence.iid_tests.empty()) {
      out << "case " << r.id
          << ", tests of independence: " << stats::iid_tests_text(r.evidence.iid_tests) << '\n';
    }
    if (r.trees > 0)
      out << "case " << r.id << ": " << r.trees << " samples reported their tree, "
          << num(r.mean_tree_nodes) << " drafted nodes each on average\n";
  }
  const judging::VerdictPolicy& p = report.policy;
  out << "\nModel cases: every block completed with p to H = D + 1 tokens; Pearson chi-square "
         "against p's H-token law, pooled by the\n"
      << "first H - 1 tokens, and the case's tests of independence. alpha " << p.alpha
      << " family-wise: " << p.exactness_alpha() << " for marginal exactness (Holm over "
      << report.exactness_tests << " cases).\n"
      << indep_legend()
      << "Saturation does not apply (no fixed tree, no 1 + C_p): mean L is "
         "descriptive; "
      << "ref E[L] is the exact E[L] of the suite's own exact\nverifier for the drafting hint, by "
         "enumeration (descriptive: an exact verifier may emit more or fewer).\n"
      << "TV@99%: every law over the H-token sequences at least this far from p's (or a half's "
         "law, or the joint law of two sequences\nup to "
      << stats::kSerialLags
      << " apart this far from the product), in any direction, tails included, is rejected "
         "with "
      << p.required_power * 100 << " % power by the case's tests\nat their levels (identity test "
      << num(p.identity_level(report.cases.size(), false, true))
      << "); a case that cannot guarantee TV " << p.max_detectable_tv
      << " is 'inconclusive' (exit 4): give it more samples.\n";
  print_overall(out, model_verdict_text(report.overall), "case", report.first_failing);
}

json model_conformance_json(const ModelReport& report) {
  json j = results_header(ResultsKind::conformance_model, report.policy, report.cases.size(),
                          report.exactness_tests, model_verdict_text(report.overall),
                          report.overall, report.first_failing);
  j["cases_format_version"] = kModelFormatVersion;
  for (const ModelCaseResult& r : report.cases) {
    json c = sampled_case_json(r.evidence, r.decision);
    c.update({{"case_id", r.id},
              {"label", r.label},
              {"drafting", r.drafting},
              {"samples", r.evidence.samples},
              {"impossible", r.impossible},
              {"first_impossible", r.first_impossible},
              {"mean_L", r.evidence.mean_length},
              {"reference_mean_L", optional_json(r.reference_mean_length)},
              {"trees_reported", r.trees},
              {"mean_tree_nodes", r.mean_tree_nodes},
              {"verdict", model_verdict_text(r.decision.verdict)}});
    j["cases"].push_back(c);
  }
  return j;
}

void print_generation_conformance(const GenerationReport& report, std::ostream& out) {
  std::size_t width = 6;
  for (const GenerationCaseResult& r : report.cases) width = std::max(width, r.id.size() + 2);
  out << std::left << std::setw(static_cast<int>(width)) << "request" << std::setw(12)
      << "generations" << std::setw(11) << "impossible" << std::setw(11) << "sequences"
      << std::setw(11) << "exact p(H)" << std::setw(10) << "indep p" << std::setw(9) << "tokens"
      << std::setw(10) << "plain" << std::setw(9) << "TV@99%" << std::setw(14) << "verdict"
      << "parameters\n";
  for (const GenerationCaseResult& r : report.cases) {
    out << std::left << std::setw(static_cast<int>(width)) << r.id << std::setw(12)
        << r.evidence.samples + r.evidence.invalid << std::setw(11) << r.evidence.invalid
        << std::setw(11) << r.sequences << std::setw(11) << num(r.decision.exactness_p_holm)
        << std::setw(10) << num(judging::smallest_iid_p(r.evidence)) << std::setw(9)
        << fixed(r.evidence.mean_length, 3) << std::setw(10) << fixed(r.reference_mean_length, 3)
        << std::setw(9) << tv_text(judging::stated_tv(r.evidence)) << std::setw(14)
        << generation::generation_verdict_text(r.decision.verdict) << r.label << '\n';
  }
  for (const GenerationCaseResult& r : report.cases) {
    if (!r.first_impossible.empty())
      out << "impossible event (" << r.evidence.invalid << " in request " << r.id
          << "), first: " << r.first_impossible << '\n';
    if (r.decision.verdict == judging::Verdict::not_exact && !r.evidence.iid_tests.empty())
      out << "request " << r.id
          << ", tests of independence: " << stats::iid_tests_text(r.evidence.iid_tests) << '\n';
  }
  const judging::VerdictPolicy& p = report.policy;
  out << "\nGeneration cases: each request's emitted sequences against plain generation's exact "
         "law under the request (enumerated;\n"
         "sequences: its support), Pearson chi-square pooled by first token, and the tests of "
         "independence over consecutive generations.\n"
         "tokens: emitted per generation, plain: the same under plain generation (exact). alpha "
      << p.alpha << " family-wise: " << p.exactness_alpha() << " for exactness (Holm over "
      << report.cases.size() << " requests).\n"
      << "TV@99%: every law of the emitted sequences at least this far from plain generation's "
         "(or a dependence between consecutive\n"
         "generations the tests of independence state), in any direction, is rejected with "
      << p.required_power * 100 << " % power at the tests' levels (identity test "
      << num(p.identity_level(report.cases.size(), false, true)) << "); a request that cannot "
      << "guarantee TV " << p.max_detectable_tv
      << " is 'inconclusive' (exit 4): give it more generations.\n";
  print_overall(out, generation::generation_verdict_text(report.overall), "request",
                report.first_failing);
}

json generation_conformance_json(const GenerationReport& report) {
  json j = results_header(ResultsKind::conformance_generation, report.policy, report.cases.size(),
                          report.cases.size(), generation::generation_verdict_text(report.overall),
                          report.overall, report.first_failing);
  j["cases_format_version"] = kGenerationFormatVersion;
  for (const GenerationCaseResult& r : report.cases) {
    json c = sampled_case_json(r.evidence, r.decision);
    c.update({{"case_id", r.id},
              {"label", r.label},
              {"semantics", r.semantics},
              {"samples", r.evidence.samples + r.evidence.invalid},
              {"impossible", r.evidence.invalid},
              {"first_impossible", r.first_impossible},
              {"sequences", r.sequences},
              {"mean_tokens", r.evidence.mean_length},
              {"plain_mean_tokens", r.reference_mean_length},
              {"verdict", generation::generation_verdict_text(r.decision.verdict)}});
    j["cases"].push_back(c);
  }
  return j;
}

void print_emit_summary(const EmitSummary& s, const std::string& out_path, std::ostream& out) {
  out << "wrote " << s.cases << " " << s.what << " to " << out_path << " (" << s.samples
      << " samples each)\n";
  const std::vector<double>& tvs = s.detectable_tvs;
  if (!tvs.empty()) {
    out << "judged at family alpha " << s.policy.alpha << " (identity-test level "
        << num(s.chi_square_level) << " per " << s.level_of << "), each " << s.member << " "
        << "rejects every law at TV >= " << num(tvs.front()) << " .. " << num(tvs.back())
        << " (median " << num(tvs[tvs.size() / 2]) << "), in any direction, with 99 % power ("
        << s.law << ")\n";
  }
  if (s.undetectable > 0)
    out << s.undetectable
        << " case(s) detect no contamination at that level: they will be judged inconclusive\n";
}

void print_batch_conformance(const BatchReport& report, std::ostream& out) {
  std::size_t width = 6;
  for (const CaseResult& r : report.requests) width = std::max(width, r.id.size() + 2);
  print_case_rows(report.requests, width, out);
  out << "\nindependence of the requests within a round and across rounds: joint law of two "
         "requests' completed blocks (exit node and\n"
         "bonus, in each request's pair bins) in one round, and "
      << stats::kSerialLags
      << " rounds apart or fewer in either order, against the product of their canonical\n"
         "laws (a leak between them, in an exit or only in a bonus, or a request that is itself "
         "not exact, moves it off)\n";
  std::size_t pair_width = 6;
  for (const PairResult& r : report.pairs) pair_width = std::max(pair_width, r.id.size() + 2);
  out << std::left << std::setw(static_cast<int>(pair_width)) << "pair" << std::setw(10) << "rounds"
      << std::setw(12) << "chi2 p" << std::setw(12) << "lagged p" << std::setw(11) << "exact p(H)"
      << std::setw(11) << "TV@99%"
      << "finding\n";
  for (const PairResult& r : report.pairs) {
    out << std::left << std::setw(static_cast<int>(pair_width)) << r.id << std::setw(10)
        << r.evidence.samples << std::setw(12) << num(r.evidence.chi_square.p_value)
        << std::setw(12)
        << (r.evidence.iid_tests.empty() ? "-" : num(judging::smallest_iid_p(r.evidence)))
        << std::setw(11) << num(r.decision.exactness_p_holm) << std::setw(11)
        << tv_text(judging::stated_tv(r.evidence)) << r.finding << '\n';
    if (r.decision.verdict == judging::Verdict::not_exact && !r.evidence.iid_tests.empty())
      out << "  " << r.id << " across rounds: " << stats::iid_tests_text(r.evidence.iid_tests)
          << '\n';
  }
  const judging::VerdictPolicy& p = report.policy;
  const std::size_t family = report.requests.size() + report.pairs.size();
  out << "\nalpha " << p.alpha << " family-wise: " << p.exactness_alpha()
      << " for exactness (Holm over " << report.exactness_tests
      << " tests: " << report.requests.size()
      << " requests' identity, E[L] and acceptance tests and " << report.pairs.size()
      << " pairs' independence tests), " << p.saturation_alpha() << " for saturation (Holm over "
      << report.saturation_tests << " E[L] and per-node acceptance shortfall tests).\n"
      << "TV@99%: every law at least this far from the canonical one (a request's, and each of its "
         "tests of independence as a case's)\n"
      << "or every joint law of the pair's bins, within a round or across rounds, this far from "
         "the product (a pair's), in any\ndirection, tails included, is rejected with "
      << p.required_power * 100 << " % power at the test's level ("
      << num(p.identity_level(family, true, true)) << " a request's identity test,\n"
      << num(p.identity_level(family, false, true)) << " a pair's within a round, "
      << num(p.chi_square_level(family) * judging::VerdictPolicy::iid_test_share(false))
      << " each across rounds); a request or pair that\n"
      << "cannot guarantee TV " << p.max_detectable_tv
      << " is 'inconclusive' (exit 4): give the batch more rounds.\n";
  print_overall(out, verdict_text(report.overall), "request or pair", report.first_failing);
}

json batch_conformance_json(const BatchReport& report) {
  json j = results_header(ResultsKind::conformance_batch, report.policy,
                          report.requests.size() + report.pairs.size(), report.exactness_tests,
                          verdict_text(report.overall), report.overall, report.first_failing);
  j["cases_format_version"] = kBatchFormatVersion;
  j["saturation_tests"] = report.saturation_tests;
  j["cases"] = json::array();
  for (const CaseResult& r : report.requests) j["cases"].push_back(case_json(r));
  j["pairs"] = json::array();
  for (const PairResult& r : report.pairs) {
    j["pairs"].push_back({{"pair", r.id},
                          {"batch", r.batch},
                          {"first", r.first},
                          {"second", r.second},
                          {"rounds", r.evidence.samples},
                          {"chi2", r.evidence.chi_square.statistic},
                          {"dof", r.evidence.chi_square.dof},
                          {"chi2_p", r.evidence.chi_square.p_value},
                          {"exactness_p_holm", r.decision.exactness_p_holm},
                          {"detectable_tv", optional_json(r.evidence.detectable_tv)},
                          {"iid_tests", iid_tests_json(r.evidence.iid_tests)},
                          {"stated_tv", optional_json(judging::stated_tv(r.evidence))},
                          {"powered", r.decision.powered},
                          {"verdict", verdict_text(r.decision.verdict)},
                          {"finding", r.finding}});
  }
  return j;
}

}  // namespace tev::reports
