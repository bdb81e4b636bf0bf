#pragma once
// Batch cases (format_version 5): K fixed-tree requests that an engine verifies together, in one
// call per round, as it verifies a batch of requests with different trees, lengths and sampling
// parameters. Each request is a fixed-tree case object (format_version 1 or 3) inside the batch's
// line; the batch's `samples` is the number of rounds, and every round the verifier answers one
// block per request, in the batch's order:
//   {"format_version": 5, "case_id": "k0", "samples": n, "requests": [{case}, {case}, ...]}
//   {"case_id": "k0", "blocks": [{"request": "k0.r0", "accepted": [...], "bonus": t}, ...]}
// The requests share one vocabulary (one model), so an engine can lay their rows out flat.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "conformance/case_io.hpp"

namespace tev::conformance {

inline constexpr std::int64_t kMaxBatchRequests = 64;

struct BatchCase {
  std::string id;
  std::string label;
  std::uint64_t samples = 0;   // rounds: each request's sample count
  std::vector<Case> requests;  // in the batch's order; each request's id is its own case_id
};

// The cells a batch holds while judged: its requests' (rows, and logits of format-3 requests) and
// the joint counts of every pair of requests' exit nodes, N_i × N_j each.
std::int64_t held_cells(const BatchCase& b);

// Parses one batch line; `where` prefixes every message. Refused (InputError naming where, the
// batch and the request): a request that is not a format 1 or 3 case, a request id used twice, a
// request whose `samples` differs from the batch's, requests of different vocabularies, fewer
// than 1 or more than kMaxBatchRequests requests, and more than limits.cells cells (held_cells).
BatchCase parse_batch_case(std::string_view line, const std::string& where,
                           const CaseLimits& limits = {});

using BatchCaseReader = BasicCaseReader<BatchCase, parse_batch_case>;

// Writes a batch line from its requests' case lines (format 1 or 3, one vocabulary); each
// request's `samples` is replaced by the batch's rounds.
std::string write_batch_case(const std::string& id, const std::string& label,
                             const std::vector<std::string>& request_lines, std::uint64_t rounds);

}  // namespace tev::conformance
