#include "bench/logit_workloads.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "core/philox.hpp"
#include "core/philox_engine.hpp"
#include "workloads/trees.hpp"

namespace tev::bench {

namespace {

constexpr double kTop1 = 0.6;
constexpr double kRunnerUp = 0.15;
constexpr double kDraftNoise = 0.5;  // extra N(0, σ²) on the drafter's logits
constexpr std::int32_t kDraftDepth = 12;

std::uint32_t mix(std::uint32_t h, std::uint32_t x) {
  h ^= x + 0x9e3779b9u + (h << 6) + (h >> 2);
  return h;
}

class LiveLanguage {
 public:
  LiveLanguage(std::int32_t vocab, double temperature, std::uint32_t seed)
      : vocab_(vocab), seed_(seed), pool_(static_cast<std::size_t>(vocab)) {
    PhiloxEngine engine(seed, uses::bench_workload, 0);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (float& z : pool_) z = normal(engine);
    // Boosts that give the favored token probability kTop1 and the runner-up kRunnerUp:
    // e^{b/T} = share · S / (1 − kTop1 − kRunnerUp), with S = Σ e^{z/T} over the pool.
    double s = 0.0;
    for (float z : pool_) s += std::exp(static_cast<double>(z) / temperature);
    const double rest = 1.0 - kTop1 - kRunnerUp;
    top_boost_ = static_cast<float>(temperature * std::log(kTop1 * s / rest));
    runner_boost_ = static_cast<float>(temperature * std::log(kRunnerUp * s / rest));
  }

  void target_row(const std::vector<Token>& prefix, float* out) const {
    std::uint32_t h = seed_;
    for (Token t : prefix) h = mix(h, static_cast<std::uint32_t>(t));
    const auto v = static_cast<std::uint32_t>(vocab_);
    const std::uint32_t shift = h % v;
    std::rotate_copy(pool_.begin(), pool_.begin() + shift, pool_.end(), out);
    const std::uint32_t favored = mix(h, 1) % v, runner = mix(h, 2) % v;
    out[favored] += top_boost_;
    if (runner != favored) out[runner] += runner_boost_;
  }

 private:
  std::int32_t vocab_;
  std::uint32_t seed_;
  std::vector<float> pool_;  // (V) shared N(0, 1) logits
  float top_boost_ = 0.0f;
  float runner_boost_ = 0.0f;
};

// The row's probabilities through the verifier stage's own row kernels (float exponentials,
// block sums in double).
std::vector<double> softmax(const std::vector<float>& logits, double temperature) {
  RowExps row(static_cast<std::int32_t>(logits.size()));
  row.compute(logits, temperature);
  std::vector<double> p(logits.size());
  for (std::size_t a = 0; a < p.size(); ++a) p[a] = row.at(static_cast<Token>(a)) / row.total();
  return p;
}

}  // namespace

LiveWorkload make_live_workload(std::int32_t budget, double temperature, std::int32_t vocab,
                                std::uint32_t seed) {
  const LiveLanguage language(vocab, temperature, seed);
  // The drafter's marginals along its own most likely chain.
  PhiloxEngine engine(seed, uses::bench_workload, 1);
  std::normal_distribution<float> normal(0.0f, static_cast<float>(kDraftNoise));
  std::vector<std::vector<double>> marginals;
  std::vector<Token> chain;
  std::vector<float> row(static_cast<std::size_t>(vocab));
  for (std::int32_t d = 0; d < std::min(budget, kDraftDepth); ++d) {
    language.target_row(chain, row.data());
    for (float& l : row) l += normal(engine);
    marginals.push_back(softmax(row, temperature));
    chain.push_back(static_cast<Token>(std::max_element(row.begin(), row.end()) - row.begin()));
  }
  LiveWorkload w;
  w.budget = budget;
  w.temperature = temperature;
  w.tree = workloads::ddtree_best_first(marginals, budget).tree;
  w.logits.resize(static_cast<std::size_t>(w.tree.size()) * static_cast<std::size_t>(vocab));
  for (NodeId v = 0; v < w.tree.size(); ++v) {
    language.target_row(
        w.tree.path_tokens(v),
        w.logits.data() + static_cast<std::size_t>(v) * static_cast<std::size_t>(vocab));
  }
  LogitScratch scratch(vocab, w.tree.size());
  double top1 = 0.0;
  for (NodeId v = 0; v < w.tree.size(); ++v) {
    scratch.row.compute(w.view().row(v), temperature);
    const auto r = w.view().row(v);
    top1 += scratch.row.at(static_cast<Token>(std::max_element(r.begin(), r.end()) - r.begin())) /
            scratch.row.total();
  }
  w.mean_top1 = top1 / w.tree.size();
  DrawCounter draws({seed, Stream::verifier, 0, 0});
  tev_from_logits(w.tree, w.view(), draws, scratch);
  w.ceiling = 1.0 + std::accumulate(scratch.prefix.begin() + 1, scratch.prefix.end(), 0.0);
  return w;
}

StageReport describe_workload(const LiveWorkload& w) {
  StageReport report;
  report.budget = w.budget;
  report.temperature = w.temperature;
  report.vocab = w.tree.vocab;
  report.nodes = w.tree.size();
  report.internal = static_cast<std::int32_t>(std::count_if(
      w.tree.child_count.begin(), w.tree.child_count.end(), [](std::int32_t c) { return c > 0; }));
  report.ceiling = w.ceiling;
  report.mean_top1 = w.mean_top1;
  return report;
}

workloads::CheckCase montecarlo_case() {
  const workloads::SuiteConfig config{
      .trees = 1, .vocab = kMonteCarloVocab, .budget = kMonteCarloBudget, .seed = kDefaultSeed};
  return workloads::make_case(workloads::TreeShape::ddtree,
                              {workloads::RowFamily::gaussian_logits, 3.0, 1.0}, 2, config, 0)
      .check;
}

double StageReport::micros(const std::string& verifier, int threads) const {
  for (const StageTiming& t : timings) {
    if (t.verifier == verifier && t.threads == threads) return t.micros_per_call;
  }
  return 0.0;
}

}  // namespace tev::bench
