#include "conformance/judge.hpp"

#include <algorithm>
#include <stdexcept>
#include <nlohmann/json.hpp>

#include "conformance/json_input.hpp"
#include "core/exit_law.hpp"
#include "stats/goodness_of_fit.hpp"

namespace tev::conformance {

using nlohmann::json;

CaseJudge::CaseJudge(const Case& c, std::uint32_t completion_seed, std::uint32_t case_index)
    : case_(&c),
      seed_(completion_seed),
      case_index_(case_index),
      counts_(c.tree.size(), c.tree.vocab),
      completion_({completion_seed, Stream::completion, case_index, 0}) {}

void CaseJudge::add_line(std::string_view line, const std::string& where) {
  json j = parse_sample_line(line, where);
  if (!j.is_object() || !j.contains("case_id") || !j.contains("accepted") || !j.contains("bonus")) {
    throw InputError(where +
                     ": a sample must be an object with \"case_id\", \"accepted\" and \"bonus\"");
  }
  if (!j["case_id"].is_string() || j["case_id"].get<std::string>() != case_->id) {
    throw InputError(where + ": sample for case " + j["case_id"].dump() + " where case \"" +
                     case_->id + "\" was expected");
  }
  const json& accepted = j["accepted"];
  if (!accepted.is_array()) throw InputError(where + ": \"accepted\" must be an array of tokens");
  // Malformed fields throw before the sample is counted; impossible events are counted samples.
  std::vector<std::int64_t> path;
  for (std::size_t k = 0; k < accepted.size(); ++k)
    path.push_back(token_field(accepted[k], where, "accepted[" + std::to_string(k) + "]"));
  const std::int64_t bonus = token_field(j["bonus"], where, "bonus");
  add_sample(path, bonus, lines_, where);
}

ResolvedBlock resolve_block(const Case& c, std::span<const std::int64_t> path, std::int64_t bonus) {
  const DraftTree& tree = c.tree;
  NodeId v = 0;
  for (std::size_t k = 0; k < path.size(); ++k) {
    const std::int64_t t = path[k];
    const NodeId next =
        t >= 0 && t < tree.vocab ? tree.child_with_token(v, static_cast<Token>(t)) : kNoNode;
    if (next == kNoNode) {
      return {{},
              "accepted token " + std::to_string(t) + " at position " + std::to_string(k) +
                  " is not a drafted child there (invalid path)"};
    }
    v = next;
  }
  if (bonus < 0 || bonus >= tree.vocab)
    return {{},
            "bonus " + std::to_string(bonus) + " is outside the vocabulary [0, " +
                std::to_string(tree.vocab) + ")"};
  const Block cell{v, static_cast<Token>(bonus)};
  if (!(c.rows.row(v)[static_cast<std::size_t>(bonus)] > 0.0))
    return {cell, "bonus " + std::to_string(bonus) +
                      " has zero target probability after the accepted path"};
  return {cell, ""};
}

std::optional<Block> CaseJudge::add_sample(std::span<const std::int64_t> path, std::int64_t bonus,
                                           std::uint64_t index, const std::string& where) {
  ++lines_;
  const ResolvedBlock resolved = resolve_block(*case_, path, bonus);
  if (!resolved.problem.empty()) {
    impossible_.record(index, where, [&] { return resolved.problem; });
    return std::nullopt;
  }
  completion_.restart({seed_, Stream::completion, case_index_, index});
  const Block completed = complete_block(case_->tree, case_->rows, *resolved.cell, completion_);
  counts_.add(case_->tree, *resolved.cell, completed);
  // Grown as samples come (8 bytes a sample); samples past the case's count are refused when it
  // is judged (require_all_samples).
  if (index < case_->samples) {
    if (index >= stream_.size()) stream_.resize(index + 1, stats::kNoCell);
    stream_[index] =
        static_cast<std::int64_t>(completed.exit) * case_->tree.vocab + completed.bonus;
  }
  return completed;
}

void CaseJudge::merge(const CaseJudge& other) {
  if (other.case_ != case_) throw std::logic_error("merging the judges of two different cases");
  counts_.merge(other.counts_);
  if (other.stream_.size() > stream_.size()) stream_.resize(other.stream_.size(), stats::kNoCell);
  for (std::size_t i = 0; i < other.stream_.size(); ++i) {
    if (other.stream_[i] != stats::kNoCell) stream_[i] = other.stream_[i];
  }
  lines_ += other.lines_;
  impossible_.merge(other.impossible_);
}

ConformanceReport judge(const std::vector<CaseJudge>& judges, const judging::VerdictPolicy& policy,
                        std::span<const std::optional<ExactOutcome>> exact) {
  if (!exact.empty() && exact.size() != judges.size())
    throw std::invalid_argument("one exact law (or none) per case");
  ConformanceReport report;
  report.policy = policy;
  std::vector<judging::TreeEvidence> evidence;
  for (std::size_t k = 0; k < judges.size(); ++k) {
    report.cases.push_back(
        case_result(judges[k], policy, judges.size(), k, exact.empty() ? std::nullopt : exact[k]));
    evidence.push_back(report.cases.back().evidence);
  }
  report.saturation_tests = decide_into(report, evidence).saturation_tests;
  return report;
}

namespace {

// A case's reference for its identity test and its tests of independence: the canonical block law
// and its cells' groups (exit nodes).
struct Reference {
  std::vector<double> canonical;     // (N, V)
  std::vector<std::int32_t> groups;  // (N, V)
  explicit Reference(const Case& c)
      : canonical(canonical_block_law(c.tree, c.rows, ExitLaw::compute(c.tree, c.rows))),
        groups(stats::node_groups(c.tree.size(), c.tree.vocab)) {}
};

}  // namespace

std::optional<double> stated_tv(const Case& c, const judging::VerdictPolicy& policy,
                                std::size_t family, std::size_t index) {
  const Reference ref(c);
  const double level = policy.identity_level(family, true, true);
  return stats::larger_tv(
      judging::detectable_tv(ref.canonical, ref.groups, c.samples, level, policy.required_power),
      stats::iid_detectable_tv(ref.canonical, ref.groups, c.samples,
                               policy.iid_test_levels(family, index, true), policy.required_power));
}

CaseResult case_result(const CaseJudge& judge, const judging::VerdictPolicy& policy,
                       std::size_t family, std::size_t index,
                       const std::optional<ExactOutcome>& exact) {
  const Case& c = judge.spec();
  require_all_samples(judge);
  const double level = policy.identity_level(family, true, true);
  CaseResult r;
  r.id = c.id;
  r.label = c.label;
  r.samples = judge.lines();
  r.impossible = judge.impossible();
  r.first_impossible = judge.first_impossible();
  r.evidence = judging::sampled_evidence(c.tree, c.rows, judge.counts(),
                                         policy.identity_test_level(family, index, true, true));
  r.evidence.invalid = judge.impossible();
  const Reference ref(c);
  std::vector<std::int64_t> stream = judge.stream();
  stream.resize(c.samples, stats::kNoCell);  // impossible samples at the end were never stored
  r.evidence.iid_tests = judging::case_iid_tests(
      stream, ref.canonical, ref.groups, policy.iid_test_levels(family, index, true), policy,
      family, true, r.evidence.chi_square.p_value);
  r.evidence.detectable_tv =
      judging::detectable_tv(ref.canonical, ref.groups, c.samples, level, policy.required_power);
  if (exact)
    judging::add_exact_evidence(r.evidence, c.tree, c.rows, *exact, c.samples, level,
                                policy.exact_tolerance);
  return r;
}

}  // namespace tev::conformance
