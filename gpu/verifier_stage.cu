// The verifier stage on the GPU, as an engine runs it after the target's tree forward pass:
// N = B + 1 rows of V float32 logits already on the device. TEV: one block per internal row for
// its sums, then one block for the level-wise P and w, the exit draw and the residual bonus draw.
// Predraw: one block per row draws R_v, then one thread follows the matches.
#include <algorithm>
#include <cmath>
#include <vector>

#include "gpu/cuda_check.cuh"
#include "gpu/device_api.hpp"

namespace tev::gpu {

namespace {

constexpr int kRowThreads =
    1024;  // one block per row (__launch_bounds__: at most 64 registers a thread)
constexpr int kWarps = kRowThreads / 32;
constexpr unsigned kAllLanes = 0xffffffffu;

struct DeviceTree {
  std::int32_t nodes;
  std::int32_t vocab;
  const std::int32_t* first_child;  // (N)
  const std::int32_t* child_count;  // (N)
  const std::int32_t* token;        // (N)
};

// Block-wide reductions over kRowThreads threads through 32 shared slots; every thread gets the result.
template <class T, class Combine>
__device__ T block_reduce(T x, Combine combine, T* shared) {
  for (int offset = 16; offset > 0; offset /= 2)
    x = combine(x, __shfl_down_sync(kAllLanes, x, offset));
  __syncthreads();  // shared may still be read from a previous reduction
  if (threadIdx.x % 32 == 0) shared[threadIdx.x / 32] = x;
  __syncthreads();
  T total = shared[0];
  for (int w = 1; w < kWarps; ++w) total = combine(total, shared[w]);
  return total;
}

__device__ float row_max(const float* row, std::int32_t vocab, float* shared) {
  float top = -INFINITY;
  for (std::int32_t a = threadIdx.x; a < vocab; a += kRowThreads) top = fmaxf(top, row[a]);
  return block_reduce(
      top, [](float a, float b) { return fmaxf(a, b); }, shared);
}

// Marks v's child tokens in a bitmap of ceil(V / 32) words (dynamic shared memory).
__device__ void mark_children(const DeviceTree& tree, NodeId v, std::uint32_t* excluded) {
  for (std::int32_t w = threadIdx.x; w < (tree.vocab + 31) / 32; w += kRowThreads) excluded[w] = 0;
  __syncthreads();
  for (std::int32_t k = threadIdx.x; k < tree.child_count[v]; k += kRowThreads) {
    const Token x = tree.token[tree.first_child[v] + k];
    atomicOr(excluded + x / 32, 1u << (x % 32));
  }
  __syncthreads();
}

__device__ bool is_marked(const std::uint32_t* excluded, std::int32_t a) {
  return excluded && (excluded[a / 32] >> (a % 32)) & 1u;
}

// An inverse-CDF draw with u ∈ (0, 1] from exp((row − max) / T) without the marked tokens
// (excluded may be null), in token order as on the CPU. Each warp owns a contiguous chunk of the
// row and reads it 32 consecutive floats at a time (coalesced). One thread turns the chunk sums
// into offsets, added in a fixed order so that they never decrease and the intervals
// (offsets[w], offsets[w + 1]] tile (0, total]: exactly one warp's interval holds u · total, and
// its chunk then has positive mass. That warp scans its chunk 32 tokens at a time with a warp
// prefix sum; if rounding runs past the chunk's end, its last positive unmarked token is taken.
__device__ Token block_draw(const float* row, std::int32_t vocab, float inverse_t,
                            const std::uint32_t* excluded, double u) {
  __shared__ float max_slots[kWarps];
  __shared__ double offsets[kWarps + 1];
  __shared__ Token drawn;
  const float top = row_max(row, vocab, max_slots);
  const std::int32_t lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const std::int32_t chunk = (vocab + kWarps - 1) / kWarps;
  const std::int32_t begin = min(vocab, warp * chunk), end = min(vocab, begin + chunk);
  const auto mass = [&](std::int32_t a) {
    return a < end && !is_marked(excluded, a)
               ? static_cast<double>(expf((row[a] - top) * inverse_t))
               : 0.0;
  };
  double mine = 0.0;
  for (std::int32_t a = begin + lane; a < end; a += 32) mine += mass(a);
  for (int offset = 16; offset > 0; offset /= 2) mine += __shfl_down_sync(kAllLanes, mine, offset);
  if (lane == 0) offsets[warp + 1] = mine;  // row_max's barriers already passed any earlier reader
  __syncthreads();
  if (threadIdx.x == 0) {
    offsets[0] = 0.0;
    for (int w = 1; w <= kWarps; ++w) offsets[w] += offsets[w - 1];
    drawn = kNoToken;
  }
  __syncthreads();
  const double target = u * offsets[kWarps];
  if (offsets[warp] < target &&
      target <= offsets[warp + 1]) {  // the same answer in every lane of a warp
    double acc = offsets[warp];
    Token hit = kNoToken, last = kNoToken;
    for (std::int32_t base = begin; base < end && hit == kNoToken; base += 32) {
      const double e = mass(base + lane);
      double inclusive = e;  // Σ e over lanes 0..lane of this step
      for (int offset = 1; offset < 32; offset *= 2) {
        const double below = __shfl_up_sync(kAllLanes, inclusive, offset);
        if (lane >= offset) inclusive += below;
      }
      const unsigned positive = __ballot_sync(kAllLanes, e > 0.0);
      const unsigned reached = __ballot_sync(kAllLanes, e > 0.0 && acc + inclusive >= target);
      if (reached) hit = base + __ffs(static_cast<int>(reached)) - 1;
      if (positive) last = base + 31 - __clz(static_cast<int>(positive));
      acc += __shfl_sync(kAllLanes, inclusive, 31);
    }
    if (lane == 0) drawn = hit != kNoToken ? hit : last;
  }
  __syncthreads();
  return drawn;
}

// TEV, step 1: per internal row v, p_v(x_c) for each child c and ρ(v) summed directly over the
// non-child tokens (never 1 − Σ children).
__global__ void __launch_bounds__(kRowThreads)
    tev_row_sums(DeviceTree tree, const float* logits, float inverse_t, double* child_probability,
                 double* rho) {
  extern __shared__ std::uint32_t excluded[];  // (ceil(V / 32)) v's child tokens
  __shared__ float max_slots[32];
  __shared__ double sum_slots[32];
  const NodeId v = blockIdx.x;
  if (tree.child_count[v] == 0) return;  // a leaf's ρ is 1: its row is not needed
  const float* row = logits + static_cast<std::size_t>(v) * static_cast<std::size_t>(tree.vocab);
  mark_children(tree, v, excluded);
  const float top = row_max(row, tree.vocab, max_slots);
  double total = 0.0, rest = 0.0;
  for (std::int32_t a = threadIdx.x; a < tree.vocab; a += kRowThreads) {
    const double e = expf((row[a] - top) * inverse_t);
    total += e;
    if (!is_marked(excluded, a)) rest += e;
  }
  const auto add = [](double a, double b) { return a + b; };
  total = block_reduce(total, add, sum_slots);
  rest = block_reduce(rest, add, sum_slots);
  for (std::int32_t k = threadIdx.x; k < tree.child_count[v]; k += kRowThreads) {
    const NodeId c = tree.first_child[v] + k;
    child_probability[c] = expf((row[tree.token[c]] - top) * inverse_t) / total;
  }
  if (threadIdx.x == 0) rho[v] = rest / total;
}

// TEV, step 2 (one block): P and w in level order (parents come first), the exit draw against
// the cumulative w, then the bonus from the exit's residual row.
__global__ void __launch_bounds__(kRowThreads)
    tev_exit_and_bonus(DeviceTree tree, const float* logits, float inverse_t,
                       const double* child_probability, const double* rho, double* prefix,
                       double* exit_cum, std::uint64_t call, Block* out) {
  extern __shared__ std::uint32_t excluded[];  // (ceil(V / 32)) the exit's child tokens
  __shared__ NodeId exit;
  const DrawCounter draws(stage_draw_site(call));
  if (threadIdx.x == 0) {
    prefix[0] = 1.0;
    double acc = 0.0;
    for (NodeId v = 0; v < tree.nodes; ++v) {
      const bool leaf = tree.child_count[v] == 0;
      acc += leaf ? prefix[v] : prefix[v] * rho[v];
      exit_cum[v] = acc;
      for (NodeId c = tree.first_child[v]; c < tree.first_child[v] + tree.child_count[v]; ++c)
        prefix[c] = prefix[v] * child_probability[c];
    }
    exit = pick_cumulative(exit_cum, tree.nodes, draws.at(0));
  }
  __syncthreads();
  mark_children(tree, exit, excluded);
  const float* row = logits + static_cast<std::size_t>(exit) * static_cast<std::size_t>(tree.vocab);
  const Token bonus = block_draw(row, tree.vocab, inverse_t, excluded, draws.at(1));
  if (threadIdx.x == 0) *out = {exit, bonus};
}

// Predraw, step 1: R_v ~ p_v at every node, draw index v (as the CPU's eager predraw).
__global__ void __launch_bounds__(kRowThreads)
    predraw_rows(DeviceTree tree, const float* logits, float inverse_t, std::uint64_t call,
                 Token* drawn) {
  const NodeId v = blockIdx.x;
  const DrawCounter draws(stage_draw_site(call));
  const float* row = logits + static_cast<std::size_t>(v) * static_cast<std::size_t>(tree.vocab);
  const Token r =
      block_draw(row, tree.vocab, inverse_t, nullptr, draws.at(static_cast<std::uint32_t>(v)));
  if (threadIdx.x == 0) drawn[v] = r;
}

// Predraw, step 2 (one thread): follow the child whose token is R_v; stop with R_v as the bonus.
__global__ void predraw_follow(DeviceTree tree, const Token* drawn, Block* out) {
  NodeId v = 0;
  for (;;) {
    NodeId next = kNoNode;
    for (NodeId c = tree.first_child[v]; c < tree.first_child[v] + tree.child_count[v]; ++c) {
      if (tree.token[c] == drawn[v]) next = c;
    }
    if (next == kNoNode) break;
    v = next;
  }
  *out = {v, drawn[v]};
}

double median(std::vector<double> xs) {
  std::sort(xs.begin(), xs.end());
  return xs[xs.size() / 2];
}

}  // namespace

StageTimings time_verifier_stage(const StageTree& host, const float* logits, double temperature,
                                 std::int32_t calls) {
  if (calls < 1) throw std::invalid_argument("calls must be at least 1");
  const auto n = static_cast<std::size_t>(host.nodes);
  const std::size_t cells = n * static_cast<std::size_t>(host.vocab);
  DeviceBuffer<std::int32_t> first_child(n), child_count(n), token(n);
  first_child.upload(host.first_child);
  child_count.upload(host.child_count);
  token.upload(host.token);
  DeviceBuffer<float> rows(cells);
  rows.upload(logits);
  DeviceBuffer<double> child_probability(n), rho(n), prefix(n), exit_cum(n);
  DeviceBuffer<Token> drawn(n);
  DeviceBuffer<Block> out(1);
  const DeviceTree tree{host.nodes, host.vocab, first_child.get(), child_count.get(), token.get()};
  const auto inverse_t = static_cast<float>(1.0 / temperature);
  const std::size_t bitmap_bytes =
      (static_cast<std::size_t>(host.vocab) + 31) / 32 * sizeof(std::uint32_t);
  for (const void* kernel : {reinterpret_cast<const void*>(tev_row_sums),
                             reinterpret_cast<const void*>(tev_exit_and_bonus)}) {
    check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               static_cast<int>(bitmap_bytes)),
          "shared memory for the bitmap");
  }

  StageTimings timings;
  EventTimer timer;
  auto time_calls = [&](auto&& launch, std::vector<Block>& blocks) {
    std::vector<double> seconds;
    for (std::int32_t i = -1; i < calls; ++i) {  // call −1 warms up and is not kept
      timer.start();
      launch(static_cast<std::uint64_t>(std::max(i, 0)));
      check(cudaGetLastError(), "verifier-stage launch");
      const double s = timer.stop_seconds();
      if (i < 0) continue;
      seconds.push_back(s);
      Block b;
      out.download(&b);
      blocks.push_back(b);
    }
    return 1e6 * median(seconds);
  };
  timings.tev_micros = time_calls(
      [&](std::uint64_t call) {
        tev_row_sums<<<host.nodes, kRowThreads, bitmap_bytes>>>(tree, rows.get(), inverse_t,
                                                                child_probability.get(), rho.get());
        tev_exit_and_bonus<<<1, kRowThreads, bitmap_bytes>>>(
            tree, rows.get(), inverse_t, child_probability.get(), rho.get(), prefix.get(),
            exit_cum.get(), call, out.get());
      },
      timings.tev_blocks);
  timings.predraw_micros = time_calls(
      [&](std::uint64_t call) {
        predraw_rows<<<host.nodes, kRowThreads>>>(tree, rows.get(), inverse_t, call, drawn.get());
        predraw_follow<<<1, 1>>>(tree, drawn.get(), out.get());
      },
      timings.predraw_blocks);
  return timings;
}

}  // namespace tev::gpu
