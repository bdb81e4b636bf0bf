#pragma once
// Every use of the suite's counter-based randomness, one line each, so that no two uses read the
// same Philox blocks. A draw site is key (seed, stream) and counter (sample word, draw, tree word)
// (core/philox.hpp). A use either
//  - owns a stream (kWholeStream): it indexes the tree word and the sample word itself
//    (Monte Carlo plans: tree id, sample index), or
//  - holds a tag on the generation stream: the sample word is the tag, the tree word is the use's
//    own index (a prefix hash, a case, a sequence), the draw index counts its draws.
// Monte Carlo plans on the verifier and completion streams are kept apart by plan seed and tree id:
// equivalence checks (seed S, tree i), theorem1's homogeneity reference (S, tree 2^20 + i),
// calibration (seeds 1..K, trees 0 and 1), power replicates (S + 1000003·(r + 1)), live's first
// word (S + 1), ExitTrain coverage (S, tree i, the same for every drafter and budget: Bonferroni
// needs no independence there), conformance completions (S, case index; fixed-tree and model
// cases alike, never both in one run; the in-process check of api/ draws the verifier's own
// randomness on the verifier stream at (S, case index, sample) beside them), sampled-draft cases (check --drafts sampled: its own seed,
// tree word = the (case, pair) instance).
// Adding a use: one line in `uses` and one entry in kRandomUses (core/tests/random_streams_test.cpp
// checks that it collides with nothing). Test programs pick their own sites; they share no run with
// these uses. Random llama2.c checkpoints (models/llama2c.cpp, tests only) use std::mt19937, not Philox.
#include <array>
#include <cstdint>
#include <string_view>

#include "core/philox.hpp"

namespace tev {

inline constexpr std::uint64_t kWholeStream = ~std::uint64_t{0};

struct RandomUse {
  std::string_view name;
  Stream stream;
  std::uint64_t tag;  // sample word on the generation stream; kWholeStream for a stream of its own
  // The site of index `id` of a tagged use.
  constexpr DrawSite site(std::uint32_t seed, std::uint32_t id = 0) const {
    return {seed, stream, id, tag};
  }
};

namespace uses {
inline constexpr RandomUse verifier{"verifier draws of Monte Carlo plans (tree id, sample)",
                                    Stream::verifier, kWholeStream};
inline constexpr RandomUse completion{"completion after an in-tree bonus (tree or case, sample)",
                                      Stream::completion, kWholeStream};
inline constexpr RandomUse composition{"composition check's verifier draws (round, sequence)",
                                       Stream::composition, kWholeStream};
inline constexpr RandomUse drafting{
    "sampled-draft trees' draft tokens (tree word: instance · prefixes + prefix, sample)",
    Stream::drafting, kWholeStream};
// Tree word: the node's index (drafting) or 2^24 + the verifier's (verification); sample word:
// live/live_sampled.hpp's key of (part: first word or rounds, drafter x policy, sample or draw).
inline constexpr RandomUse sampled_live{
    "live --drafts sampled: draft tokens per node and verifier draws (node or verifier, "
    "part/stream/sample)",
    Stream::sampled_live, kWholeStream};
inline constexpr RandomUse synthetic_target_rows{"synthetic target rows (id: prefix hash)",
                                                 Stream::generation, 0};
inline constexpr RandomUse synthetic_draft_rows{"synthetic draft rows (id: prefix hash)",
                                                Stream::generation, 1};
inline constexpr RandomUse suite_trees{"suite trees (id: case)", Stream::generation, 2};
inline constexpr RandomUse exittrain_sim_data{
    "ExitTrain sim (id 0 target tables, 1 warm-up, 2 training examples, 3 test contexts)",
    Stream::generation, 3};
inline constexpr RandomUse sequences{
    "sequences sampled from a language model: live contexts, ExitTrain live data (id: sequence)",
    Stream::generation, 4};
inline constexpr RandomUse exittrain_live_init{"ExitTrain live drafter's initial weights",
                                               Stream::generation, 5};
inline constexpr RandomUse exittrain_live_shuffles{
    "ExitTrain live example order (id 0 warm-up, 1 training)", Stream::generation, 6};
inline constexpr RandomUse composition_rows{"composition's order-2 model rows (id: context)",
                                            Stream::generation, 7};
inline constexpr RandomUse generation_rounds{"speculative generation's verifier draws (id: round)",
                                             Stream::generation, 8};
inline constexpr RandomUse null_simulation{
    "Monte Carlo p-values of the identity test's statistics (test id, replicate)",
    Stream::null_simulation, kWholeStream};
inline constexpr RandomUse bench_workload{
    "bench live workload (id 0 logit pool, 1 drafter marginals)", Stream::generation, 9};
inline constexpr RandomUse engine_logit_offsets{
    "engine-shaped cases' logit scale and row offsets (id: tree drawn)", Stream::generation, 10};
inline constexpr RandomUse generation_case_logits{
    "generation cases' n-gram logits (id: 2 · context + 0 target, 1 drafter noise)",
    Stream::generation, 11};
inline constexpr RandomUse generation_runs{
    "generation check's speculative and plain generations (tree word: loop · cases + case, "
    "sample: generation)",
    Stream::generation_runs, kWholeStream};
inline constexpr RandomUse engine_generation_loops{
    "an engine's generation loop: one seed per call (id: request, draw: call)", Stream::generation,
    12};
}  // namespace uses

inline constexpr std::array kRandomUses = {
    uses::verifier,
    uses::completion,
    uses::composition,
    uses::drafting,
    uses::sampled_live,
    uses::synthetic_target_rows,
    uses::synthetic_draft_rows,
    uses::suite_trees,
    uses::exittrain_sim_data,
    uses::sequences,
    uses::exittrain_live_init,
    uses::exittrain_live_shuffles,
    uses::composition_rows,
    uses::generation_rounds,
    uses::bench_workload,
    uses::engine_logit_offsets,
    uses::generation_case_logits,
    uses::generation_runs,
    uses::engine_generation_loops,
    uses::null_simulation,
};

}  // namespace tev
