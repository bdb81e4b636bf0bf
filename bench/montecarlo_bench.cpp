// Google Benchmark: Monte Carlo engine throughput on a fixed tree (DDTree, B = 64, V = 64), per
// verifier and for the Philox-only floor, on 1 and 2 threads; counts heap allocations per sample.
// Run by hand: build/bench/montecarlo_bench
#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "core/philox.hpp"
#include "montecarlo/monte_carlo.hpp"
#include "workloads/suite.hpp"

namespace {
std::atomic<std::uint64_t> g_allocations{0};
}  // namespace

// Counting allocator for this program only: shows that sampling allocates per thread and run, not per sample.
// GCC cannot see that these replacements pair malloc with free, hence the pragma.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
#pragma GCC diagnostic pop

namespace {

const tev::workloads::CheckCase& fixed_case() {
  static const tev::workloads::CheckCase c =
      tev::workloads::make_case(
          tev::workloads::TreeShape::ddtree, {tev::workloads::RowFamily::gaussian_logits, 3.0, 1.0},
          2, {.trees = 1, .vocab = 64, .budget = 64, .seed = tev::kDefaultSeed}, 0)
          .check;
  return c;
}

constexpr std::uint64_t kSamples = 1 << 22;

void BM_MonteCarlo(benchmark::State& state) {
  const auto id = static_cast<tev::VerifierId>(state.range(0));
  const tev::montecarlo::MonteCarloPlan plan{.seed = 1,
                                             .tree_id = 0,
                                             .samples = kSamples,
                                             .first_sample = 0,
                                             .threads = static_cast<int>(state.range(1))};
  const std::uint64_t before = g_allocations.load();
  for (auto _ : state)
    benchmark::DoNotOptimize(
        tev::montecarlo::run_monte_carlo(id, fixed_case().tree, fixed_case().rows, plan));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kSamples));
  state.counters["allocs/sample"] = static_cast<double>(g_allocations.load() - before) /
                                    static_cast<double>(state.iterations() * kSamples);
  state.SetLabel(std::string(tev::verifier_info(id).name));
}

void BM_PhiloxOnly(benchmark::State& state) {
  const tev::workloads::CheckCase& c = fixed_case();
  const tev::montecarlo::MonteCarloPlan plan{.seed = 1,
                                             .tree_id = 0,
                                             .samples = kSamples,
                                             .first_sample = 0,
                                             .threads = static_cast<int>(state.range(0))};
  const tev::NodeId leaf = c.tree.size() - 1;
  const std::uint64_t before = g_allocations.load();
  // The engine's loop and batched Philox, the verifier replaced by the block's first uniform.
  for (auto _ : state) {
    benchmark::DoNotOptimize(tev::montecarlo::tally_samples(c.tree, c.rows, plan, [&] {
      return tev::montecarlo::BatchedSampler(
          plan.seed, plan.tree_id,
          tev::montecarlo::each_sample(
              [&](std::uint64_t, const r123::Philox4x32::ctr_type& block0) {
                const tev::Block b{
                    leaf, std::min(static_cast<tev::Token>(tev::uniform_from(block0[0], block0[1]) *
                                                           c.tree.vocab),
                                   c.tree.vocab - 1)};
                return tev::SampledBlock{b, b};
              }));
    }));
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kSamples));
  state.counters["allocs/sample"] = static_cast<double>(g_allocations.load() - before) /
                                    static_cast<double>(state.iterations() * kSamples);
}

void Verifiers(benchmark::internal::Benchmark* b) {
  for (tev::VerifierId id :
       {tev::VerifierId::tree_exit, tev::VerifierId::predraw, tev::VerifierId::sequential_residual,
        tev::VerifierId::pathwise_walk}) {
    for (int threads : {1, 2}) b->Args({static_cast<int>(id), threads});
  }
  b->Unit(benchmark::kMillisecond)->UseRealTime();
}

BENCHMARK(BM_MonteCarlo)->Apply(Verifiers);
BENCHMARK(BM_PhiloxOnly)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
