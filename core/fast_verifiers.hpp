#pragma once
// Per-sample Monte Carlo kernels over per-tree tables (device-safe: raw pointers, no Eigen).
// The CPU engine (montecarlo/monte_carlo) and the CUDA kernels (gpu/) both call these. Each consumes the
// same uniforms, in the same order, as its chooser-path twin in verifiers.hpp run with a
// PhiloxChooser in DrawLayout::two_per_block, and finds the same first index of the same cumulative
// tables (through guide tables), so both give the identical block for equal (seed, stream, tree,
// sample) — a property the test suite checks.
#include <cstddef>
#include <cstdint>

#include "core/block.hpp"
#include "core/philox.hpp"
#include "core/sampling.hpp"

namespace tev {

struct TreeTablesView {
  std::int32_t nodes = 0;
  std::int32_t vocab = 0;
  const std::int32_t* first_child = nullptr;     // (N) first child of each node
  const std::int32_t* child_count = nullptr;     // (N) children of each node
  const std::int32_t* depth = nullptr;           // (N) depth of each node (root 0)
  const std::int32_t* child_of_token = nullptr;  // (N, V) child reached from v by token a, or -1
  const double* exit_cum = nullptr;              // (N) cumulative w(v) in level order
  const double* row_cum = nullptr;               // (N, V) cumulative p_v
  const double* residual_cum = nullptr;       // (N, V) cumulative p_v with v's child tokens zeroed
  const std::int32_t* walk_offset = nullptr;  // (N + 1) start of node v's entries in walk_cum
  const double* walk_cum = nullptr;  // (2N − 1) per node: cumulative {p_v(x_u) per child, ρ(v)}
  const std::int32_t* test_child =
      nullptr;  // (N − 1) sequential residual: child tested k-th at v, slot first_child[v] − 1 + k
  const double* test_cum = nullptr;  // (N − 1, 2) per slot: cumulative {g(x), g elsewhere}
  const double* final_residual_cum =
      nullptr;                    // (N, V) cumulative residual after every child of v is rejected
  std::int32_t exit_buckets = 1;  // guide size for exit_cum
  std::int32_t row_buckets = 1;   // guide size per row table
  const std::int32_t* exit_guide = nullptr;            // (exit_buckets) guide table of exit_cum
  const std::int32_t* row_guide = nullptr;             // (N, row_buckets) guide tables of row_cum
  const std::int32_t* residual_guide = nullptr;        // (N, row_buckets) of residual_cum
  const std::int32_t* final_residual_guide = nullptr;  // (N, row_buckets) of final_residual_cum

  TEV_HD std::size_t row_offset(NodeId v) const {
    return static_cast<std::size_t>(v) * static_cast<std::size_t>(vocab);
  }
  TEV_HD std::size_t guide_offset(NodeId v) const {
    return static_cast<std::size_t>(v) * static_cast<std::size_t>(row_buckets);
  }
  // A token from one of the (N, V) tables of node v, through its guide.
  TEV_HD Token pick_row(const double* table, const std::int32_t* guide, NodeId v, double u) const {
    return pick_guided(table + row_offset(v), vocab, guide + guide_offset(v), row_buckets, u);
  }
};

TEV_HD inline Block tree_exit_verify_fast(const TreeTablesView& t, DrawCounter& draws) {
  const NodeId v = pick_guided(t.exit_cum, t.nodes, t.exit_guide, t.exit_buckets, draws.next());
  return {v, t.pick_row(t.residual_cum, t.residual_guide, v, draws.next())};
}

// TEV over a batch of samples, phase by phase: every sample's exit node, then every bonus. One
// sample's two draws depend on each other (the bonus row is the exit node's); different samples'
// do not, so within a phase their table loads overlap instead of waiting in line. out[i] is
// tree_exit_verify_fast's block for the sample whose verifier-stream block 0 is
// block0_words[4i .. 4i + 3] ((count, 4): draw 0 from words 0–1, draw 1 from words 2–3).
TEV_HD inline void tree_exit_verify_batch(const TreeTablesView& t,
                                          const std::uint32_t* block0_words, std::size_t count,
                                          Block* out) {
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint32_t* w = block0_words + 4 * i;
    out[i].exit =
        pick_guided(t.exit_cum, t.nodes, t.exit_guide, t.exit_buckets, uniform_from(w[0], w[1]));
  }
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint32_t* w = block0_words + 4 * i;
    out[i].bonus =
        t.pick_row(t.residual_cum, t.residual_guide, out[i].exit, uniform_from(w[2], w[3]));
  }
}

TEV_HD inline Block predraw_and_follow_fast(const TreeTablesView& t, DrawCounter& draws) {
  NodeId v = 0;
  for (;;) {
    const Token r = t.pick_row(t.row_cum, t.row_guide, v, draws.next());
    const NodeId next = t.child_of_token[t.row_offset(v) + static_cast<std::size_t>(r)];
    if (next < 0) return {v, r};
    v = next;
  }
}

TEV_HD inline Block pathwise_walk_fast(const TreeTablesView& t, DrawCounter& draws) {
  NodeId v = 0;
  for (;;) {
    const std::int32_t children = t.child_count[v];
    if (children == 0) return {v, t.pick_row(t.row_cum, t.row_guide, v, draws.next())};
    const std::int32_t k =
        pick_cumulative(t.walk_cum + t.walk_offset[v], children + 1, draws.next());
    if (k == children) return {v, t.pick_row(t.residual_cum, t.residual_guide, v, draws.next())};
    v = t.first_child[v] + k;
  }
}

TEV_HD inline Block sequential_residual_fast(const TreeTablesView& t, DrawCounter& draws) {
  NodeId v = 0;
  for (;;) {
    NodeId accepted = kNoNode;
    for (std::int32_t k = 0; k < t.child_count[v]; ++k) {
      const std::int32_t slot = t.first_child[v] - 1 + k;
      if (pick_cumulative(t.test_cum + 2 * slot, 2, draws.next()) == 0) {
        accepted = t.test_child[slot];
        break;
      }
    }
    if (accepted == kNoNode) {
      return {v, t.pick_row(t.final_residual_cum, t.final_residual_guide, v, draws.next())};
    }
    v = accepted;
  }
}

// Which fast per-sample kernel realizes a verifier, if any. The tree_exit_replay_* paths are TEV
// whose exit uniform is another sample's (serial mutants, below).
enum class FastPath {
  none,
  tree_exit,
  predraw,
  sequential_residual,
  pathwise_walk,
  tree_exit_replay_lag1,
  tree_exit_replay_lag2,
  tree_exit_mirror_lag1,
};

// A serial mutant's replay: sample i + lag, for i mod 2·lag < lag, draws its exit with sample i's
// exit uniform u (mirrored: with 1 − u) and everything else with its own draws — a random counter
// not advanced for every other call (lag 1), two generators used in turn, each replaying its last
// draw once (lag 2), antithetic pairs (mirrored). Every sample's uniform is still uniform, so each
// block has TEV's law; the pairs the tests of independence form at that lag and phase 0 share it.
// lag 0: no replay.
struct SerialReplay {
  std::uint32_t lag = 0;
  bool mirrored = false;
};
TEV_HD inline SerialReplay serial_replay(FastPath path) {
  switch (path) {
    case FastPath::tree_exit_replay_lag1:
      return {1, false};
    case FastPath::tree_exit_replay_lag2:
      return {2, false};
    case FastPath::tree_exit_mirror_lag1:
      return {1, true};
    default:
      return {};
  }
}
// The sample whose exit uniform sample s draws with under a replay at `lag` (s itself when it
// replays nothing).
TEV_HD inline std::uint64_t replayed_sample(std::uint64_t s, std::uint32_t lag) {
  return lag == 0 || s % (2 * std::uint64_t{lag}) < lag ? s : s - lag;
}
// 1 − u on the uniforms' grid: uniform_from's k·2^-53 (k = 1 .. 2^53) maps to (2^53 + 1 − k)·2^-53,
// so the mirrored uniform is exactly uniform on the same grid and never 0.
TEV_HD inline double mirrored_uniform(double u) {
  return ((0x1.0p53 - u * 0x1.0p53) + 1.0) * 0x1.0p-53;  // every step exact
}

// The fast kernel of a path; FastPath::none is a caller error and yields {kNoNode, kNoToken}
// (device code cannot throw: callers check first), as do the replay paths, whose samples need
// their index (sample_fast runs them).
TEV_HD inline Block run_fast_path(FastPath path, const TreeTablesView& t, DrawCounter& draws) {
  switch (path) {
    case FastPath::tree_exit:
      return tree_exit_verify_fast(t, draws);
    case FastPath::predraw:
      return predraw_and_follow_fast(t, draws);
    case FastPath::sequential_residual:
      return sequential_residual_fast(t, draws);
    case FastPath::pathwise_walk:
      return pathwise_walk_fast(t, draws);
    case FastPath::tree_exit_replay_lag1:
    case FastPath::tree_exit_replay_lag2:
    case FastPath::tree_exit_mirror_lag1:
    case FastPath::none:
      break;
  }
  return {kNoNode, kNoToken};
}

// The child of block.exit that block.bonus drafts, or kNoNode when the block is complete.
TEV_HD inline NodeId drafted_child(const TreeTablesView& t, Block block) {
  return t.child_of_token[t.row_offset(block.exit) + static_cast<std::size_t>(block.bonus)];
}

// Completion (complete_block in verifiers.hpp) over the tables: while the bonus is a drafted
// child's token, move to that child and draw the next token from its row on the completion stream
// of `sample` — the same first index of the same cumulative row as the chooser's draw, so both
// give the same completed block. A block that needs no completion (every block of a saturated
// verifier) costs one table lookup.
TEV_HD inline Block complete_block_fast(const TreeTablesView& t, Block block, std::uint32_t seed,
                                        std::uint32_t tree, std::uint64_t sample) {
  NodeId c = drafted_child(t, block);
  if (c == kNoNode) return block;
  DrawCounter draws(DrawSite{seed, Stream::completion, tree, sample}, DrawLayout::two_per_block);
  for (; c != kNoNode; c = drafted_child(t, block)) {
    block.exit = c;
    block.bonus = t.pick_row(t.row_cum, t.row_guide, c, draws.next());
  }
  return block;
}

// One Monte Carlo sample: the block the verifier returned and its completion.
struct SampledBlock {
  Block returned;
  Block completed;
};

// Sample `sample` of a tree: the verifier's draws on the verifier stream, completion's on the
// completion stream, both keyed by (seed, tree, sample) and laid out two uniforms per Philox block
// (DrawLayout::two_per_block) — the whole recipe the CPU engine and the GPU kernels share.
TEV_HD inline DrawSite fast_verifier_site(std::uint32_t seed, std::uint32_t tree,
                                          std::uint64_t sample) {
  return DrawSite{seed, Stream::verifier, tree, sample};
}
// A serial mutant's sample: TEV with its exit drawn at the replayed sample's exit uniform (draw 0
// of its verifier stream), mirrored or not, and its bonus at its own draw 1.
TEV_HD inline Block tree_exit_replayed(const TreeTablesView& t, DrawCounter& draws,
                                       SerialReplay replay, std::uint32_t seed, std::uint32_t tree,
                                       std::uint64_t sample) {
  const std::uint64_t from = replayed_sample(sample, replay.lag);
  const double own = draws.next();  // draw 0 is spent either way: the bonus stays at draw 1
  const double replayed =
      from == sample
          ? own
          : DrawCounter(fast_verifier_site(seed, tree, from), DrawLayout::two_per_block).next();
  const double u = replay.mirrored && from != sample ? mirrored_uniform(replayed) : replayed;
  const NodeId v = pick_guided(t.exit_cum, t.nodes, t.exit_guide, t.exit_buckets, u);
  return {v, t.pick_row(t.residual_cum, t.residual_guide, v, draws.next())};
}
// The same, with the verifier stream's block 0 already computed (philox_block(fast_verifier_site(...), 0)).
TEV_HD inline SampledBlock sample_fast(FastPath path, const TreeTablesView& t, std::uint32_t seed,
                                       std::uint32_t tree, std::uint64_t sample,
                                       const r123::Philox4x32::ctr_type& verifier_block0) {
  DrawCounter draws(fast_verifier_site(seed, tree, sample), verifier_block0);
  const SerialReplay replay = serial_replay(path);
  const Block returned = replay.lag == 0 ? run_fast_path(path, t, draws)
                                         : tree_exit_replayed(t, draws, replay, seed, tree, sample);
  return {returned, complete_block_fast(t, returned, seed, tree, sample)};
}
TEV_HD inline SampledBlock sample_fast(FastPath path, const TreeTablesView& t, std::uint32_t seed,
                                       std::uint32_t tree, std::uint64_t sample) {
  return sample_fast(path, t, seed, tree, sample,
                     philox_block(fast_verifier_site(seed, tree, sample), 0));
}

}  // namespace tev
