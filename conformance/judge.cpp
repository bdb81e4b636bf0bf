#include "conformance/judge.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/exit_law.hpp"
#include "core/statistics.hpp"

namespace tev::conformance {

namespace {
using nlohmann::json;
constexpr double kPower = 0.99;

std::int64_t token_field(const json& j, const std::string& where, const std::string& what) {
  if (!j.is_number_integer()) throw InputError(where + ": " + what + " must be an integer token, got " + j.dump());
  return j.get<std::int64_t>();
}
}  // namespace

CaseJudge::CaseJudge(const Case& c, std::uint32_t completion_seed, std::uint32_t case_index)
    : case_(&c),
      seed_(completion_seed),
      case_index_(case_index),
      counts_(c.tree.size(), c.tree.vocab),
      completion_({completion_seed, Stream::completion, case_index, 0}) {}

void CaseJudge::add_line(std::string_view line, const std::string& where) {
  json j;
  try {
    j = json::parse(line);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for numbers like 1e999
    throw InputError(where + ": not valid JSON (" + e.what() + ")");
  }
  if (!j.is_object() || !j.contains("case_id") || !j.contains("accepted") || !j.contains("bonus")) {
    throw InputError(where + ": a sample must be an object with \"case_id\", \"accepted\" and \"bonus\"");
  }
  if (!j["case_id"].is_string() || j["case_id"].get<std::string>() != case_->id) {
    throw InputError(where + ": sample for case " + j["case_id"].dump() + " where case \"" + case_->id + "\" was expected");
  }
  const json& accepted = j["accepted"];
  if (!accepted.is_array()) throw InputError(where + ": \"accepted\" must be an array of tokens");
  const DraftTree& tree = case_->tree;
  const auto record_impossible = [&](const std::string& problem) {
    if (impossible_++ == 0) first_impossible_ = where + ": " + problem;
  };
  // Malformed fields throw before the sample is counted; impossible events are counted samples.
  std::vector<std::int64_t> path;
  for (std::size_t k = 0; k < accepted.size(); ++k) path.push_back(token_field(accepted[k], where, "accepted[" + std::to_string(k) + "]"));
  const std::int64_t bonus = token_field(j["bonus"], where, "bonus");
  const std::uint64_t index = lines_++;
  NodeId v = 0;
  for (std::size_t k = 0; k < path.size(); ++k) {
    const std::int64_t t = path[k];
    const NodeId next = t >= 0 && t < tree.vocab ? tree.child_with_token(v, static_cast<Token>(t)) : kNoNode;
    if (next == kNoNode) {
      record_impossible("accepted token " + std::to_string(t) + " at position " + std::to_string(k) + " is not a drafted child there (invalid path)");
      return;
    }
    v = next;
  }
  if (bonus < 0 || bonus >= tree.vocab) {
    record_impossible("bonus " + std::to_string(bonus) + " is outside the vocabulary [0, " + std::to_string(tree.vocab) + ")");
    return;
  }
  if (!(case_->rows.row(v)[static_cast<std::size_t>(bonus)] > 0.0)) {
    record_impossible("bonus " + std::to_string(bonus) + " has zero target probability after the accepted path");
    return;
  }
  const Block returned{v, static_cast<Token>(bonus)};
  completion_.restart({seed_, Stream::completion, case_index_, index});
  counts_.add(tree, returned, complete_block(tree, case_->rows, returned, completion_));
}

ConformanceReport judge(const std::vector<CaseJudge>& judges, double alpha) {
  ConformanceReport report;
  report.alpha = alpha;
  std::vector<double> exactness, saturation;  // p-values of every case, in order
  std::vector<std::pair<std::size_t, std::size_t>> exactness_range, saturation_range;  // per case [begin, end)
  for (const CaseJudge& judge : judges) {
    const Case& c = judge.spec();
    if (judge.lines() != c.samples) {
      throw InputError("case " + c.id + ": " + std::to_string(judge.lines()) + " samples, the case asks for " + std::to_string(c.samples));
    }
    CaseResult r;
    r.id = c.id;
    r.label = c.label;
    r.samples = judge.lines();
    r.impossible = judge.impossible();
    r.first_impossible = judge.first_impossible();
    const std::size_t e0 = exactness.size(), s0 = saturation.size();
    if (judge.counts().samples > 0) {
      r.evidence = sampled_evidence(c.tree, c.rows, judge.counts());
      exactness.push_back(r.evidence.chi_square.p_value);
      exactness.insert(exactness.end(), r.evidence.acceptance_excess_p.begin(), r.evidence.acceptance_excess_p.end());
      saturation.push_back(r.evidence.shortfall_p);
      saturation.insert(saturation.end(), r.evidence.acceptance_p.begin(), r.evidence.acceptance_p.end());
      r.min_detectable_tv = min_detectable_tv(c.tree, c.rows, c.samples, alpha / 2.0);
    }
    exactness_range.emplace_back(e0, exactness.size());
    saturation_range.emplace_back(s0, saturation.size());
    report.cases.push_back(std::move(r));
  }
  const auto exact_adj = holm_adjust(exactness), sat_adj = holm_adjust(saturation);
  auto min_in = [](const std::vector<double>& v, std::pair<std::size_t, std::size_t> range) {
    double m = 1.0;
    for (std::size_t i = range.first; i < range.second; ++i) m = std::min(m, v[i]);
    return m;
  };
  for (std::size_t k = 0; k < report.cases.size(); ++k) {
    CaseResult& r = report.cases[k];
    r.exactness_p_holm = min_in(exact_adj, exactness_range[k]);
    r.saturation_p_holm = min_in(sat_adj, saturation_range[k]);
    if (r.impossible > 0 || r.exactness_p_holm < alpha / 2.0) {
      r.verdict = Verdict::not_exact;
    } else if (r.evidence.completions > 0 || r.saturation_p_holm < alpha / 2.0) {
      r.verdict = Verdict::exact_not_saturated;
    }
    report.overall = std::min(report.overall, r.verdict);  // the enum orders worst first
  }
  for (const CaseResult& r : report.cases) {
    if (report.overall != Verdict::exact_saturated && r.verdict == report.overall) {
      report.first_failing = r.id;
      break;
    }
  }
  return report;
}

double min_detectable_tv(const DraftTree& tree, const TargetRows& rows, std::uint64_t samples, double alpha) {
  const std::vector<double> canonical = canonical_block_law(tree, rows, ExitLaw::compute(tree, rows));
  const auto support = static_cast<double>(std::count_if(canonical.begin(), canonical.end(), [](double p) { return p > 0.0; }));
  std::vector<double> uniform(canonical.size(), 0.0);
  for (std::size_t i = 0; i < canonical.size(); ++i) uniform[i] = canonical[i] > 0.0 ? 1.0 / support : 0.0;
  return smallest_detectable_tv(canonical, uniform, node_groups(tree.size(), tree.vocab), static_cast<double>(samples), alpha, kPower);
}

int exit_code(Verdict v) {
  switch (v) {
    case Verdict::exact_saturated: return 0;
    case Verdict::not_exact: return 1;
    case Verdict::exact_not_saturated: return 3;
  }
  return 1;
}

}  // namespace tev::conformance
