#pragma once
// The vocabulary of <tevsuite/check.hpp>, which includes it: the cases, blocks, randomness, draws,
// verifiers and options that a verifier, a check's caller and tevsuite's own in-process check
// share. Header-only, over standard headers and <tevsuite/defaults.h> alone, so the judging code
// below the public library is written in these types without reaching up to the calls that
// library defines.
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <tevsuite/defaults.h>

namespace tevsuite {

// The order of the filters: vLLM's (min-p, top-k, then top-p on the survivors); Hugging Face
// transformers' (min-p after top-k and top-p); SGLang's (top-p on the full distribution,
// intersected with top-k and min-p).
enum class FilterOrder { min_p_first, min_p_last, top_p_full_and_top_k };

// A request's sampling parameters, as an engine applies them to its logits: divide by the
// temperature, softmax, then min-p, top-k and top-p in the given order. docs/protocol.md states
// each step.
// A temperature below this (vLLM's _SAMPLING_EPS; 0 included) is greedy: the first argmax.
inline constexpr double kGreedyTemperature = 1e-5;
struct SamplingParams {
  double temperature = 1.0;  // ≥ 0; below kGreedyTemperature: greedy
  std::int64_t top_k = 0;    // 0: off; keeps every logit ≥ the k-th largest
  double top_p = 1.0;        // in (0, 1]; 1: off
  double min_p = 0.0;        // in [0, 1); 0: off
  FilterOrder order = FilterOrder::min_p_first;
};

// One fixed-tree case as the verifier sees it: plain arrays in level order (a parent before its
// children, siblings in any order), node 0 the root. An engine-shaped case
// (TreeCheckOptions::engine_inputs) gives logits and sampling instead of probs: the verifier must
// process the rows itself, and is judged against the processed target.
struct TreeCase {
  std::string_view id;
  std::string_view label;
  std::int32_t vocab = 0;
  std::span<const std::int32_t> parents;  // (N) parent of node i; −1 for the root
  std::span<const std::int32_t> tokens;   // (N) token of node i; −1 for the root
  std::span<const double> probs;  // (N, V) target p(· | path to node i); sparse rows arrive dense
  std::span<const double>
      logits;  // engine-shaped cases: (N, V) the target's logits; probs is then empty
  std::optional<SamplingParams> sampling;  // engine-shaped cases: what to apply to logits

  std::int32_t nodes() const { return static_cast<std::int32_t>(parents.size()); }
  std::span<const double> row(std::int32_t node) const {
    return probs.subspan(static_cast<std::size_t>(node) * static_cast<std::size_t>(vocab),
                         static_cast<std::size_t>(vocab));
  }
  std::span<const double> logit_row(std::int32_t node) const {
    return logits.subspan(static_cast<std::size_t>(node) * static_cast<std::size_t>(vocab),
                          static_cast<std::size_t>(vocab));
  }
};

// A fixed-tree case that owns its arrays (a case of your own, or one read from a case line).
struct OwnedTreeCase {
  std::string id;
  std::string label;
  std::int32_t vocab = 0;
  std::vector<std::int32_t> parents;  // (N)
  std::vector<std::int32_t> tokens;   // (N)
  std::vector<double> probs;          // (N, V)
  std::uint64_t samples = 0;          // the samples a case line asks for (0 for a case of your own)

  TreeCase view() const { return {id, label, vocab, parents, tokens, probs, {}, {}}; }
};

// The drafting a model case suggests (the verifier may draft otherwise and stay exact).
enum class DraftPolicy { chain, independent_chains, iid_children, without_replacement, top_k };
struct DraftingHint {
  DraftPolicy policy = DraftPolicy::chain;
  std::int32_t width = 1;  // k children per node; 1 for a chain
  std::int32_t depth = 0;  // D
};

// A model case's rows: p(· | context ‖ prefix) and q(· | context ‖ prefix), V entries each, for a
// prefix of 0 .. D tokens in [0, V); for an engine-shaped case their logits instead (p and q then
// throw std::logic_error, as p_logits and q_logits do on another case). Implemented by tevsuite.
class ModelRows {
 public:
  virtual std::span<const double> p(std::span<const std::int32_t> prefix) const = 0;
  virtual std::span<const double> q(std::span<const std::int32_t> prefix) const = 0;
  virtual std::span<const double> p_logits(std::span<const std::int32_t> prefix) const = 0;
  virtual std::span<const double> q_logits(std::span<const std::int32_t> prefix) const = 0;

 protected:
  ~ModelRows() = default;
};

// One model case: a language pair over V tokens; the verifier drafts its own tree from q, at most
// D deep, verifies it with p and returns the block (exactness is marginal, over the drafts).
struct ModelCase {
  std::string_view id;
  std::string_view label;
  std::int32_t vocab = 0;
  std::int32_t depth = 0;  // D: at most D accepted tokens, then the bonus
  std::optional<DraftingHint> drafting;
  const ModelRows* rows = nullptr;
  // Engine-shaped cases (ModelCheckOptions::engine_inputs): what to apply to p's logits and to
  // q's; the drafter drafts from its processed q.
  std::optional<SamplingParams> target_sampling;
  std::optional<SamplingParams> drafter_sampling;

  std::span<const double> p(std::span<const std::int32_t> prefix) const { return rows->p(prefix); }
  std::span<const double> q(std::span<const std::int32_t> prefix) const { return rows->q(prefix); }
  std::span<const double> p_logits(std::span<const std::int32_t> prefix) const {
    return rows->p_logits(prefix);
  }
  std::span<const double> q_logits(std::span<const std::int32_t> prefix) const {
    return rows->q_logits(prefix);
  }
};

// What a verifier returns: the accepted draft tokens from the root down, then the bonus token.
struct Block {
  std::vector<std::int32_t> accepted;
  std::int32_t bonus = -1;
};

// One sample's randomness: Philox4x32-10 keyed by the check's seed, the case and the sample, so a
// run is reproducible for any thread count. uniform() and bits() consume one sequence; seed an
// engine's own generator from bits() to keep its own RNG.
class Randomness {
 public:
  virtual double uniform() = 0;              // in [0, 1)
  virtual std::uint64_t bits() = 0;          // 64 random bits (two uniforms)
  virtual std::uint64_t sample() const = 0;  // the sample of the case this randomness belongs to

 protected:
  ~Randomness() = default;
};

// The draws of a verifier that lets tevsuite enumerate its exact law as well as sample it.
// categorical(weights) returns i with probability weights[i] / Σ weights. next_token(node, weights)
// is the same draw for the token after `node`, with a promise: a token that is not one of node's
// drafted children is the bonus, and the verifier returns at once. The promise lets a draw over a
// large vocabulary enumerate as a handful of branches; a verifier that breaks it is enumerated
// token by token (small V only; larger cases are then sampled only, and say so).
class Draws {
 public:
  virtual std::size_t categorical(std::span<const double> weights) = 0;
  virtual std::int32_t next_token(std::int32_t node, std::span<const double> weights) = 0;

 protected:
  ~Draws() = default;
};

using TreeVerifier = std::function<Block(const TreeCase&, Randomness&)>;
using ModelVerifier = std::function<Block(const ModelCase&, Randomness&)>;
// A verifier drawn through tevsuite's Draws: wrap it with drawing(f).
struct DrawingVerifier {
  std::function<Block(const TreeCase&, Draws&)> verify;
};
inline DrawingVerifier drawing(std::function<Block(const TreeCase&, Draws&)> f) {
  return {std::move(f)};
}

// A batch of blocks for samples first .. first + count − 1 of one case: row i holds sample
// first + i's accepted tokens from the root, then −1 up to `width`, and its bonus token.
struct BlockBatch {
  std::int32_t width = 0;              // D: the longest accepted path the batch allows
  std::vector<std::int32_t> accepted;  // (count, width), −1 after a row's last accepted token
  std::vector<std::int32_t> bonus;     // (count)
};
// A verifier that answers a whole batch of samples at once (a vectorized kernel), seeded once
// per batch: `seed` is 64 bits of the verifier stream keyed by the check's seed, the case and
// the batch's first sample, so a run is reproducible for a given batch size, on any thread count.
using TreeBatchVerifier = std::function<BlockBatch(const TreeCase&, std::uint64_t first,
                                                   std::uint64_t count, std::uint64_t seed)>;
using ModelBatchVerifier = std::function<BlockBatch(const ModelCase&, std::uint64_t first,
                                                    std::uint64_t count, std::uint64_t seed)>;

// A verifier that verifies a batch of requests together, as an engine's kernel does (`tevsuite
// conformance emit --batch`): called once per round with every request of the batch, in the
// batch's order, and that round's randomness (keyed by the check's seed, the batch and the round;
// sample() is the round); row k of the returned BlockBatch is request k's block.
using RequestBatchVerifier =
    std::function<BlockBatch(std::span<const TreeCase> requests, Randomness& round)>;

inline constexpr std::uint32_t kDefaultSeed = TEV_DEFAULT_SEED;

// The ranges of a check's options, `tevsuite conformance`'s (--cases, --samples, --alpha, --batch):
// cases (or batches) 1 .. kMaxCases, samples (or rounds) 1 .. kMaxSamples, alpha in
// [kMinAlpha, kMaxAlpha], requests 1 .. kMaxRequests. A check given an option outside them throws
// std::invalid_argument naming it before it runs anything.
inline constexpr std::int32_t kMaxCases = 100000;
inline constexpr std::uint64_t kMaxSamples = std::uint64_t{1} << 32;
inline constexpr double kMinAlpha = 1e-12;
inline constexpr double kMaxAlpha = 0.5;
inline constexpr std::int32_t kMaxRequests = 64;

// An engine's own sampler as the reference of engine-shaped cases: given a request's parameters
// and those of every request verified with it (its batch's, in order; the request alone for a
// tree case), the filter order that engine's sampler applies to it, or nullopt where the engine
// offers no such request. A case (a batch's request) is judged against its rows processed in that
// order; one the engine does not offer is left out, neither run nor judged, and a batch left
// without requests with it. Unset: every case as it states itself.
using EngineOrder = std::function<std::optional<FilterOrder>(
    const SamplingParams& request, std::span<const SamplingParams> batch)>;

// The defaults are `tevsuite conformance emit`'s: 8 cases cycling through its recipes (random tree,
// DDTree-built, deep chain, star, complete 4-ary tree, near-deterministic rows, sparse rows over a
// large vocabulary, near one-hot rows), 100,000 samples each (the sparse case `large_vocab_factor`
// times as many, for its long tails).
struct TreeCheckOptions {
  std::int32_t cases = 8;
  std::uint64_t samples = 100000;    // per case
  std::int32_t large_vocab = 50000;  // V of the sparse-row case
  std::uint64_t large_vocab_factor = 4;
  double alpha = TEV_DEFAULT_ALPHA;   // family-wise false-alarm level of the whole check
  std::uint32_t seed = kDefaultSeed;  // the verifier's and the completions' randomness
  int threads = 0;                    // 0: every hardware thread
  // `conformance emit --engine-inputs`'s cases instead: logit rows and sampling parameters
  // (temperature, top-k below a node's drafted children, top-p between them, min-p in either
  // order, greedy, all at once, a V = large_vocab case whose tail min-p removes).
  bool engine_inputs = false;
  // engine-shaped cases: the engine's sampler's order, or left out (not owned; null: unset)
  const EngineOrder* engine_order = nullptr;
};

// `tevsuite conformance emit --model-cases`'s defaults: 8 cases over V = 4, D = 2, 40,000 samples each
// (about the fewest at which every case's tests of independence guarantee TV 0.05).
struct ModelCheckOptions {
  std::int32_t cases = 8;
  std::uint64_t samples = 40000;
  double alpha = TEV_DEFAULT_ALPHA;
  std::uint32_t seed = kDefaultSeed;
  int threads = 0;
  bool engine_inputs = false;  // logit rows, the target's and the drafter's sampling parameters
};

// `tevsuite conformance emit --batch 4`'s defaults: 2 batches of 4 requests (the small-vocabulary
// kinds of TreeCheckOptions' cases, in order: different trees and lengths, and with engine_inputs
// different sampling parameters; one vocabulary a batch), 100,000 rounds.
struct BatchCheckOptions {
  std::int32_t batches = 2;
  std::int32_t requests = 4;  // per batch, 1 to 64
  std::uint64_t rounds = 100000;
  double alpha = TEV_DEFAULT_ALPHA;
  std::uint32_t seed = kDefaultSeed;
  bool engine_inputs = false;
  // engine-shaped requests: the engine's sampler's order, or left out (not owned; null: unset)
  const EngineOrder* engine_order = nullptr;
};

}  // namespace tevsuite
