// Google Benchmark: the row kernels on one Qwen-sized row (V = 151,936 float32 logits), one case
// per ISA copy this CPU can run (the row floor and the blocked pass among them), next to a scalar
// std::exp loop. Run by hand:
// build/bench/row_kernels_bench
#include <benchmark/benchmark.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "core/row_kernels.hpp"
#include "bench/logit_workloads.hpp"

namespace {

const std::vector<float>& row() {
  static const std::vector<float> logits = [] {
    std::mt19937 rng(7);
    std::normal_distribution<float> normal(0.0f, 2.0f);
    std::vector<float> x(tev::bench::kQwenVocab);
    for (float& l : x) l = normal(rng);
    return x;
  }();
  return logits;
}

void set_rate(benchmark::State& state) {
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(row().size()));
}

void max(benchmark::State& state, const tev::RowKernels* k) {
  for (auto _ : state) benchmark::DoNotOptimize(k->max(row().data(), row().size()));
  set_rate(state);
}

void exp_store_sum(benchmark::State& state, const tev::RowKernels* k) {
  std::vector<float> out(row().size());
  const float top = k->max(row().data(), row().size());
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        k->exp_store_sum(row().data(), row().size(), top, 1.0f / 0.6f, out.data()));
    benchmark::ClobberMemory();
  }
  set_rate(state);
}

void exp_sum(benchmark::State& state, const tev::RowKernels* k) {
  const float top = k->max(row().data(), row().size());
  for (auto _ : state)
    benchmark::DoNotOptimize(k->exp_sum(row().data(), row().size(), top, 1.0f / 0.6f));
  set_rate(state);
}

// The row floor: one blocked pass computing the log-sum-exp.
void logsumexp(benchmark::State& state, const tev::RowKernels* k) {
  for (auto _ : state)
    benchmark::DoNotOptimize(k->logsumexp(row().data(), row().size(), 1.0f / 0.6f));
  set_rate(state);
}

// The verifiers' pass: the same, keeping each block's maximum, factor and sum.
void blocks(benchmark::State& state, const tev::RowKernels* k) {
  const std::size_t n = (row().size() + tev::kRowBlock - 1) / tev::kRowBlock;
  std::vector<float> block_max(n), factor(n);
  std::vector<double> sums(n);
  double total = 0.0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(k->blocks(row().data(), row().size(), 1.0f / 0.6f, block_max.data(),
                                       factor.data(), sums.data(), &total));
    benchmark::ClobberMemory();
  }
  set_rate(state);
}

// The reference the kernels replace at its slowest: one std::exp per token, summed in double.
void BM_StdExpScalar(benchmark::State& state) {
  std::vector<float> out(row().size());
  for (auto _ : state) {
    double total = 0.0;
    for (std::size_t a = 0; a < out.size(); ++a)
      total += out[a] = std::exp(row()[a] * (1.0f / 0.6f));
    benchmark::DoNotOptimize(total);
    benchmark::ClobberMemory();
  }
  set_rate(state);
}
BENCHMARK(BM_StdExpScalar)->Unit(benchmark::kMicrosecond);

}  // namespace

int main(int argc, char** argv) {
  for (tev::RowIsa isa : tev::kRowIsas) {
    const tev::RowKernels* k = tev::row_kernels_for(isa);
    if (k == nullptr) continue;
    const std::string name = k->name;
    benchmark::RegisterBenchmark(("BM_RowMax/" + name).c_str(), max, k)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("BM_ExpStoreSum/" + name).c_str(), exp_store_sum, k)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("BM_ExpSum/" + name).c_str(), exp_sum, k)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("BM_RowFloorLogSumExp/" + name).c_str(), logsumexp, k)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("BM_RowBlocks/" + name).c_str(), blocks, k)
        ->Unit(benchmark::kMicrosecond);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
