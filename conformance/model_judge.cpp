#include "conformance/model_judge.hpp"

#include <nlohmann/json.hpp>
#include <ostream>
#include <stdexcept>

#include "conformance/json_input.hpp"
#include "judging/sampled_law.hpp"

namespace tev::conformance {

namespace {
using nlohmann::json;

// Pool by the first H − 1 tokens, as check --drafts sampled does.
std::vector<std::int32_t> prefix_groups(const drafts::LanguagePair& pair, std::size_t cells) {
  return stats::node_groups(
      static_cast<std::int32_t>(cells / static_cast<std::size_t>(pair.vocab())), pair.vocab());
}

// The diagnostic tree: depth ≤ D, the accepted path on it, every drafted token of positive q.
void check_tree(const json& tree_j, const ModelCase& c, const std::vector<Token>& accepted,
                const std::string& where) {
  if (!tree_j.is_object()) fail(where, "\"tree\" must be an object {\"parents\", \"tokens\"}");
  const json& parents_j = field(tree_j, "parents", where + " tree");
  const json& tokens_j = field(tree_j, "tokens", where + " tree");
  if (!parents_j.is_array() || !tokens_j.is_array() || parents_j.size() != tokens_j.size() ||
      parents_j.empty() || static_cast<std::int64_t>(parents_j.size()) > kMaxNodes) {
    fail(where, "tree: parents and tokens must be arrays of one entry per node (1 to " +
                    std::to_string(kMaxNodes) + ")");
  }
  const BuiltTree built = read_tree(parents_j, tokens_j, c.pair.vocab(), where + " tree");
  const DraftTree& tree = built.tree;
  if (tree.max_depth() > c.depth)
    fail(where, "tree: drafted to depth " + std::to_string(tree.max_depth()) +
                    ", deeper than the case's D = " + std::to_string(c.depth));
  NodeId v = 0;
  for (std::size_t k = 0; k < accepted.size(); ++k) {
    v = tree.child_with_token(v, accepted[k]);
    if (v == kNoNode)
      fail(where, "tree: accepted token " + std::to_string(accepted[k]) + " at position " +
                      std::to_string(k) + " is not a drafted child there");
  }
  for (NodeId u = 1; u < tree.size(); ++u) {
    const std::vector<Token> prefix = tree.path_tokens(tree.parent[u]);
    if (!(c.pair.q(prefix)[static_cast<std::size_t>(tree.token[u])] > 0.0)) {
      fail(where, "tree: drafted token " + std::to_string(tree.token[u]) + " after prefix " +
                      json(prefix).dump() + " has q = 0 there: the drafter cannot draw it");
    }
  }
}
}  // namespace

ModelCaseJudge::ModelCaseJudge(const ModelCase& c, std::uint32_t completion_seed,
                               std::uint32_t case_index)
    : case_(&c),
      seed_(completion_seed),
      case_index_(case_index),
      reference_(c.pair.sequence_law()),
      counts_(reference_.size(), 0),
      completion_({completion_seed, Stream::completion, case_index, 0}) {}

void ModelCaseJudge::add_line(std::string_view line, const std::string& where) {
  json j = parse_sample_line(line, where);
  if (!j.is_object() || !j.contains("case_id") || !j.contains("accepted") || !j.contains("bonus")) {
    fail(where, "a sample must be an object with \"case_id\", \"accepted\" and \"bonus\"");
  }
  if (!j["case_id"].is_string() || j["case_id"].get<std::string>() != case_->id) {
    fail(where, "sample for case " + j["case_id"].dump() + " where case \"" + case_->id +
                    "\" was expected");
  }
  const json& accepted_j = j["accepted"];
  if (!accepted_j.is_array()) fail(where, "\"accepted\" must be an array of tokens");
  const std::int64_t vocab = case_->pair.vocab();
  if (static_cast<std::int64_t>(accepted_j.size()) > case_->depth)
    fail(where, too_deep(accepted_j.size()));
  std::vector<Token> accepted;
  for (std::size_t k = 0; k < accepted_j.size(); ++k) {
    accepted.push_back(static_cast<Token>(
        integer(accepted_j[k], 0, vocab - 1, where, "accepted[" + std::to_string(k) + "]")));
  }
  const auto bonus = static_cast<Token>(integer(j["bonus"], 0, vocab - 1, where, "bonus"));
  if (j.contains("tree")) {
    check_tree(j["tree"], *case_, accepted, where);
    ++trees_;
    tree_nodes_ += j["tree"]["parents"].size() - 1;
  }
  add_sample(accepted, bonus, lines_, where);
}

std::string ModelCaseJudge::too_deep(std::size_t accepted) const {
  return "a block of " + std::to_string(accepted + 1) + " tokens (" + std::to_string(accepted) +
         " accepted and the bonus) is deeper than the case's D = " + std::to_string(case_->depth) +
         " allows (at most D + 1 tokens)";
}

void ModelCaseJudge::add_sample(std::span<const Token> accepted, Token bonus, std::uint64_t index,
                                const std::string& where) {
  if (static_cast<std::int64_t>(accepted.size()) > case_->depth)
    fail(where, too_deep(accepted.size()));
  const Token vocab = case_->pair.vocab();
  std::vector<Token> tokens(accepted.begin(), accepted.end());
  tokens.push_back(bonus);
  for (const Token t : tokens) {
    if (t < 0 || t >= vocab)
      fail(where, "token " + std::to_string(t) + " is outside the vocabulary [0, " +
                      std::to_string(vocab) + ")");
  }
  ++lines_;
  length_sum_ += tokens.size();
  completion_.restart({seed_, Stream::completion, case_index_, index});
  judging::complete_to_horizon(case_->pair, tokens, completion_);
  const std::size_t cell = drafts::sequence_cell(tokens, case_->pair.vocab());
  ++counts_[cell];
  // Grown as samples come (8 bytes a sample); samples past the case's count are refused when it
  // is judged (require_all_samples).
  if (index < case_->samples) {
    if (index >= stream_.size()) stream_.resize(index + 1, stats::kNoCell);
    stream_[index] = static_cast<std::int64_t>(cell);
  }
  if (!(reference_[cell] > 0.0)) {
    impossible_.record(index, where, [&] {
      return "the block " +
             json(std::vector<Token>(tokens.begin(), tokens.begin() + static_cast<std::ptrdiff_t>(
                                                                          accepted.size() + 1)))
                 .dump() +
             " has zero probability under p";
    });
  }
}

void ModelCaseJudge::merge(const ModelCaseJudge& other) {
  if (other.case_ != case_) throw std::logic_error("merging the judges of two different cases");
  for (std::size_t k = 0; k < counts_.size(); ++k) counts_[k] += other.counts_[k];
  if (other.stream_.size() > stream_.size()) stream_.resize(other.stream_.size(), stats::kNoCell);
  for (std::size_t i = 0; i < other.stream_.size(); ++i) {
    if (other.stream_[i] != stats::kNoCell) stream_[i] = other.stream_[i];
  }
  lines_ += other.lines_;
  length_sum_ += other.length_sum_;
  trees_ += other.trees_;
  tree_nodes_ += other.tree_nodes_;
  impossible_.merge(other.impossible_);
}

std::string model_verdict_text(judging::Verdict v) {
  switch (v) {
    case judging::Verdict::not_exact:
      return "not exact";
    case judging::Verdict::inconclusive:
      return "inconclusive";
    default:
      return "exact (marginally)";
  }
}

namespace {}  // namespace

std::optional<double> model_stated_tv(const ModelCase& c, const judging::VerdictPolicy& policy,
                                      std::size_t cases, std::size_t index) {
  const std::vector<double> law = c.pair.sequence_law();
  const std::vector<std::int32_t> groups = prefix_groups(c.pair, law.size());
  return stats::larger_tv(
      judging::detectable_tv(law, groups, c.samples, policy.identity_level(cases, false, true),
                             policy.required_power),
      stats::iid_detectable_tv(law, groups, c.samples, policy.iid_test_levels(cases, index, false),
                               policy.required_power));
}

ModelReport judge_models(const std::vector<ModelCaseJudge>& judges,
                         const judging::VerdictPolicy& policy) {
  ModelReport report;
  report.policy = policy;
  // Every model case runs its tests of independence beside its identity test.
  const double level = report.policy.identity_level(judges.size(), false, true);
  std::vector<judging::TreeEvidence> evidence;
  for (const ModelCaseJudge& judge : judges) {
    const ModelCase& c = judge.spec();
    require_all_samples(judge);
    const std::vector<double>& reference = judge.reference();
    const std::vector<std::int32_t> groups = prefix_groups(c.pair, reference.size());
    ModelCaseResult r;
    r.id = c.id;
    r.label = c.label;
    r.drafting = c.drafting ? c.drafting->label() : "";
    r.vocab = c.pair.vocab();
    r.horizon = c.pair.horizon();
    r.impossible = judge.impossible();
    r.first_impossible = judge.first_impossible();
    r.trees = judge.trees();
    r.mean_tree_nodes =
        judge.trees() ? static_cast<double>(judge.tree_nodes()) / static_cast<double>(judge.trees())
                      : 0.0;
    // Only the exactness evidence: no tree, so no ceiling, acceptance or saturation tests.
    judging::TreeEvidence& e = r.evidence;
    e.samples = judge.lines();
    e.chi_square = stats::identity_test(
        judge.counts(), reference, groups,
        report.policy.identity_test_level(judges.size(), evidence.size(), false, true),
        judging::kReportedDeviations, &e.largest_deviations);
    std::vector<std::int64_t> stream = judge.stream();
    stream.resize(c.samples, stats::kNoCell);
    e.iid_tests = judging::case_iid_tests(
        stream, reference, groups,
        report.policy.iid_test_levels(judges.size(), evidence.size(), false), report.policy,
        judges.size(), false, e.chi_square.p_value);
    e.mean_length = static_cast<double>(judge.length_sum()) / static_cast<double>(judge.lines());
    e.detectable_tv =
        judging::detectable_tv(reference, groups, c.samples, level, report.policy.required_power);
    if (c.drafting && reference.size() <= kMaxReferenceCells) {
      r.reference_mean_length =
          judging::enumerate_marginal(c.pair,
                                      {drafts::exact_verifier_for(c.drafting->policy), *c.drafting})
              .mean_length;
    }
    evidence.push_back(e);
    report.cases.push_back(std::move(r));
  }
  decide_into(report, evidence);
  return report;
}

}  // namespace tev::conformance
