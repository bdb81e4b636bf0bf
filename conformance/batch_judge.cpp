#include "conformance/batch_judge.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <utility>

#include "conformance/json_input.hpp"
#include "core/exit_law.hpp"
#include "stats/iid_assumption.hpp"

namespace tev::conformance {

using nlohmann::json;

BatchJudge::BatchJudge(const BatchCase& batch, std::uint32_t completion_seed,
                       std::uint32_t batch_index)
    : batch_(&batch) {
  const auto first_index = static_cast<std::uint32_t>(batch_index * kMaxBatchRequests);
  for (std::size_t k = 0; k < batch.requests.size(); ++k)
    judges_.emplace_back(batch.requests[k], completion_seed,
                         first_index + static_cast<std::uint32_t>(k));
}

void BatchJudge::add_line(std::string_view line, const std::string& where) {
  json j = parse_sample_line(line, where);
  const std::string at = where + " (batch " + batch_->id + ")";
  if (!j.is_object() || !j.contains("case_id") || !j.contains("blocks") ||
      !j["blocks"].is_array()) {
    throw InputError(where + ": a round must be an object with \"case_id\" and a \"blocks\" array");
  }
  if (!j["case_id"].is_string() || j["case_id"].get<std::string>() != batch_->id) {
    throw InputError(where + ": round for case " + j["case_id"].dump() + " where batch \"" +
                     batch_->id + "\" was expected");
  }
  const json& blocks = j["blocks"];
  const std::vector<Case>& requests = batch_->requests;
  std::vector<RequestBlock> round(blocks.size());
  for (std::size_t k = 0; k < blocks.size() && k < requests.size(); ++k) {
    const json& b = blocks[k];
    const std::string block_at = at + " block " + std::to_string(k);
    if (!b.is_object() || !b.contains("request") || !b["request"].is_string() ||
        !b.contains("accepted") || !b["accepted"].is_array() || !b.contains("bonus")) {
      throw InputError(block_at +
                       ": a block must be an object with a string \"request\", an \"accepted\" "
                       "array and a \"bonus\"");
    }
    const std::string id = b["request"].get<std::string>();
    if (id != requests[k].id) {
      const bool in_batch =
          std::any_of(requests.begin(), requests.end(), [&](const Case& c) { return c.id == id; });
      throw InputError(block_at + ": " +
                       (in_batch
                            ? "request \"" + id + "\" out of order: this block is request \"" +
                                  requests[k].id + "\"'s (answer in the batch's order)"
                            : "request \"" + id + "\" is not in the batch (block " +
                                  std::to_string(k) + " is request \"" + requests[k].id + "\"'s)"));
    }
    const std::string request_at = block_at + " (request " + id + ")";
    for (std::size_t t = 0; t < b["accepted"].size(); ++t) {
      round[k].accepted.push_back(
          token_field(b["accepted"][t], request_at, "accepted[" + std::to_string(t) + "]"));
    }
    round[k].bonus = token_field(b["bonus"], request_at, "bonus");
  }
  add_round(round, rounds_, at);
}

void BatchJudge::add_round(std::span<const RequestBlock> blocks, std::uint64_t round,
                           const std::string& where) {
  const std::vector<Case>& requests = batch_->requests;
  if (blocks.size() != requests.size()) {
    throw InputError(where + ": " + std::to_string(blocks.size()) + " blocks for the batch's " +
                     std::to_string(requests.size()) + " requests" +
                     (blocks.size() < requests.size()
                          ? " (request \"" + requests[blocks.size()].id + "\" has none)"
                          : ""));
  }
  ++rounds_;
  for (std::size_t k = 0; k < blocks.size(); ++k)
    judges_[k].add_sample(blocks[k].accepted, blocks[k].bonus, round,
                          where + " request " + requests[k].id);
}

std::vector<stats::Binning> request_pair_bins(const BatchCase& batch) {
  std::vector<stats::Binning> bins;
  for (const Case& r : batch.requests) {
    const std::vector<double> law =
        canonical_block_law(r.tree, r.rows, ExitLaw::compute(r.tree, r.rows));
    const std::uint64_t fewest =
        batch.samples > stats::kSerialLags ? batch.samples - stats::kSerialLags : 0;
    bins.push_back(stats::pair_bins(law, stats::node_groups(r.tree.size(), r.tree.vocab),
                                    static_cast<double>(fewest)));
  }
  return bins;
}

judging::TreeEvidence pair_evidence(const BatchCase& batch, std::span<const stats::Binning> bins,
                                    std::size_t i, std::size_t j,
                                    std::span<const std::int64_t> first_stream,
                                    std::span<const std::int64_t> second_stream,
                                    const judging::VerdictPolicy& policy, std::size_t family,
                                    std::size_t index) {
  const Case &first = batch.requests[i], &second = batch.requests[j];
  const stats::PairLaw law = stats::pair_law(bins[i], bins[j]);
  const stats::IidTest within = stats::pair_test(
      first_stream, second_stream, law, policy.identity_test_level(family, index, false, true),
      policy.required_power, batch.id + "/" + first.id + " x " + second.id);
  judging::TreeEvidence e;
  e.samples = within.samples;
  e.chi_square = within.result;
  e.detectable_tv = within.detectable_tv;
  e.iid_tests = stats::lagged_pair_tests(first_stream, second_stream, law,
                                         policy.iid_test_levels(family, index, false),
                                         policy.required_power, first.id, second.id);
  return e;
}

BatchReport judge_batches(const std::vector<BatchJudge>& judges,
                          const judging::VerdictPolicy& policy) {
  BatchReport report;
  report.policy = policy;
  std::size_t family = 0;
  for (const BatchJudge& judge : judges) {
    const std::size_t k = judge.spec().requests.size();
    family += k + k * (k - 1) / 2;
  }
  std::vector<judging::TreeEvidence> evidence;
  for (const BatchJudge& judge : judges) {
    const BatchCase& b = judge.spec();
    if (judge.lines() != b.samples) {
      throw InputError("batch " + b.id + ": " + std::to_string(judge.lines()) +
                       " rounds, the batch asks for " + std::to_string(b.samples));
    }
    for (const CaseJudge& request : judge.requests()) {
      CaseResult r = case_result(request, policy, family, evidence.size());
      r.id = b.id + "/" + r.id;
      evidence.push_back(r.evidence);
      report.requests.push_back(std::move(r));
    }
  }
  // Where each pair's requests sit in report.requests.
  std::vector<std::pair<std::size_t, std::size_t>> pair_requests;
  std::size_t batch_offset = 0;
  for (const BatchJudge& judge : judges) {
    const BatchCase& b = judge.spec();
    const std::vector<stats::Binning> bins = request_pair_bins(b);
    std::size_t pair = 0;
    for (std::size_t i = 0; i < b.requests.size(); ++i) {
      for (std::size_t j = i + 1; j < b.requests.size(); ++j, ++pair) {
        const Case &first = b.requests[i], &second = b.requests[j];
        pair_requests.emplace_back(batch_offset + i, batch_offset + j);
        const std::string id = b.id + "/" + first.id + " x " + second.id;
        std::vector<std::int64_t> first_stream = judge.requests()[i].stream(),
                                  second_stream = judge.requests()[j].stream();
        first_stream.resize(b.samples,
                            stats::kNoCell);  // impossible blocks at the end were never stored
        second_stream.resize(b.samples, stats::kNoCell);
        PairResult p{id, b.id, first.id, second.id, {}, {}, {}};
        p.evidence = pair_evidence(b, bins, i, j, first_stream, second_stream, policy, family,
                                   evidence.size());
        evidence.push_back(p.evidence);
        report.pairs.push_back(std::move(p));
      }
    }
    batch_offset += b.requests.size();
  }
  const judging::SubjectVerdict decision = judging::decide(evidence, policy);
  report.overall = decision.verdict;
  report.exactness_tests = decision.exactness_tests;
  report.saturation_tests = decision.saturation_tests;
  for (std::size_t k = 0; k < report.requests.size(); ++k)
    report.requests[k].decision = decision.cases[k];
  const auto not_exact = [&](std::size_t request) {
    return report.requests[request].decision.verdict == judging::Verdict::not_exact;
  };
  for (std::size_t k = 0; k < report.pairs.size(); ++k) {
    PairResult& p = report.pairs[k];
    p.decision = decision.cases[report.requests.size() + k];
    const auto [first, second] = pair_requests[k];
    const std::string off = not_exact(second) ? p.second : not_exact(first) ? p.first : "";
    if (p.evidence.samples == 0) {
      p.decision.verdict = judging::Verdict::inconclusive;
      p.finding = "untested: no round where both blocks were possible";
      continue;
    }
    // Which test decides: the one with the smallest p-value over its share of the level.
    const bool across_rounds =
        !p.evidence.iid_tests.empty() &&
        judging::smallest_iid_p(p.evidence) / judging::VerdictPolicy::iid_test_share(false) <
            p.evidence.chi_square.p_value / judging::VerdictPolicy::identity_share(false, true);
    p.finding = p.decision.verdict == judging::Verdict::inconclusive ? "inconclusive"
                : p.decision.verdict != judging::Verdict::not_exact  ? "independent"
                : !off.empty()  ? "off the product: request " + off + " is not exact"
                : across_rounds ? "dependent across rounds (a leak)"
                                : "dependent (a leak)";
  }
  report.first_failing = first_case_with(report.requests, report.overall);
  if (report.first_failing.empty())
    report.first_failing = first_case_with(report.pairs, report.overall);
  return report;
}

}  // namespace tev::conformance
