// Google Benchmark: the verifier stage on Qwen-sized logit rows (V = 151,936), DDTree trees at
// B = 32, 64, 128 and T = 0.6, 1.0. Run by hand: build/bench/verifier_stage_bench
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <utility>

#include "bench/logit_workloads.hpp"

namespace {

const tev::bench::LiveWorkload& workload(std::int32_t budget, int temperature_tenths) {
  static std::map<std::pair<std::int32_t, int>, std::unique_ptr<tev::bench::LiveWorkload>> cache;
  auto& w = cache[{budget, temperature_tenths}];
  if (!w)
    w = std::make_unique<tev::bench::LiveWorkload>(
        tev::bench::make_live_workload(budget, temperature_tenths / 10.0));
  return *w;
}

template <class Verify>
void run(benchmark::State& state, Verify&& verify) {
  const tev::bench::LiveWorkload& w =
      workload(static_cast<std::int32_t>(state.range(0)), static_cast<int>(state.range(1)));
  tev::LogitScratch scratch(w.tree.vocab, w.tree.size());
  std::uint64_t i = 0;
  for (auto _ : state) {
    tev::DrawCounter draws({1, tev::Stream::verifier, 0, i++});
    benchmark::DoNotOptimize(verify(w, draws, scratch));
  }
  state.counters["1+C_p"] = w.ceiling;
  state.counters["nodes"] = w.tree.size();
}

void BM_TevLevelParallel(benchmark::State& s) {
  run(s, [](const auto& w, auto& d, auto& sc) {
    return tev::tev_from_logits(w.tree, w.view(), d, sc, 1);
  });
}
void BM_TevLevelParallel2(benchmark::State& s) {
  run(s, [](const auto& w, auto& d, auto& sc) {
    return tev::tev_from_logits(w.tree, w.view(), d, sc, 2);
  });
}
void BM_WalkLazy(benchmark::State& s) {
  run(s, [](const auto& w, auto& d, auto& sc) {
    return tev::walk_from_logits(w.tree, w.view(), d, sc);
  });
}
void BM_PredrawEager(benchmark::State& s) {
  run(s, [](const auto& w, auto& d, auto& sc) {
    return tev::predraw_eager_from_logits(w.tree, w.view(), d, sc, 1);
  });
}
void BM_PredrawLazy(benchmark::State& s) {
  run(s, [](const auto& w, auto& d, auto& sc) {
    return tev::predraw_lazy_from_logits(w.tree, w.view(), d, sc);
  });
}
void BM_SequentialResidual(benchmark::State& s) {
  run(s, [](const auto& w, auto& d, auto& sc) {
    return tev::sequential_residual_from_logits(w.tree, w.view(), d, sc);
  });
}

// Arguments: budget, temperature in tenths.
void Shapes(benchmark::internal::Benchmark* b) {
  for (int budget : {32, 64, 128}) {
    for (int t : {6, 10}) b->Args({budget, t});
  }
  b->Unit(benchmark::kMicrosecond);
}

BENCHMARK(BM_TevLevelParallel)->Apply(Shapes);
BENCHMARK(BM_TevLevelParallel2)->Apply(Shapes)->UseRealTime();
BENCHMARK(BM_WalkLazy)->Apply(Shapes);
BENCHMARK(BM_PredrawEager)->Apply(Shapes);
BENCHMARK(BM_PredrawLazy)->Apply(Shapes);
BENCHMARK(BM_SequentialResidual)->Apply(Shapes);

}  // namespace

BENCHMARK_MAIN();
