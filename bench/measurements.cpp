#include "bench/measurements.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <functional>
#include <optional>
#include <thread>

#include "core/exit_law.hpp"
#include "core/interrupt.hpp"
#include "core/philox.hpp"
#include "core/row_kernels.hpp"
#include "montecarlo/monte_carlo.hpp"
#include "experiments/check_suite.hpp"
#include "workloads/suite.hpp"
#include "judging/verdict_policy.hpp"
#include "judging/verdicts.hpp"
#include "stats/goodness_of_fit.hpp"
#include "stats/law_identity.hpp"

namespace tev::bench {

namespace {

using Clock = std::chrono::steady_clock;

// Results land here so the optimizer cannot drop the timed calls.
volatile std::uint64_t g_sink = 0;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// CPU seconds of the calling thread or of the whole process: on a shared machine they leave out the
// time other programs hold the cores, which wall-clock time does not.
double cpu_seconds(clockid_t clock) {
  timespec t{};
  clock_gettime(clock, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// One timed kernel: call(i) for i = 0, 1, 2, ... With thread_cpu its batches are timed by the
// calling thread's CPU time (for single-threaded calls), else by the wall clock.
struct TimedCall {
  std::function<void(std::uint64_t)> call;
  bool thread_cpu = true;
  std::uint64_t calls = 0;
  std::vector<double> per_call{}, per_call_wall{};  // seconds per call of each batch

  double median() { return median_of(per_call); }
  double median_wall() { return median_of(per_call_wall); }

 private:
  static double median_of(std::vector<double>& v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  }
};

// Times the kernels round-robin, one batch of at least 20 ms of wall time each per round, until
// each has had about seconds_each (and at least 3 batches): every kernel sees the same phases of
// a shared machine's load, so the ratios between their medians hold even when the load moves.
void time_interleaved(std::vector<TimedCall>& kernels, double seconds_each) {
  const auto start = Clock::now();
  const double total = seconds_each * static_cast<double>(kernels.size());
  while (seconds_since(start) < total || kernels.front().per_call.size() < 3) {
    for (TimedCall& k : kernels) {
      const auto batch_start = Clock::now();
      const double cpu_start = cpu_seconds(CLOCK_THREAD_CPUTIME_ID);
      std::uint64_t in_batch = 0;
      while (seconds_since(batch_start) < 0.02 || in_batch == 0) {
        k.call(k.calls++);
        ++in_batch;
      }
      const double wall = seconds_since(batch_start);
      const double spent = k.thread_cpu ? cpu_seconds(CLOCK_THREAD_CPUTIME_ID) - cpu_start : wall;
      k.per_call.push_back(spent / static_cast<double>(in_batch));
      k.per_call_wall.push_back(wall / static_cast<double>(in_batch));
    }
  }
}

}  // namespace

double ThroughputReport::rate(const std::string& verifier, int threads) const {
  for (const ThroughputTiming& t : timings) {
    if (t.verifier == verifier && t.threads == threads) return t.samples_per_second;
  }
  return 0.0;
}

double ThroughputReport::core_rate(const std::string& verifier, int threads) const {
  for (const ThroughputTiming& t : timings) {
    if (t.verifier == verifier && t.threads == threads) return t.core_rate;
  }
  return 0.0;
}

StageReport measure_verifier_stage(const LiveWorkload& w, double seconds_each) {
  StageReport report = describe_workload(w);
  LogitScratch scratch(w.tree.vocab, w.tree.size());
  const LogitRows rows = w.view();
  using Verify = std::function<Block(DrawCounter&)>;
  const std::vector<std::tuple<std::string, int, Verify>> cases = {
      {"tev (level-parallel)", 1,
       [&](DrawCounter& d) { return tev_from_logits(w.tree, rows, d, scratch, 1); }},
      {"tev (level-parallel)", 2,
       [&](DrawCounter& d) { return tev_from_logits(w.tree, rows, d, scratch, 2); }},
      {"walk (lazy)", 1,
       [&](DrawCounter& d) { return walk_from_logits(w.tree, rows, d, scratch); }},
      {"predraw (eager)", 1,
       [&](DrawCounter& d) { return predraw_eager_from_logits(w.tree, rows, d, scratch, 1); }},
      {"predraw (eager)", 2,
       [&](DrawCounter& d) { return predraw_eager_from_logits(w.tree, rows, d, scratch, 2); }},
      {"predraw (lazy)", 1,
       [&](DrawCounter& d) { return predraw_lazy_from_logits(w.tree, rows, d, scratch); }},
      {"sequential residual", 1,
       [&](DrawCounter& d) { return sequential_residual_from_logits(w.tree, rows, d, scratch); }},
  };
  // The per-row kernels, against the floor.
  std::vector<NodeId> internal;
  for (NodeId v = 0; v < w.tree.size(); ++v) {
    if (!w.tree.is_leaf(v)) internal.push_back(v);
  }
  const auto scale = static_cast<float>(1.0 / w.temperature);
  std::vector<Token> children;
  std::vector<double> child_exps;
  // (3 + cases) kernels: the floor, TEV's internal row, one draw, then every verifier.
  std::vector<TimedCall> kernels;
  kernels.push_back({[&](std::uint64_t i) {
    const auto row = rows.row(static_cast<NodeId>(i % static_cast<std::uint64_t>(w.tree.size())));
    const double lse = row_kernels().logsumexp(row.data(), row.size(), scale);
    g_sink = g_sink + static_cast<std::uint64_t>(lse);
  }});
  kernels.push_back({[&](std::uint64_t i) {
    const NodeId v = internal[i % internal.size()];
    children.clear();
    for (NodeId c = w.tree.first_child[v]; c < w.tree.first_child[v] + w.tree.child_count[v]; ++c)
      children.push_back(w.tree.token[c]);
    child_exps.resize(children.size());
    double total = 0.0, rest = 0.0;
    scratch.row.sums_only(rows.row(v), w.temperature, children, total, rest, child_exps);
    g_sink = g_sink + static_cast<std::uint64_t>(rest / total * 1e6);
  }});
  kernels.push_back({[&](std::uint64_t i) {
    const auto v = static_cast<NodeId>(i % static_cast<std::uint64_t>(w.tree.size()));
    scratch.row.compute(rows.row(v), w.temperature);
    DrawCounter draws({kDefaultSeed, Stream::verifier, 0, i});
    g_sink = g_sink +
             static_cast<std::uint64_t>(scratch.row.draw(draws.next(), {}, scratch.row.total()));
  }});
  for (const auto& [name, threads, verify] : cases) {
    kernels.push_back({[&verify = verify](std::uint64_t i) {
                         DrawCounter draws({kDefaultSeed, Stream::verifier, 0, i});
                         const Block b = verify(draws);
                         g_sink = g_sink + static_cast<std::uint64_t>(b.exit) +
                                  static_cast<std::uint64_t>(b.bonus);
                       },
                       threads == 1});
  }
  time_interleaved(kernels, seconds_each);
  report.floor_micros = 1e6 * kernels[0].median();
  report.internal_micros = 1e6 * kernels[1].median();
  report.draw_micros = 1e6 * kernels[2].median();
  for (std::size_t k = 0; k < cases.size(); ++k) {
    TimedCall& timed = kernels[3 + k];
    report.timings.push_back({std::get<0>(cases[k]), std::get<1>(cases[k]), 1e6 * timed.median(),
                              1e6 * timed.median_wall(), timed.calls});
  }
  return report;
}

ThroughputReport measure_montecarlo(std::uint64_t samples, int repeats) {
  ThroughputReport report;
  report.samples = samples;
  const workloads::CheckCase c = montecarlo_case();
  const NodeId leaf = c.tree.size() - 1;  // the last node in level order is a leaf: no completion
  // Best of the repeats, by wall time and by process CPU time (threads × samples per CPU second:
  // the rate on that many cores of one's own).
  int threads_now = 1;
  auto best_rate = [&](const std::function<void()>& run) {
    std::pair<double, double> best{0.0, 0.0};
    for (int r = 0; r < repeats; ++r) {
      const auto start = Clock::now();
      const double cpu_start = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID);
      run();
      const double cpu = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu_start;
      best.first = std::max(best.first, static_cast<double>(samples) / seconds_since(start));
      best.second = std::max(best.second, threads_now * static_cast<double>(samples) / cpu);
    }
    return best;
  };
  for (int threads : {1, 2}) {
    threads_now = threads;
    const montecarlo::MonteCarloPlan plan{
        .seed = 1, .tree_id = 0, .samples = samples, .first_sample = 0, .threads = threads};
    for (VerifierId id : {VerifierId::tree_exit, VerifierId::predraw,
                          VerifierId::sequential_residual, VerifierId::pathwise_walk}) {
      const auto [wall, cores] = best_rate([&] { run_monte_carlo(id, c.tree, c.rows, plan); });
      report.timings.push_back({std::string(verifier_info(id).name), threads, wall, cores});
    }
    // The engine's own loop and batched Philox, the verifier replaced by the block's first uniform.
    const auto [wall, cores] = best_rate([&] {
      montecarlo::tally_samples(c.tree, c.rows, plan, [&] {
        return montecarlo::BatchedSampler(
            plan.seed, plan.tree_id,
            montecarlo::each_sample([&](std::uint64_t, const r123::Philox4x32::ctr_type& block0) {
              const auto token =
                  static_cast<Token>(uniform_from(block0[0], block0[1]) * c.tree.vocab);
              const Block b{leaf, std::min(token, c.tree.vocab - 1)};
              return SampledBlock{b, b};
            }));
      });
    });
    report.timings.push_back({"philox-only", threads, wall, cores});
  }
  return report;
}

// See WorstSimulation.
WorstSimulation measure_worst_simulation(const std::vector<workloads::CheckCase>& suite,
                                         const judging::JudgingConfig& judging) {
  WorstSimulation w;
  w.samples = judging.samples;
  const auto n = static_cast<double>(judging.samples);
  std::vector<std::vector<double>> laws;
  std::vector<stats::Binning> binnings;
  for (std::size_t i = 0; i < suite.size(); ++i) {
    const workloads::CheckCase& c = suite[i];
    laws.push_back(canonical_block_law(c.tree, c.rows, ExitLaw::compute(c.tree, c.rows)));
    binnings.push_back(
        stats::pool_cells(laws.back(), stats::node_groups(c.tree.size(), c.tree.vocab), n));
    if (binnings.back().bin_probability.size() > binnings[w.tree].bin_probability.size())
      w.tree = i;
  }
  const std::vector<double>& law = laws[w.tree];
  const stats::Binning& bins = binnings[w.tree];
  w.bins = static_cast<std::int32_t>(bins.bin_probability.size());
  // Each bin off its expected count by ±sqrt(k·n·p_b): the χ² over the bins is about k·bins.
  const double dof = w.bins - 1.0, target = dof + 10.0 * std::sqrt(2.0 * dof);
  const double k = target / w.bins;
  std::vector<double> bin_count(bins.bin_probability.size());
  for (std::size_t b = 0; b < bin_count.size(); ++b) {
    const double expected = n * bins.bin_probability[b];
    bin_count[b] = std::max(0.0, expected + (b % 2 == 0 ? 1.0 : -1.0) * std::sqrt(k * expected));
  }
  std::vector<std::uint64_t> counts(law.size(), 0);
  for (std::size_t cell = 0; cell < law.size(); ++cell) {
    const std::int32_t b = bins.bin_of_cell[cell];
    if (b < 0 || law[cell] <= 0.0) continue;
    const double share = law[cell] / bins.bin_probability[static_cast<std::size_t>(b)];
    counts[cell] =
        static_cast<std::uint64_t>(std::llround(bin_count[static_cast<std::size_t>(b)] * share));
  }
  const judging::VerdictPolicy policy = judging.policy();
  const stats::TestLevel level = policy.identity_test_level(suite.size(), w.tree, true);
  w.level = level.level;
  // Counts the replicates and passes them on to the command's progress line.
  std::optional<LongStepNotices> notices;
  notices.emplace([&](std::string_view step, std::uint64_t done, std::uint64_t most) {
    w.replicates = std::max(w.replicates, done);
    w.cap = most;
    notices->call_outer(step, done, most);
  });
  const auto start = Clock::now();
  const stats::ChiSquareResult r = stats::identity_test(
      counts, law, stats::node_groups(suite[w.tree].tree.size(), suite[w.tree].tree.vocab), level);
  w.seconds = seconds_since(start);
  w.statistic = r.statistic;
  w.simulated = w.cap > 0;
  w.p_value = r.p_value;
  return w;
}

DetectablePerMinute measure_detectable_per_minute(double seconds, double budget_seconds,
                                                  int replicates) {
  DetectablePerMinute d;
  d.seconds_measured = seconds;
  d.budget_seconds = budget_seconds;
  d.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const std::vector<workloads::CheckCase> suite =
      workloads::make_suite(workloads::SuiteConfig{}).cases;
  // The default check: the whole check's α over every registered verifier, then the policy's level
  // (the identity test's share beside the tests of independence, which check runs).
  const judging::JudgingConfig judging = experiments::check_judging_defaults();
  const bool iid = judging.independence_tests;
  d.level = judging.policy().identity_level(suite.size(), true, iid);
  // The rate: TEV's Monte Carlo over the suite's trees in turn, as check calls it.
  constexpr std::uint64_t kChunk = std::uint64_t{1} << 21;
  std::uint64_t drawn = 0;
  const auto start = Clock::now();
  const double cpu_start = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID);
  for (std::size_t i = 0; drawn == 0 || seconds_since(start) < seconds;
       i = (i + 1) % suite.size()) {
    const montecarlo::MonteCarloPlan plan{.seed = judging.seed,
                                          .tree_id = static_cast<std::uint32_t>(i),
                                          .samples = kChunk,
                                          .first_sample = drawn,
                                          .threads = d.threads};
    g_sink =
        g_sink + run_monte_carlo(VerifierId::tree_exit, suite[i].tree, suite[i].rows, plan).samples;
    drawn += kChunk;
  }
  d.wall_samples_per_second = static_cast<double>(drawn) / seconds_since(start);
  d.samples_per_second =
      d.threads * static_cast<double>(drawn) / (cpu_seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu_start);
  d.samples_per_tree = static_cast<std::uint64_t>(d.samples_per_second * budget_seconds /
                                                  static_cast<double>(suite.size()));
  const judging::VerdictPolicy policy = judging.policy();
  for (std::size_t i = 0; i < suite.size(); ++i) {
    d.tv.push_back(judging::detectable_tv(suite[i].tree, suite[i].rows, d.samples_per_tree, d.level,
                                          policy.required_power));
    const double worst = d.tv[d.worst_tree].value_or(1e300), here = d.tv.back().value_or(1e300);
    if (here > worst) d.worst_tree = i;
  }
  // The budget itself, drawn and judged tree by tree as check does: where its time goes.
  for (std::size_t i = 0; i < suite.size(); ++i) {
    const montecarlo::MonteCarloPlan plan{.seed = judging.seed,
                                          .tree_id = static_cast<std::uint32_t>(i),
                                          .samples = d.samples_per_tree,
                                          .threads = d.threads};
    const auto drawing = Clock::now();
    const montecarlo::BlockCounts counts =
        run_monte_carlo(VerifierId::tree_exit, suite[i].tree, suite[i].rows, plan);
    d.sampling_seconds.push_back(seconds_since(drawing));
    const auto judging_start = Clock::now();
    const judging::TreeEvidence e =
        judging::sampled_evidence(suite[i].tree, suite[i].rows, counts,
                                  policy.identity_test_level(suite.size(), i, true, iid));
    g_sink = g_sink + static_cast<std::uint64_t>(e.chi_square.p_value * 1e6);
    d.judging_seconds.push_back(seconds_since(judging_start));
  }
  // The spot check: a budget small enough for replicates, the TV it detects with 99 % predicted power.
  d.spot_samples = 20000;
  const workloads::CheckCase& c = suite[d.worst_tree];
  d.spot_tv = judging::detectable_tv(c.tree, c.rows, d.spot_samples, d.level, policy.required_power)
                  .value_or(0.0);
  const experiments::PowerConfig config{
      .alpha = d.level, .replicates = replicates, .seed = judging.seed, .threads = d.threads};
  if (d.spot_tv > 0.0)
    d.spot = experiments::noise_contamination_spot_check(c, d.spot_tv, d.spot_samples, config);
  d.worst_simulation = measure_worst_simulation(suite, judging);
  return d;
}

}  // namespace tev::bench
