// The verifier stage on the GPU, as an engine runs it after the target's tree forward pass:
// N = B + 1 rows of V float32 logits already on the device. TEV: one block per internal row for
// its sums, then one block for the level-wise P and w, the exit draw and the residual bonus draw.
// Predraw: one block per row draws R_v, then one thread follows the matches. Beside them, the
// row floor: every row read once (a log-sum-exp), spread over every multiprocessor.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
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

// A token's unnormalised mass exp((l − max) / T), 0 where marked; summed in double.
struct RowMass {
  const float* row;
  float top;
  float inverse_t;
  const std::uint32_t* excluded;  // null: nothing marked
  __device__ double operator()(std::int32_t a) const {
    return is_marked(excluded, a) ? 0.0 : static_cast<double>(expf((row[a] - top) * inverse_t));
  }
};

// Token range [begin, end), cut into contiguous parts (kWarps unless said): warp w owns part w.
struct Range {
  std::int32_t begin;
  std::int32_t end;
  __device__ Range part(int w, int parts = kWarps) const {
    const std::int32_t size = (end - begin + parts - 1) / parts;
    const std::int32_t b = min(end, begin + w * size);
    return {b, min(end, b + size)};
  }
};

__device__ double warp_sum(double x) {
  for (int offset = 16; offset > 0; offset /= 2) x += __shfl_down_sync(kAllLanes, x, offset);
  return x;  // lane 0 holds the sum
}

// sums[w] = the mass of range.part(w), each warp reading its part 32 consecutive floats at a
// time (coalesced). The caller synchronises before reading sums.
__device__ void part_sums(const RowMass& mass, Range range, double* sums) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const Range mine = range.part(warp);
  double s = 0.0;
  for (std::int32_t a = mine.begin + lane; a < mine.end; a += 32) s += mass(a);
  s = warp_sum(s);
  if (lane == 0) sums[warp] = s;
}

// Thread 0's choice among kWarps parts: the first whose interval (below + Σ earlier sums,
// below + Σ up to its own] holds target, the sums added in a fixed order so that the intervals
// tile. Where rounding leaves target past the last interval, the last part with mass.
struct PartChoice {
  int part;
  double below;  // the cumulative mass before the part
};
__device__ PartChoice choose_part(const double* sums, double below, double target) {
  PartChoice last{-1, below};
  for (int w = 0; w < kWarps; ++w) {
    if (sums[w] > 0.0) {
      if (target <= below + sums[w]) return {w, below};
      last = {w, below};
    }
    below += sums[w];
  }
  return last;
}

// An inverse-CDF draw in token order with u ∈ (0, 1] from a row whose kWarps chunk masses
// (the parts of [0, V)) are in chunk_sums (shared). Three levels, each in a fixed order: the chunk
// holding u · total, then the part of that chunk (the block sums its kWarps parts), then one warp
// scans that part (at most ceil(V / 1024) tokens) with a warp prefix sum; if rounding runs past
// the part's end, its last token with mass is taken.
__device__ Token draw_from_chunks(const RowMass& mass, std::int32_t vocab, const double* chunk_sums,
                                  double u) {
  __shared__ double sub_sums[kWarps];
  __shared__ PartChoice chunk, sub;
  __shared__ Token drawn;
  __shared__ double target;
  const Range row{0, vocab};
  if (threadIdx.x == 0) {
    double total = 0.0;
    for (int w = 0; w < kWarps; ++w) total += chunk_sums[w];
    target = u * total;
    chunk = choose_part(chunk_sums, 0.0, target);
  }
  __syncthreads();
  if (chunk.part < 0) return kNoToken;  // a row without mass: nothing to draw (every thread)
  const Range in_chunk = row.part(chunk.part);
  part_sums(mass, in_chunk, sub_sums);
  __syncthreads();
  if (threadIdx.x == 0) sub = choose_part(sub_sums, chunk.below, target);
  __syncthreads();
  if (threadIdx.x < 32) {
    const std::int32_t lane = threadIdx.x;
    const Range scanned = in_chunk.part(sub.part);
    double acc = sub.below;
    Token hit = kNoToken, last = kNoToken;
    for (std::int32_t base = scanned.begin; base < scanned.end && hit == kNoToken; base += 32) {
      const std::int32_t a = base + lane;
      const double e = a < scanned.end ? mass(a) : 0.0;
      double inclusive = e;  // Σ e over lanes 0..lane of this step
      for (int offset = 1; offset < 32; offset *= 2) {
        const double earlier = __shfl_up_sync(kAllLanes, inclusive, offset);
        if (lane >= offset) inclusive += earlier;
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

// An inverse-CDF draw from exp((row − max) / T) without the marked tokens (excluded may be
// null): the row's maximum, its chunk masses, then draw_from_chunks.
__device__ Token block_draw(const float* row, std::int32_t vocab, float inverse_t,
                            const std::uint32_t* excluded, double u) {
  __shared__ float max_slots[kWarps];
  __shared__ double chunk_sums[kWarps];
  const RowMass mass{row, row_max(row, vocab, max_slots), inverse_t, excluded};
  part_sums(mass, Range{0, vocab}, chunk_sums);
  __syncthreads();
  return draw_from_chunks(mass, vocab, chunk_sums, u);
}

// TEV, step 1: per internal row v, p_v(x_c) for each child c and ρ(v) summed directly over the
// non-child tokens (never 1 − Σ children). The row's maximum and its residual chunk masses are
// kept, so that the bonus draw from the exit's residual row reads one chunk instead of the row.
__global__ void __launch_bounds__(kRowThreads)
    tev_row_sums(DeviceTree tree, const float* logits, float inverse_t, double* child_probability,
                 double* rho, float* row_top, double* residual_chunks) {
  extern __shared__ std::uint32_t excluded[];  // (ceil(V / 32)) v's child tokens
  __shared__ float max_slots[kWarps];
  __shared__ double total_slots[kWarps];
  const NodeId v = blockIdx.x;
  if (tree.child_count[v] == 0) return;  // a leaf's ρ is 1: its row is not needed
  const float* row = logits + static_cast<std::size_t>(v) * static_cast<std::size_t>(tree.vocab);
  mark_children(tree, v, excluded);
  const float top = row_max(row, tree.vocab, max_slots);
  const RowMass all{row, top, inverse_t, nullptr};
  double* residual = residual_chunks + static_cast<std::size_t>(v) * kWarps;  // (kWarps)
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const Range mine = Range{0, tree.vocab}.part(warp);
  double total = 0.0, rest = 0.0;
  for (std::int32_t a = mine.begin + lane; a < mine.end; a += 32) {
    const double e = all(a);
    total += e;
    if (!is_marked(excluded, a)) rest += e;
  }
  total = warp_sum(total);
  rest = warp_sum(rest);
  if (lane == 0) {
    total_slots[warp] = total;
    residual[warp] = rest;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    double row_total = 0.0, row_rest = 0.0;
    for (int w = 0; w < kWarps; ++w) {
      row_total += total_slots[w];
      row_rest += residual[w];
    }
    rho[v] = row_rest / row_total;
    row_top[v] = top;
    total_slots[0] = row_total;
  }
  __syncthreads();
  for (std::int32_t k = threadIdx.x; k < tree.child_count[v]; k += kRowThreads) {
    const NodeId c = tree.first_child[v] + k;
    child_probability[c] = all(tree.token[c]) / total_slots[0];
  }
}

// tev_exit_and_bonus's dynamic shared memory: the exit's child bitmap, then per node its P, the
// cumulative w, its parent and its depth.
struct ExitScratch {
  std::uint32_t* excluded;  // (ceil(V / 32))
  double* prefix;           // (N) P(v)
  double* cum;              // (N) w summed over nodes 0..v
  std::int32_t* parent;     // (N)
  std::int32_t* depth;      // (N)

  __host__ __device__ static std::size_t bitmap_words(std::int32_t vocab) {
    return (static_cast<std::size_t>(vocab) + 63) / 64 * 2;  // even: the doubles stay aligned
  }
  __host__ __device__ static std::size_t bytes(std::int32_t nodes, std::int32_t vocab) {
    return bitmap_words(vocab) * sizeof(std::uint32_t) +
           static_cast<std::size_t>(nodes) * (2 * sizeof(double) + 2 * sizeof(std::int32_t));
  }
  __device__ static ExitScratch in(std::uint32_t* base, std::int32_t nodes, std::int32_t vocab) {
    ExitScratch s;
    s.excluded = base;
    s.prefix = reinterpret_cast<double*>(base + bitmap_words(vocab));
    s.cum = s.prefix + nodes;
    s.parent = reinterpret_cast<std::int32_t*>(s.cum + nodes);
    s.depth = s.parent + nodes;
    return s;
  }
};

// TEV, step 2 (one block): P level by level (a round per depth, each P(c) = P(parent) · p(x_c)),
// w summed in node order by one thread as on the CPU, the exit draw against the cumulative w,
// then the bonus: from the exit's residual row through the chunk masses step 1 kept, or, at a
// leaf (whose row step 1 skipped), from its full row.
__global__ void __launch_bounds__(kRowThreads)
    tev_exit_and_bonus(DeviceTree tree, const float* logits, float inverse_t,
                       const double* child_probability, const double* rho, const float* row_top,
                       const double* residual_chunks, std::uint64_t call, Block* out) {
  extern __shared__ std::uint32_t scratch_memory[];  // ExitScratch::bytes(N, V)
  __shared__ double chunk_sums[kWarps];
  __shared__ NodeId exit;
  __shared__ std::int32_t max_depth;
  const ExitScratch s = ExitScratch::in(scratch_memory, tree.nodes, tree.vocab);
  const DrawCounter draws(stage_draw_site(call));
  if (threadIdx.x == 0) {
    max_depth = 0;
    s.parent[0] = kNoNode;
    s.prefix[0] = 1.0;
  }
  for (NodeId v = threadIdx.x; v < tree.nodes; v += kRowThreads) {
    for (NodeId c = tree.first_child[v]; c < tree.first_child[v] + tree.child_count[v]; ++c)
      s.parent[c] = v;
  }
  __syncthreads();
  for (NodeId v = threadIdx.x; v < tree.nodes; v += kRowThreads) {
    std::int32_t d = 0;
    for (NodeId u = v; u != 0; u = s.parent[u]) ++d;
    s.depth[v] = d;
    atomicMax(&max_depth, d);
  }
  __syncthreads();
  for (std::int32_t d = 1; d <= max_depth; ++d) {
    for (NodeId v = threadIdx.x; v < tree.nodes; v += kRowThreads) {
      if (s.depth[v] == d) s.prefix[v] = s.prefix[s.parent[v]] * child_probability[v];
    }
    __syncthreads();
  }
  for (NodeId v = threadIdx.x; v < tree.nodes; v += kRowThreads)
    s.cum[v] = tree.child_count[v] == 0 ? s.prefix[v] : s.prefix[v] * rho[v];
  __syncthreads();
  if (threadIdx.x == 0) {
    double acc = 0.0;
    for (NodeId v = 0; v < tree.nodes; ++v) {
      acc += s.cum[v];
      s.cum[v] = acc;
    }
    exit = pick_cumulative(s.cum, tree.nodes, draws.at(0));
  }
  __syncthreads();
  const float* row = logits + static_cast<std::size_t>(exit) * static_cast<std::size_t>(tree.vocab);
  Token bonus;
  if (tree.child_count[exit] == 0) {
    bonus = block_draw(row, tree.vocab, inverse_t, nullptr, draws.at(1));
  } else {
    mark_children(tree, exit, s.excluded);
    if (threadIdx.x < kWarps)
      chunk_sums[threadIdx.x] =
          residual_chunks[static_cast<std::size_t>(exit) * kWarps + threadIdx.x];
    __syncthreads();
    bonus = draw_from_chunks(RowMass{row, row_top[exit], inverse_t, s.excluded}, tree.vocab,
                             chunk_sums, draws.at(1));
  }
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

// The row floor: every row read once, in a one-pass log-sum-exp of logits / T, with
// kFloorSlices blocks per row so that every multiprocessor reads. No verifier reads less.
constexpr int kFloorThreads = 256;
constexpr int kFloorSlices = 16;

struct LogSumExp {
  float top = -INFINITY;
  float sum = 0.0f;               // Σ exp(x − top)
  __device__ void add(float x) {  // one exp per logit
    if (x > top) {
      sum = sum * expf(top - x) + 1.0f;
      top = x;
    } else {
      sum += expf(x - top);
    }
  }
  __device__ LogSumExp merged(LogSumExp o) const {
    if (o.top == -INFINITY) return *this;
    if (top == -INFINITY) return o;
    const float m = fmaxf(top, o.top);
    return {m, sum * expf(top - m) + o.sum * expf(o.top - m)};
  }
};

// Step 1: one slice of one row (blockIdx.y) per block; partial is (N, kFloorSlices).
__global__ void __launch_bounds__(kFloorThreads)
    row_floor_slices(const float* logits, std::int32_t vocab, float inverse_t, LogSumExp* partial) {
  __shared__ LogSumExp warps[kFloorThreads / 32];
  const float* row = logits + static_cast<std::size_t>(blockIdx.y) * vocab;
  const Range slice = Range{0, vocab}.part(blockIdx.x, kFloorSlices);
  LogSumExp mine;
  // kFloorLoads loads in flight per thread before any is used: one at a time leaves the memory
  // system idle between them.
  constexpr int kFloorLoads = 4;
  for (std::int32_t a = slice.begin + threadIdx.x; a < slice.end;
       a += kFloorLoads * kFloorThreads) {
    float x[kFloorLoads];
#pragma unroll
    for (int k = 0; k < kFloorLoads; ++k) {
      const std::int32_t i = a + k * kFloorThreads;
      x[k] = i < slice.end ? row[i] * inverse_t : -INFINITY;
    }
#pragma unroll
    for (int k = 0; k < kFloorLoads; ++k) {
      if (x[k] != -INFINITY) mine.add(x[k]);
    }
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    mine = mine.merged({__shfl_down_sync(kAllLanes, mine.top, offset),
                        __shfl_down_sync(kAllLanes, mine.sum, offset)});
  }
  if (threadIdx.x % 32 == 0) warps[threadIdx.x / 32] = mine;
  __syncthreads();
  if (threadIdx.x == 0) {
    LogSumExp row_slice;
    for (const LogSumExp& w : warps) row_slice = row_slice.merged(w);
    partial[blockIdx.y * kFloorSlices + blockIdx.x] = row_slice;
  }
}

// Step 2: one thread per row merges its slices; lse is (N).
__global__ void row_floor_merge(const LogSumExp* partial, std::int32_t nodes, float* lse) {
  const std::int32_t v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= nodes) return;
  LogSumExp row;
  for (int k = 0; k < kFloorSlices; ++k) row = row.merged(partial[v * kFloorSlices + k]);
  lse[v] = row.top + logf(row.sum);
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
  DeviceBuffer<double> child_probability(n), rho(n);
  DeviceBuffer<double> residual_chunks(n * kWarps);  // (N, kWarps)
  DeviceBuffer<float> row_top(n), lse(n);
  DeviceBuffer<LogSumExp> floor_partial(n * kFloorSlices);  // (N, kFloorSlices)
  DeviceBuffer<Token> drawn(n);
  DeviceBuffer<Block> out(1);
  const DeviceTree tree{host.nodes, host.vocab, first_child.get(), child_count.get(), token.get()};
  const auto inverse_t = static_cast<float>(1.0 / temperature);
  const std::size_t bitmap_bytes = ExitScratch::bitmap_words(host.vocab) * sizeof(std::uint32_t);
  const std::size_t scratch_bytes = ExitScratch::bytes(host.nodes, host.vocab);
  int device = 0, shared_limit = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&shared_limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
        "shared memory per block");
  cudaFuncAttributes exit_step{};
  check(cudaFuncGetAttributes(&exit_step, tev_exit_and_bonus), "the exit step's attributes");
  if (scratch_bytes + exit_step.sharedSizeBytes > static_cast<std::size_t>(shared_limit)) {
    throw std::invalid_argument(
        "the verifier stage on the GPU keeps a tree of " + std::to_string(host.nodes) +
        " nodes over V = " + std::to_string(host.vocab) +
        " in shared memory: " + std::to_string(scratch_bytes) + " bytes, more than this GPU's " +
        std::to_string(shared_limit) + " a block");
  }
  check(cudaFuncSetAttribute(tev_row_sums, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             static_cast<int>(bitmap_bytes)),
        "shared memory for the bitmap");
  check(cudaFuncSetAttribute(tev_exit_and_bonus, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             static_cast<int>(scratch_bytes)),
        "shared memory for the exit step");

  EventTimer timer;
  // The median over `calls` timed calls; call −1 warms up and is not kept. after(i) runs
  // after call i's clock stops.
  auto median_micros = [&](auto&& launch, auto&& after) {
    std::vector<double> seconds;
    for (std::int32_t i = -1; i < calls; ++i) {
      timer.start();
      launch(static_cast<std::uint64_t>(std::max(i, 0)));
      check(cudaGetLastError(), "verifier-stage launch");
      const double s = timer.stop_seconds();
      if (i < 0) continue;
      seconds.push_back(s);
      after();
    }
    return 1e6 * median(seconds);
  };
  auto time_calls = [&](auto&& launch, std::vector<Block>& blocks) {
    return median_micros(launch, [&] {
      Block b;
      out.download(&b);
      blocks.push_back(b);
    });
  };
  StageTimings timings;
  timings.floor_micros = median_micros(
      [&](std::uint64_t) {
        row_floor_slices<<<dim3(kFloorSlices, host.nodes), kFloorThreads>>>(
            rows.get(), host.vocab, inverse_t, floor_partial.get());
        row_floor_merge<<<(host.nodes + 127) / 128, 128>>>(floor_partial.get(), host.nodes,
                                                           lse.get());
      },
      [] {});
  timings.tev_micros = time_calls(
      [&](std::uint64_t call) {
        tev_row_sums<<<host.nodes, kRowThreads, bitmap_bytes>>>(
            tree, rows.get(), inverse_t, child_probability.get(), rho.get(), row_top.get(),
            residual_chunks.get());
        tev_exit_and_bonus<<<1, kRowThreads, scratch_bytes>>>(
            tree, rows.get(), inverse_t, child_probability.get(), rho.get(), row_top.get(),
            residual_chunks.get(), call, out.get());
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
