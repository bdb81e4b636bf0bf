#pragma once
// Judges a verifier's answers to batch cases (conformance/batch_case.hpp). Each request is judged
// as a fixed-tree case of its own (its completed blocks against its canonical law, E[L] and
// per-node acceptance against its ceiling, its rounds' stream tested for independence), and every
// pair of a batch's requests is tested for independence within a round and across rounds: the
// joint law of their whole completed blocks (exit node and bonus, each request's cells in its pair
// bins) in one round, and at every lag 1 .. stats::kSerialLags in either order (one request's
// round r beside the other's round r + l), against the product of their canonical laws, by the
// pair tests (stats/iid_assumption.hpp). Requests and pairs form
// one exactness family of the verdict policy (Holm at α/2), each pair powered as a case is: it
// must detect every joint law of the two requests' bins at TV max_detectable_tv from the product,
// in any direction, or the verdict is inconclusive. Under an exact verifier whose requests do not
// share randomness the completed blocks of two requests are independent (each is completed on its
// own stream), so a rejection is a leak: a request reading another's rows or uniforms, for its
// exit or only for its bonus, in the same round or a later one (a slot reading a neighbour's
// generator state, per-slot streams shifted by a round).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "conformance/batch_case.hpp"
#include "conformance/judge.hpp"

namespace tev::conformance {

// One request's block in a round, as tokens.
struct RequestBlock {
  std::vector<std::int64_t> accepted;
  std::int64_t bonus = 0;
};

class BatchJudge {
 public:
  // Request k's completion stream is keyed by completion_seed and batch_index · kMaxBatchRequests + k.
  BatchJudge(const BatchCase& batch, std::uint32_t completion_seed, std::uint32_t batch_index);

  // One round line {"case_id", "blocks": [{"request", "accepted", "bonus"}, ...]}. InputError,
  // naming `where`, the batch and the request, for malformed JSON, a blocks array shorter or longer
  // than the batch, a block for a request not in the batch, or one out of the batch's order; an
  // impossible block is counted against its request.
  void add_line(std::string_view line, const std::string& where);
  // One round as tokens, the batch's order: `round` keys the completion draws.
  void add_round(std::span<const RequestBlock> blocks, std::uint64_t round,
                 const std::string& where);

  const BatchCase& spec() const { return *batch_; }
  const std::vector<CaseJudge>& requests() const { return judges_; }
  std::uint64_t lines() const { return rounds_; }

 private:
  const BatchCase* batch_;
  std::vector<CaseJudge> judges_;
  std::uint64_t rounds_ = 0;
};

// One pair of a batch's requests: their independence within a round and across rounds.
struct PairResult {
  std::string id;  // "batch/first x second"
  std::string batch, first, second;
  // samples, chi_square and detectable_tv: within a round; iid_tests: the rounds a lag apart
  // (stats::lagged_pair_tests); no tree tests.
  judging::TreeEvidence evidence;
  judging::CaseVerdict decision;
  // The decision in the pair's own words: "independent"; "inconclusive"; "dependent (a leak)" when
  // it is rejected while both requests are exact, "dependent across rounds (a leak)" when a lagged
  // test is what rejects; or, when a request is itself not exact (its own
  // law moves the joint law off the product), "off the product: request X is not exact"; or
  // "untested" when no round had both blocks possible (then a request is not exact).
  std::string finding;
};

struct BatchReport {
  std::vector<CaseResult> requests;  // every batch's requests in order, ids "batch/request"
  std::vector<PairResult> pairs;
  judging::Verdict overall = judging::Verdict::exact_saturated;
  std::string
      first_failing;  // the first request or pair with the overall verdict, when not saturated
  judging::VerdictPolicy policy;
  std::size_t exactness_tests = 0;  // requests and pairs
  std::size_t saturation_tests = 0;
  int exit_code() const { return judging::verdict_exit_code(overall); }
};

// The verdicts of every batch's requests and pairs under the policy; InputError when a batch
// lacks rounds.
BatchReport judge_batches(const std::vector<BatchJudge>& judges,
                          const judging::VerdictPolicy& policy);

// Each request's pair bins (stats/iid_assumption.hpp) at the fewest pairs any pair test of the batch
// counts (its rounds less stats::kSerialLags), (K): computed once per batch, for all its pairs.
std::vector<stats::Binning> request_pair_bins(const BatchCase& batch);

// The evidence on requests i and j of `batch` from their streams of rounds (a stream of
// stats::kNoCell gives the tests' statements alone): the test within a round and the lagged tests,
// at the levels of member `index` of an exactness family of `family`.
judging::TreeEvidence pair_evidence(const BatchCase& batch, std::span<const stats::Binning> bins,
                                    std::size_t i, std::size_t j,
                                    std::span<const std::int64_t> first_stream,
                                    std::span<const std::int64_t> second_stream,
                                    const judging::VerdictPolicy& policy, std::size_t family,
                                    std::size_t index);

}  // namespace tev::conformance
