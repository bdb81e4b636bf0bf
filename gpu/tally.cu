// Monte Carlo on the GPU: many trees × many samples per launch, each sample through the same
// sample_fast the CPU engine calls, histograms reduced on the device with integer atomics (per
// block in shared memory where a tree's histogram fits); where asked, each sample's cell is also
// written at its own index, as the CPU engine records it.
#include <algorithm>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "gpu/cuda_check.cuh"
#include "gpu/device_api.hpp"

namespace tev::gpu {

namespace {

constexpr int kThreads = 256;
constexpr unsigned kBlocksPerLaunch =
    4096;  // spread over the batch's trees; grid-stride within a tree

// Every array of a view with its length (guide sizes and walk_offset are read from the host view).
// Keep in step with TreeTablesView's fields.
template <class Visit>
void for_each_table(TreeTablesView& v, std::size_t walk_entries, Visit&& visit) {
  const auto n = static_cast<std::size_t>(v.nodes);
  const std::size_t cells = n * static_cast<std::size_t>(v.vocab);
  const std::size_t guides = n * static_cast<std::size_t>(v.row_buckets);
  visit(v.first_child, n);
  visit(v.child_count, n);
  visit(v.depth, n);
  visit(v.child_of_token, cells);
  visit(v.exit_cum, n);
  visit(v.row_cum, cells);
  visit(v.residual_cum, cells);
  visit(v.walk_offset, n + 1);
  visit(v.walk_cum, walk_entries);
  visit(v.test_child, n - 1);
  visit(v.test_cum, 2 * (n - 1));
  visit(v.final_residual_cum, cells);
  visit(v.exit_guide, static_cast<std::size_t>(v.exit_buckets));
  visit(v.row_guide, guides);
  visit(v.residual_guide, guides);
  visit(v.final_residual_guide, guides);
}

// Every tree's tables packed into one device allocation; views() point into it.
class DeviceTables {
 public:
  explicit DeviceTables(const std::vector<TallyTree>& trees) {
    std::vector<unsigned char> staging;
    std::vector<std::vector<std::size_t>> offsets(trees.size());
    for (std::size_t i = 0; i < trees.size(); ++i) {
      TreeTablesView v = trees[i].tables;
      for_each_table(v, walk_entries(v), [&](const auto* host, std::size_t count) {
        const std::size_t at = (staging.size() + 15) / 16 * 16;  // 16-byte aligned arrays
        const std::size_t bytes = count * sizeof(*host);
        staging.resize(at + bytes);
        if (bytes > 0)
          std::copy_n(reinterpret_cast<const unsigned char*>(host), bytes, staging.data() + at);
        offsets[i].push_back(at);
      });
    }
    memory_ = std::make_unique<DeviceBuffer<unsigned char>>(staging.size());
    memory_->upload(staging.data());
    for (std::size_t i = 0; i < trees.size(); ++i) {
      TreeTablesView v = trees[i].tables;
      std::size_t k = 0;
      for_each_table(v, walk_entries(v), [&](auto*& pointer, std::size_t) {
        pointer = reinterpret_cast<std::remove_reference_t<decltype(pointer)>>(memory_->get() +
                                                                               offsets[i][k++]);
      });
      views_.push_back(v);
    }
  }
  const std::vector<TreeTablesView>& views() const { return views_; }

 private:
  static std::size_t walk_entries(const TreeTablesView& v) {
    return static_cast<std::size_t>(v.walk_offset[v.nodes]);
  }
  std::unique_ptr<DeviceBuffer<unsigned char>> memory_;
  std::vector<TreeTablesView> views_;
};

struct TreeSlot {
  TreeTablesView tables;  // device pointers
  std::uint32_t tree_id;
  std::size_t histogram;  // offset of this tree's histogram in the batch's
  std::size_t order;      // offset of this tree's recorded cells in the batch's (tree · samples)
};

__device__ unsigned long long warp_sum(unsigned long long x) {
  for (int offset = 16; offset > 0; offset /= 2) x += __shfl_down_sync(0xffffffffu, x, offset);
  return x;
}

TEV_HD std::size_t histogram_size(const TreeTablesView& t) {
  return t.row_offset(t.nodes) + static_cast<std::size_t>(t.nodes) + 3;
}

// Histograms of at most this many bytes per tree are counted in shared memory and added to the
// global ones once per block: a few hot cells (the likely exits) took every sample's atomics in
// global memory. Larger ones (wide vocabularies) count in global memory directly.
constexpr std::size_t kSharedHistogramBytes = 64 * 1024;

// Block (x, y) samples tree y; a tree's samples are spread over the x blocks (grid-stride).
// InShared: each block counts into a zeroed copy of the tree's histogram in shared memory
// (dynamic, histogram_size(t) counters) and adds its nonzero cells to the global one at the end.
// order, when not null, receives sample first_sample + i's completed cell at slot.order + i.
template <bool InShared>
__global__ void tally_kernel(FastPath path, const TreeSlot* slots, std::uint32_t seed,
                             std::uint64_t first_sample, std::uint64_t samples,
                             unsigned long long* histograms, long long* order) {
  extern __shared__ unsigned long long block_histogram[];  // (histogram_size(t)) if InShared
  const TreeSlot slot = slots[blockIdx.y];
  const TreeTablesView& t = slot.tables;
  const std::size_t size = histogram_size(t);
  unsigned long long* global = histograms + slot.histogram;
  unsigned long long* counts = InShared ? block_histogram : global;
  if constexpr (InShared) {
    for (std::size_t c = threadIdx.x; c < size; c += blockDim.x) counts[c] = 0;
    __syncthreads();
  }
  unsigned long long* completed = counts;                         // (N, V)
  unsigned long long* exits = completed + t.row_offset(t.nodes);  // (N)
  unsigned long long* scalars = exits + t.nodes;  // {samples, completions, length_sum}
  unsigned long long count = 0, completions = 0, length_sum = 0;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < samples; i += stride) {
    const SampledBlock b = sample_fast(path, t, seed, slot.tree_id, first_sample + i);
    const std::size_t cell =
        t.row_offset(b.completed.exit) + static_cast<std::size_t>(b.completed.bonus);
    atomicAdd(completed + cell, 1ull);
    if (order != nullptr) order[slot.order + i] = static_cast<long long>(cell);
    atomicAdd(exits + b.returned.exit, 1ull);
    ++count;
    completions += b.completed.exit != b.returned.exit;  // completion moved on into the tree
    length_sum += static_cast<unsigned long long>(t.depth[b.returned.exit]) + 1;
  }
  count = warp_sum(count);
  completions = warp_sum(completions);
  length_sum = warp_sum(length_sum);
  if (threadIdx.x % 32 == 0 && count > 0) {
    atomicAdd(scalars, count);
    atomicAdd(scalars + 1, completions);
    atomicAdd(scalars + 2, length_sum);
  }
  if constexpr (InShared) {
    __syncthreads();
    for (std::size_t c = threadIdx.x; c < size; c += blockDim.x) {
      if (counts[c] != 0) atomicAdd(global + c, counts[c]);
    }
  }
}

}  // namespace

std::string unavailable_reason() {
  int devices = 0;
  const cudaError_t status = cudaGetDeviceCount(&devices);
  if (status != cudaSuccess)
    return std::string("no usable CUDA device (") + cudaGetErrorString(status) + ")";
  if (devices == 0) return "no CUDA device";
  return "";
}

DeviceTally tally_on_device(FastPath path, const std::vector<TallyTree>& trees, std::uint32_t seed,
                            std::uint64_t first_sample, std::uint64_t samples, bool record_order) {
  if (path == FastPath::none)
    throw std::logic_error("tally_on_device needs a verifier with a fast path");
  if (trees.empty() || trees.size() > 65535)
    throw std::invalid_argument("a batch holds 1 to 65535 trees");
  const DeviceTables tables(trees);
  std::vector<TreeSlot> slots;
  std::size_t cells = 0;
  for (std::size_t i = 0; i < trees.size(); ++i) {
    slots.push_back({tables.views()[i], trees[i].tree_id, cells, i * samples});
    cells += histogram_size(trees[i].tables);
  }
  DeviceBuffer<TreeSlot> device_slots(slots.size());
  device_slots.upload(slots.data());
  DeviceBuffer<unsigned long long> histograms(cells);
  check(cudaMemset(histograms.get(), 0, cells * sizeof(unsigned long long)), "cudaMemset");
  std::unique_ptr<DeviceBuffer<long long>> order;  // (trees, samples) where recorded
  if (record_order) order = std::make_unique<DeviceBuffer<long long>>(trees.size() * samples);
  long long* const order_out = order ? order->get() : nullptr;

  const auto trees_in_batch = static_cast<unsigned>(trees.size());
  const std::uint64_t blocks_for_samples = (samples + kThreads - 1) / kThreads;
  const auto blocks_per_tree = static_cast<unsigned>(std::max<std::uint64_t>(
      1, std::min<std::uint64_t>(blocks_for_samples, kBlocksPerLaunch / trees_in_batch)));
  DeviceTally tally;
  EventTimer timer;
  timer.start();
  std::size_t largest = 0;
  for (const TallyTree& tree : trees) largest = std::max(largest, histogram_size(tree.tables));
  const std::size_t shared_bytes = largest * sizeof(unsigned long long);
  const bool in_shared = shared_bytes <= kSharedHistogramBytes;
  if (in_shared) {
    check(cudaFuncSetAttribute(tally_kernel<true>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               static_cast<int>(shared_bytes)),
          "shared memory for the block histograms");
  }
  const dim3 grid(blocks_per_tree, trees_in_batch);
  if (samples > 0 && in_shared) {
    tally_kernel<true><<<grid, kThreads, shared_bytes>>>(
        path, device_slots.get(), seed, first_sample, samples, histograms.get(), order_out);
  } else if (samples > 0) {
    tally_kernel<false><<<grid, kThreads>>>(path, device_slots.get(), seed, first_sample, samples,
                                            histograms.get(), order_out);
  }
  check(cudaGetLastError(), "tally_kernel launch");
  tally.kernel_seconds = timer.stop_seconds();

  std::vector<unsigned long long> all(cells);
  histograms.download(all.data());
  for (const TreeSlot& slot : slots) {
    const auto begin = all.begin() + static_cast<std::ptrdiff_t>(slot.histogram);
    tally.histograms.emplace_back(begin,
                                  begin + static_cast<std::ptrdiff_t>(histogram_size(slot.tables)));
  }
  if (order) {
    std::vector<long long> recorded(trees.size() * samples);
    order->download(recorded.data());
    for (const TreeSlot& slot : slots) {
      const auto begin = recorded.begin() + static_cast<std::ptrdiff_t>(slot.order);
      tally.orders.emplace_back(begin, begin + static_cast<std::ptrdiff_t>(samples));
    }
  }
  return tally;
}

}  // namespace tev::gpu
