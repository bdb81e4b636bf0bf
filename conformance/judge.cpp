#include "conformance/judge.hpp"

#include <algorithm>
#include <stdexcept>
#include <nlohmann/json.hpp>

#include "core/exit_law.hpp"
#include "core/statistics.hpp"

namespace tev::conformance {

namespace {
using nlohmann::json;

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
  // Malformed fields throw before the sample is counted; impossible events are counted samples.
  std::vector<std::int64_t> path;
  for (std::size_t k = 0; k < accepted.size(); ++k) path.push_back(token_field(accepted[k], where, "accepted[" + std::to_string(k) + "]"));
  const std::int64_t bonus = token_field(j["bonus"], where, "bonus");
  add_sample(path, bonus, lines_, where);
}

void CaseJudge::add_sample(std::span<const std::int64_t> path, std::int64_t bonus, std::uint64_t index, const std::string& where) {
  const DraftTree& tree = case_->tree;
  ++lines_;
  const auto record_impossible = [&](const std::string& problem) {
    if (impossible_++ == 0 || index < first_impossible_index_) {
      first_impossible_ = where + ": " + problem;
      first_impossible_index_ = index;
    }
  };
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

void CaseJudge::merge(const CaseJudge& other) {
  if (other.case_ != case_) throw std::logic_error("merging the judges of two different cases");
  counts_.merge(other.counts_);
  lines_ += other.lines_;
  if (other.impossible_ > 0 && (impossible_ == 0 || other.first_impossible_index_ < first_impossible_index_)) {
    first_impossible_ = other.first_impossible_;
    first_impossible_index_ = other.first_impossible_index_;
  }
  impossible_ += other.impossible_;
}

ConformanceReport judge(const std::vector<CaseJudge>& judges, double alpha, std::span<const std::optional<ExactOutcome>> exact) {
  if (!exact.empty() && exact.size() != judges.size()) throw std::invalid_argument("one exact law (or none) per case");
  ConformanceReport report;
  report.policy.alpha = alpha;
  const double level = report.policy.chi_square_level(judges.size());
  std::vector<TreeEvidence> evidence;
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
    r.evidence = sampled_evidence(c.tree, c.rows, judge.counts());
    r.evidence.invalid = judge.impossible();
    r.evidence.detectable_tv = detectable_tv(c.tree, c.rows, c.samples, level, report.policy.required_power);
    if (!exact.empty() && exact[evidence.size()]) {
      add_exact_evidence(r.evidence, c.tree, c.rows, *exact[evidence.size()], c.samples, level, report.policy.exact_tolerance);
    }
    evidence.push_back(r.evidence);
    report.cases.push_back(std::move(r));
  }
  const SubjectVerdict decision = decide(evidence, report.policy);
  report.overall = decision.verdict;
  report.exactness_tests = decision.exactness_tests;
  report.saturation_tests = decision.saturation_tests;
  for (std::size_t k = 0; k < report.cases.size(); ++k) report.cases[k].decision = decision.cases[k];
  report.first_failing = first_case_with(report.cases, report.overall);
  return report;
}

}  // namespace tev::conformance
