#pragma once
// Reading JSON input under the conformance limits, shared by the fixed-tree case reader
// (case_io.hpp) and the model-case reader (model_case.hpp): every message names where it is.
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/draft_tree.hpp"
#include "core/sampling_params.hpp"

namespace tev::conformance {

[[noreturn]] void fail(const std::string& where, const std::string& problem);

const nlohmann::json& field(const nlohmann::json& j, const char* name, const std::string& where);

// An integer checked against [lo, hi] as the JSON number it is (nlohmann keeps non-negative
// integers unsigned), so no value out of range can wrap when narrowed.
std::int64_t integer(const nlohmann::json& j, std::int64_t lo, std::int64_t hi,
                     const std::string& where, const std::string& what);
inline std::int64_t any_integer(const nlohmann::json& j, const std::string& where,
                                const std::string& what) {
  return integer(j, std::numeric_limits<std::int64_t>::min(),
                 std::numeric_limits<std::int64_t>::max(), where, what);
}

// Parses a line into a JSON tree of at most max_values values, refusing a larger one while it grows.
nlohmann::json parse_bounded(std::string_view line, std::int64_t max_values,
                             const std::string& where);

// A tree from "parents" and "tokens" arrays of equal length n ≥ 1 (the caller checks the shape and
// n ≤ kMaxNodes): every integer range-checked, tokens[0] null, then validated and level-ordered.
BuiltTree read_tree(const nlohmann::json& parents_j, const nlohmann::json& tokens_j,
                    std::int64_t vocab, const std::string& at);

// A sample line (fixed-tree, model or batch round) parsed: InputError naming `where` when it is not
// valid JSON (numbers like 1e999 included).
nlohmann::json parse_sample_line(std::string_view line, const std::string& where);

// A sample's token: any JSON integer (a value outside the vocabulary is the judge's impossible
// event, not bad input); InputError naming `where` and `what` otherwise.
std::int64_t token_field(const nlohmann::json& j, const std::string& where,
                         const std::string& what);

// A case's format_version, read before anything else of the case.
std::int64_t format_version(const nlohmann::json& j, const std::string& where);

// Reads case_id (a non-empty string), the optional label and samples (1 to kMaxSamples); returns
// `where` with the case named, for every later message.
std::string read_header(const nlohmann::json& j, const std::string& where, std::string& id,
                        std::string& label, std::uint64_t& samples);

// Fills `out` (length V) from a dense row (V probabilities summing to 1 within kRowTolerance) or a
// sparse {"tokens", "probs"} row that lists every token of `required`, the rest of its mass spread
// uniformly over the unlisted tokens.
void read_row(const nlohmann::json& row, std::int64_t vocab, const std::vector<Token>& required,
              std::span<double> out, const std::string& where);

// Fills `out` (length V) from a logit row: dense (V finite numbers) or sparse {"tokens", "logits",
// "fill"}, listed tokens distinct and every unlisted one at the finite `fill` (required unless
// every token is listed).
void read_logit_row(const nlohmann::json& row, std::int64_t vocab, std::span<double> out,
                    const std::string& where);

// A request's sampling parameters from {"temperature", "top_k", "top_p", "min_p", "order"}, each
// optional (absent: off, order min_p_first); a name not among them or a value out of range is refused.
SamplingParams read_sampling(const nlohmann::json& j, const std::string& where);

}  // namespace tev::conformance
