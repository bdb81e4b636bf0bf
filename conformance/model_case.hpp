#pragma once
// Conformance model cases (format_version 2): a language pair, not a tree. The outside verifier
// drafts its own tree from q and verifies it with p, once per sample, and answers with the block
// it emitted; the judge completes every block with p to the horizon H = D + 1 and compares the
// completed H tokens with p's H-token law (marginal exactness). One JSON object per line:
//   {"format_version": 2, "case_id": "m0", "label": "...", "vocab": V, "depth": D, "samples": n,
//    "drafting": {"policy": "iid", "width": 2},                  (optional hint)
//    "rows": [{"prefix": [], "p": row, "q": row}, {"prefix": [0], "p": row, "q": row}, ...]}
// `rows` holds one entry for every prefix of length 0..D (Σ_{l≤D} V^l of them, in any order),
// keyed by its token list; p is p(· | context ‖ prefix), q the drafter's row there; each row dense
// (V probabilities summing to 1 within kRowTolerance) or sparse as in format 1 ({"tokens",
// "probs"}, the rest of the mass spread uniformly over the unlisted tokens). A file holds cases of
// one kind only. Format 4 (engine-shaped) gives each row's "p_logits" and "q_logits" instead (dense
// or sparse {"tokens", "logits", "fill"}) and an optional "sampling": {"target": {...}, "drafter":
// {...}}; p's rows are processed by the target's parameters, q's by the drafter's.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "conformance/case_io.hpp"
#include "drafts/drafting.hpp"
#include "drafts/language_pair.hpp"

namespace tev::conformance {

// D ≤ 11 keeps H = D + 1 within the language pair's tabulation limit.
inline constexpr std::int64_t kMaxModelDepth = 11;
inline constexpr std::int64_t kMaxModelWidth = 64;  // k of the drafting hint

// A format-4 case's logit rows as given: (prefixes, V) each, in the language pair's prefix order.
struct ModelLogits {
  std::vector<double> p;
  std::vector<double> q;
};

struct ModelCase {
  std::string id;
  std::string label;
  std::uint64_t samples = 0;
  std::int32_t depth = 0;  // D: a block holds at most D accepted tokens and the bonus
  std::optional<drafts::Drafting>
      drafting;  // the case's hint (depth D); the verifier may draft otherwise
  drafts::LanguagePair
      pair;  // p and q for every prefix of length ≤ D; horizon H = D + 1 (format 4: processed)
  std::int64_t format_version = kModelFormatVersion;
  SamplingParams target_sampling;   // format 4: what p's rows were processed by
  SamplingParams drafter_sampling;  // format 4: what q's rows were processed by
  ModelLogits logits;               // format 4; empty otherwise
};

// What a model case holds while judged: p and q rows (2 · prefixes · V) and the H-token law with
// its counts (2 · V^H). The same cell limits as fixed-tree cases apply to it.
std::int64_t model_cells(std::int64_t vocab, std::int64_t depth, std::int64_t limit);
inline std::int64_t held_cells(const ModelCase& c) {
  return model_cells(c.pair.vocab(), c.depth, kMaxHeldCells);
}

// Parses one model-case line; `where` prefixes every message. Refuses a missing, repeated or too
// long prefix, rows off 1, tokens outside the vocabulary, and a case over limits.cells before its
// rows are allocated.
ModelCase parse_model_case(std::string_view line, const std::string& where,
                           const CaseLimits& limits = {});
using ModelCaseReader = BasicCaseReader<ModelCase, parse_model_case>;

// The drafting policies' names in the hint: chain, independent-chains, iid, without-replacement, top-k.
std::string_view policy_name(drafts::DraftPolicy policy);

// The cases write_model_case and write_engine_model_case write, as the lines read back
// (parse_model_case of the line equals the case, field for field), built directly from the same
// arguments: the in-process check takes its model cases so, without the JSON.
ModelCase make_model_case(const std::string& id, const std::string& label,
                          const drafts::LanguagePair& pair,
                          const std::optional<drafts::Drafting>& drafting, std::uint64_t samples);
ModelCase make_engine_model_case(const std::string& id, const std::string& label,
                                 const drafts::LanguagePair& pair,
                                 const std::optional<drafts::Drafting>& drafting,
                                 std::span<const double> p_logits, std::span<const double> q_logits,
                                 const SamplingParams& target, const SamplingParams& drafter,
                                 std::uint64_t samples);

// Writes a model case as one JSON line, rows dense, in the pair's prefix order.
std::string write_model_case(const std::string& id, const std::string& label,
                             const drafts::LanguagePair& pair,
                             const std::optional<drafts::Drafting>& drafting,
                             std::uint64_t samples);
// Writes a format-4 case: p's and q's logit rows (pair.prefixes(), V) in the pair's prefix order,
// and the target's and the drafter's sampling parameters (pair gives the depth, V and prefixes).
std::string write_engine_model_case(const std::string& id, const std::string& label,
                                    const drafts::LanguagePair& pair,
                                    const std::optional<drafts::Drafting>& drafting,
                                    std::span<const double> p_logits,
                                    std::span<const double> q_logits, const SamplingParams& target,
                                    const SamplingParams& drafter, std::uint64_t samples);

// The format_version of a cases file's first case (1, 3: fixed trees; 2, 4: model cases; 5: batches).
std::int64_t cases_file_version(const std::string& path);

}  // namespace tev::conformance
