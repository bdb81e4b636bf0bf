#pragma once
// An engine's own verifiers, as an inference engine would write them: plain C++ over raw buffers,
// its own RNG, nothing of tevsuite's. engine_test.cpp checks them with tevsuite's GoogleTest
// assertions; each has a planted bug the check must catch.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <numeric>
#include <vector>

namespace engine {

// splitmix64: the engine's per-request generator, seeded once per verification call.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // in [0, 1)

 private:
  std::uint64_t state_;
};

// The draft tree as the engine holds it after drafting: parents before children, node 0 the root.
struct TreeView {
  int vocab = 0;
  int nodes = 0;
  const std::int32_t* parent = nullptr;  // (nodes) −1 for the root
  const std::int32_t* token = nullptr;   // (nodes) −1 for the root
  const double* probs = nullptr;         // (nodes, vocab) the target's next-token rows
};

struct Block {
  std::vector<std::int32_t> accepted;  // accepted draft tokens from the root down
  std::int32_t bonus = -1;
};

// A token from weights (not necessarily normalized) by inverse CDF.
inline int sample_weights(const double* weights, int vocab, double u) {
  double total = 0.0;
  for (int a = 0; a < vocab; ++a) total += weights[a];
  double below = 0.0;
  int last = 0;
  for (int a = 0; a < vocab; ++a) {
    if (!(weights[a] > 0.0)) continue;
    below += weights[a];
    last = a;
    if (u * total < below) return a;
  }
  return last;  // rounding left u·total at the very top
}

enum class TreeBug {
  none,
  full_row_bonus,  // after a non-child draw, the bonus is drawn again from the full row (children included)
};

// The target walk (predraw-and-follow): at each node draw the next token from the target row;
// a drafted child's token accepts it and walks on, any other token is the bonus. Exact and
// saturated: it samples the canonical exit law.
inline Block verify_tree(const TreeView& t, Rng& rng, TreeBug bug = TreeBug::none) {
  Block out;
  int v = 0;
  for (;;) {
    const double* row = t.probs + static_cast<std::size_t>(v) * static_cast<std::size_t>(t.vocab);
    const int x = sample_weights(row, t.vocab, rng.uniform());
    int child = -1;
    for (int u = 1; u < t.nodes && child < 0; ++u) {
      if (t.parent[u] == v && t.token[u] == x) child = u;
    }
    if (child < 0) {
      out.bonus = bug == TreeBug::full_row_bonus ? sample_weights(row, t.vocab, rng.uniform()) : x;
      return out;
    }
    out.accepted.push_back(x);
    v = child;
  }
}

// The engine's filter orders: vLLM's, Hugging Face's (min-p after top-p), SGLang's (top-p's cut
// on the full distribution, intersected with top-k's and min-p's).
enum class FilterOrder { min_p_first, min_p_last, top_p_full_and_top_k };

// A request's sampling parameters as the engine applies them to logits: temperature, softmax,
// min-p, top-k, top-p in the request's order; renormalize (a temperature below 1e-5: greedy).
struct SamplingParams {
  double temperature = 1.0;
  std::int64_t top_k = 0;
  double top_p = 1.0;
  double min_p = 0.0;
  FilterOrder order = FilterOrder::min_p_first;
};

enum class SamplingBug {
  none,
  temperature_after_softmax,  // filters on softmax(logits), then p / T renormalized: temperature lost
};

// The engine's sampler front end: out = the distribution one row of logits is sampled from.
inline void apply_sampling(const double* logits, int vocab, const SamplingParams& s, double* out,
                           SamplingBug bug = SamplingBug::none) {
  const double top = *std::max_element(logits, logits + vocab);
  if (s.temperature < 1e-5) {  // vLLM's _SAMPLING_EPS
    std::fill(out, out + vocab, 0.0);
    out[std::max_element(logits, logits + vocab) - logits] = 1.0;
    return;
  }
  const double t = bug == SamplingBug::temperature_after_softmax ? 1.0 : s.temperature;
  for (int a = 0; a < vocab; ++a) out[a] = std::exp((logits[a] - top) / t);
  if (s.top_k > 0 && s.top_k < vocab) {
    std::vector<double> sorted(logits, logits + vocab);
    std::nth_element(sorted.begin(), sorted.begin() + (s.top_k - 1), sorted.end(),
                     std::greater<>());
    for (int a = 0; a < vocab; ++a) {
      if (logits[a] < sorted[static_cast<std::size_t>(s.top_k - 1)]) out[a] = 0.0;
    }
  }
  const double largest = *std::max_element(out, out + vocab);
  auto min_p = [&] {
    for (int a = 0; a < vocab; ++a) {
      if (out[a] < s.min_p * largest) out[a] = 0.0;
    }
  };
  if (s.min_p > 0.0 && s.order != FilterOrder::min_p_last) min_p();
  if (s.top_p < 1.0) {
    // SGLang's order takes the cut on the full tempered row; vLLM's and Hugging Face's on the survivors.
    std::vector<double> seen(out, out + vocab);
    if (s.order == FilterOrder::top_p_full_and_top_k) {
      for (int a = 0; a < vocab; ++a)
        seen[static_cast<std::size_t>(a)] = std::exp((logits[a] - top) / t);
    }
    std::vector<int> order(static_cast<std::size_t>(vocab));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      return seen[static_cast<std::size_t>(a)] > seen[static_cast<std::size_t>(b)];
    });
    const double total = std::accumulate(seen.begin(), seen.end(), 0.0);
    double before = 0.0;
    for (const int a : order) {
      if (before >= s.top_p * total) {
        out[a] = 0.0;
      } else {
        before += seen[static_cast<std::size_t>(a)];
      }
    }
  }
  if (s.min_p > 0.0 && s.order == FilterOrder::min_p_last) min_p();
  const double total = std::accumulate(out, out + vocab, 0.0);
  for (int a = 0; a < vocab; ++a) out[a] /= total;
}

// A language pair as the engine's drafter and target see it: rows after a prefix of ≤ depth tokens.
struct ChainModel {
  int vocab = 0;
  int depth = 0;  // tokens drafted per call
  std::function<const double*(const std::vector<std::int32_t>&prefix)> p, q;
};

enum class ChainBug {
  none,
  bonus_from_target,  // after a rejection, the bonus comes from p instead of the residual (p − q)+
};

// Speculative sampling on a chain: draft `depth` tokens from q, accept each with min(1, p/q), on a
// rejection draw the bonus from the normalized residual (p − q)+; after all, the bonus from p.
// Exact marginally (over the drafter's randomness), not given the drafted chain.
inline Block speculative_sampling(const ChainModel& m, Rng& rng, ChainBug bug = ChainBug::none) {
  std::vector<std::int32_t> drafts, prefix;
  for (int d = 0; d < m.depth; ++d) {
    drafts.push_back(sample_weights(m.q(prefix), m.vocab, rng.uniform()));
    prefix.push_back(drafts.back());
  }
  Block out;
  prefix.clear();
  std::vector<double> residual(static_cast<std::size_t>(m.vocab));
  for (const std::int32_t x : drafts) {
    const double* p = m.p(prefix);
    const double* q = m.q(prefix);
    if (rng.uniform() * q[x] < p[x]) {  // u < p/q, with u·q for q's sake
      out.accepted.push_back(x);
      prefix.push_back(x);
      continue;
    }
    for (int a = 0; a < m.vocab; ++a)
      residual[static_cast<std::size_t>(a)] = p[a] > q[a] ? p[a] - q[a] : 0.0;
    out.bonus = sample_weights(bug == ChainBug::bonus_from_target ? p : residual.data(), m.vocab,
                               rng.uniform());
    return out;
  }
  out.bonus = sample_weights(m.p(prefix), m.vocab, rng.uniform());
  return out;
}

}  // namespace engine
