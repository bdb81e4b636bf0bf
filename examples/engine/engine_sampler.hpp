#pragma once
// An engine's own verifiers, as an inference engine would write them: plain C++ over raw buffers,
// its own RNG, nothing of tevsuite's. engine_test.cpp checks them with tevsuite's GoogleTest
// assertions; each has a planted bug the check must catch.
#include <cstdint>
#include <functional>
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

// A language pair as the engine's drafter and target see it: rows after a prefix of ≤ depth tokens.
struct ChainModel {
  int vocab = 0;
  int depth = 0;  // tokens drafted per call
  std::function<const double*(const std::vector<std::int32_t>& prefix)> p, q;
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
    for (int a = 0; a < m.vocab; ++a) residual[static_cast<std::size_t>(a)] = p[a] > q[a] ? p[a] - q[a] : 0.0;
    out.bonus = sample_weights(bug == ChainBug::bonus_from_target ? p : residual.data(), m.vocab, rng.uniform());
    return out;
  }
  out.bonus = sample_weights(m.p(prefix), m.vocab, rng.uniform());
  return out;
}

}  // namespace engine
