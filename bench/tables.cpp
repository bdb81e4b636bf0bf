#include "bench/tables.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <thread>

#include "bench/measurements.hpp"
#include "core/row_kernels.hpp"
#include "stats/goodness_of_fit.hpp"
#include "bench/stage_timing.hpp"
#include "core/format.hpp"
#include "judging/verdict_policy.hpp"
#include "reports/results_writer.hpp"

namespace tev::bench {

namespace {

std::string goal(bool met) { return met ? "met" : "NOT met"; }

}  // namespace

int run_bench_verifier(std::int32_t vocab, double seconds_each, reports::ResultsWriter& json,
                       std::ostream& out, std::ostream& progress) {
  nlohmann::json j;
  j["format_version"] = 2;
  j["command"] = "bench verifier";
  j["hardware_threads"] = std::thread::hardware_concurrency();
  j["row_kernels"] = row_kernels().name;
  out << "Verifier stage: N = B + 1 rows of V = " << vocab
      << " float32 logits, DDTree trees; median microseconds per call\n"
      << "(1 thread: CPU time of the calling thread, so other programs on a shared machine do not "
         "count; 2 threads: wall clock;\n"
      << "the JSON also has every wall-clock median)\n"
      << "Row kernels: " << row_kernels().name
      << " (TEV_ROW_KERNEL=baseline|avx2|avx512 picks another)\n";
  std::vector<StageReport> reports;
  for (double temperature : {0.6, 1.0}) {
    for (std::int32_t budget : {32, 64, 128}) {
      progress << "  B = " << budget << ", T = " << temperature << " ..." << std::flush;
      reports.push_back(
          measure_verifier_stage(make_live_workload(budget, temperature, vocab), seconds_each));
      progress << " done\n";
    }
  }
  const std::vector<std::pair<std::string, int>> columns = {
      {"tev (level-parallel)", 1}, {"tev (level-parallel)", 2}, {"walk (lazy)", 1},
      {"predraw (eager)", 1},      {"predraw (eager)", 2},      {"predraw (lazy)", 1},
      {"sequential residual", 1}};
  out << "\n   B    T  nodes internal  1+C_p  top-1 |";
  for (const auto& [name, threads] : columns) out << ' ' << name << " x" << threads << " |";
  out << '\n';
  for (const StageReport& r : reports) {
    out << right_aligned(fixed(r.budget, 0), 4) << ' ' << right_aligned(fixed(r.temperature, 1), 4)
        << ' ' << right_aligned(fixed(r.nodes, 0), 6) << ' '
        << right_aligned(fixed(r.internal, 0), 8) << ' ' << right_aligned(fixed(r.ceiling, 3), 6)
        << ' ' << right_aligned(fixed(r.mean_top1, 3), 6) << " |";
    for (const auto& [name, threads] : columns)
      out << ' ' << right_aligned(fixed(r.micros(name, threads), 0), 8) << " |";
    out << '\n';
    nlohmann::json row = {
        {"budget", r.budget},      {"temperature", r.temperature}, {"vocab", r.vocab},
        {"nodes", r.nodes},        {"internal_nodes", r.internal}, {"ceiling", r.ceiling},
        {"mean_top1", r.mean_top1}};
    for (const StageTiming& t : r.timings) {
      row["micros_per_call"].push_back({{"verifier", t.verifier},
                                        {"threads", t.threads},
                                        {"micros", t.micros_per_call},
                                        {"wall_micros", t.wall_micros_per_call},
                                        {"calls", t.calls}});
    }
    j["workloads"].push_back(row);
  }
  out << "\nPer row against the row floor (one blocked log-sum-exp pass; medians, cycling over the "
         "workload's rows):\n"
      << "   B    T  floor us | internal row  draw | TEV x1 per row  eager predraw per row | per "
         "call in floors:";
  for (const auto& [name, threads] : columns) out << ' ' << name << " x" << threads << " |";
  out << '\n';
  // The performance goals, over every workload: internal rows and draws within 1.3 floors, TEV at
  // B = 64 within (internal + 1) · 1.3 floors, the fastest exact verifier at B = 64 under 200 us.
  double worst_internal = 0.0, worst_draw = 0.0, worst_tev_rows = 0.0, fastest_b64 = 0.0;
  for (const StageReport& r : reports) {
    const double floor = r.floor_micros;
    const double tev1 = r.micros("tev (level-parallel)", 1), eager = r.micros("predraw (eager)", 1);
    const double tev_rows = tev1 / ((r.internal + 1) * floor);
    out << right_aligned(fixed(r.budget, 0), 4) << ' ' << right_aligned(fixed(r.temperature, 1), 4)
        << ' ' << right_aligned(fixed(floor, 1), 9) << " | "
        << right_aligned(fixed(r.internal_micros / floor, 2), 12) << ' '
        << right_aligned(fixed(r.draw_micros / floor, 2), 5) << " | "
        << right_aligned(fixed(tev_rows, 2), 14) << ' '
        << right_aligned(fixed(eager / (r.nodes * floor), 2), 21) << " |";
    for (const auto& [name, threads] : columns)
      out << ' ' << right_aligned(fixed(r.micros(name, threads) / floor, 1), 8) << " |";
    out << '\n';
    j["workloads"][&r - reports.data()]["floor_micros_per_row"] = floor;
    j["workloads"][&r - reports.data()]["ratios_to_floor"] = {
        {"internal_row", r.internal_micros / floor},
        {"draw", r.draw_micros / floor},
        {"tev_1_thread_per_row", tev_rows},
        {"eager_predraw_per_row", eager / (r.nodes * floor)}};
    for (const auto& [name, threads] : columns) {
      j["workloads"][&r - reports.data()]["calls_in_floors"].push_back(
          {{"verifier", name}, {"threads", threads}, {"floors", r.micros(name, threads) / floor}});
    }
    worst_internal = std::max(worst_internal, r.internal_micros / floor);
    worst_draw = std::max(worst_draw, r.draw_micros / floor);
    if (r.budget == 64) {
      worst_tev_rows = std::max(worst_tev_rows, tev_rows);
      double fastest = r.micros("walk (lazy)", 1);
      for (const auto& [name, threads] : columns) {
        if (threads == 1) fastest = std::min(fastest, r.micros(name, threads));
      }
      fastest_b64 = std::max(fastest_b64, fastest);
    }
  }
  out << "\nRatios (measured side by side in this run):\n";
  bool all_met = true;
  for (const StageReport& r : reports) {
    const double eager = r.micros("predraw (eager)", 1);
    const double tev1 = r.micros("tev (level-parallel)", 1),
                 tev2 = r.micros("tev (level-parallel)", 2);
    const double walk = r.micros("walk (lazy)", 1);
    out << "  B = " << r.budget << ", T = " << r.temperature
        << ": eager predraw / TEV = " << fixed(eager / tev1, 2)
        << " (1 thread), with 2 threads TEV " << fixed(tev2, 0)
        << " us; eager predraw / lazy walk = " << fixed(eager / walk, 1) << '\n';
  }
  auto add_goal = [&](const char* key, const std::string& text, double value, double bound,
                      bool met) {
    out << "  goal: " << text << ": " << fixed(value, 2) << " (bound " << num(bound, 4)
        << "): " << goal(met) << '\n';
    j["goals"][key] = {{"value", value}, {"bound", bound}, {"met", met}};
    all_met = all_met && met;
  };
  add_goal("internal_row_over_floor", "TEV's internal row / floor, worst workload", worst_internal,
           1.3, worst_internal <= 1.3);
  add_goal("draw_over_floor", "one draw / floor, worst workload", worst_draw, 1.3,
           worst_draw <= 1.3);
  add_goal("tev_b64_over_rows_floor", "TEV (1 thread) at B = 64 / ((internal + 1) floors), worst T",
           worst_tev_rows, 1.3, worst_tev_rows <= 1.3);
  add_goal("fastest_exact_b64_micros", "fastest exact verifier at B = 64, us per call (worst T)",
           fastest_b64, 200.0, fastest_b64 <= 200.0);
  j["all_goals_met"] = all_met;
  json.write(j, out);
  return 0;
}

int run_bench_montecarlo(std::uint64_t samples, int repeats, reports::ResultsWriter& json,
                         std::ostream& out) {
  const ThroughputReport r = measure_montecarlo(samples, repeats);
  out << "Monte Carlo throughput: DDTree B = " << r.budget << ", V = " << r.vocab << ", " << samples
      << " samples per run, best of " << repeats << "; million samples per second\n\n";
  out << "wall clock: what this run got on the shared machine; cores: threads x samples per CPU "
         "second (process CPU time),\n"
      << "the rate on that many cores of one's own\n\n"
      << "verifier             wall 1 thr  wall 2 thr | cores 1  cores 2\n";
  nlohmann::json j;
  j["format_version"] = 2;
  j["command"] = "bench montecarlo";
  j["samples"] = samples;
  j["layout"] = "fast path: two uniforms per Philox block (every 32-bit word)";
  for (const char* name : {"tev", "predraw", "sequential-residual", "walk", "philox-only"}) {
    out << std::string(name) +
               std::string(std::max<std::size_t>(1, 21 - std::string(name).size()), ' ')
        << right_aligned(fixed(r.rate(name, 1) / 1e6, 1), 10) << "  "
        << right_aligned(fixed(r.rate(name, 2) / 1e6, 1), 10) << " | "
        << right_aligned(fixed(r.core_rate(name, 1) / 1e6, 1), 7) << "  "
        << right_aligned(fixed(r.core_rate(name, 2) / 1e6, 1), 7) << '\n';
    j["rates"].push_back({{"verifier", name},
                          {"threads_1", r.rate(name, 1)},
                          {"threads_2", r.rate(name, 2)},
                          {"cores_1", r.core_rate(name, 1)},
                          {"cores_2", r.core_rate(name, 2)}});
  }
  const double tev2 = r.core_rate("tev", 2), floor2 = r.core_rate("philox-only", 2);
  out << "\nTEV on 2 cores: " << fixed(tev2 / 1e6, 1) << " M samples/s (wall "
      << fixed(r.rate("tev", 2) / 1e6, 1) << "; goal >= 100: " << goal(tev2 >= 1e8)
      << "); Philox-only floor " << fixed(floor2 / 1e6, 1)
      << " M/s, floor / TEV = " << fixed(floor2 / tev2, 2)
      << " (goal <= 3: " << goal(floor2 / tev2 <= 3.0) << ")\n";
  j["tev_2_cores"] = tev2;
  j["philox_only_2_cores"] = floor2;
  j["floor_over_tev"] = floor2 / tev2;
  j["goals"]["tev_2_cores_samples_per_second"] = {
      {"value", tev2}, {"bound", 1e8}, {"met", tev2 >= 1e8}};
  j["goals"]["philox_floor_over_tev"] = {
      {"value", floor2 / tev2}, {"bound", 3.0}, {"met", floor2 / tev2 <= 3.0}};
  j["all_goals_met"] = tev2 >= 1e8 && floor2 / tev2 <= 3.0;
  json.write(j, out);
  return 0;
}

int run_bench_power(double seconds, double budget_seconds, int replicates,
                    reports::ResultsWriter& json, std::ostream& out) {
  const DetectablePerMinute d = measure_detectable_per_minute(seconds, budget_seconds, replicates);
  out << "Detectable TV per " << fixed(budget_seconds, 0)
      << " s of TEV sampling on the default check suite (" << d.tv.size() << " trees)\n"
      << "Rate: " << fixed(d.samples_per_second / 1e6, 1) << " M samples/s on " << d.threads
      << " core(s) of one's own (process CPU time; this run got "
      << fixed(d.wall_samples_per_second / 1e6, 1) << " M/s of wall clock), measured for "
      << fixed(d.seconds_measured, 0) << " s (tables built per run, as check does);\n"
      << fixed(budget_seconds, 0) << " s -> " << d.samples_per_tree << " samples per tree\n"
      << "Level: one tree's identity test at " << num(d.level, 3) << " (the default check's alpha "
      << num(judging::kDefaultAlpha) << " over every verifier, half for exactness,\n"
      << "Bonferroni over the trees, 0.9 of it for the identity test); power 0.99 against the "
         "worst law at that TV, tails included\n\n"
      << "Then that budget drawn and judged, tree by tree as check does (wall seconds; TEV's fast "
         "path completes each block\n"
      << "in its sampling pass, so completion is inside sampling)\n\n"
      << "tree   detectable TV   sampling s   judging s\n";
  nlohmann::json j;
  j["format_version"] = 1;
  j["command"] = "bench power";
  j["samples_per_second"] = d.samples_per_second;
  j["wall_samples_per_second"] = d.wall_samples_per_second;
  j["threads"] = d.threads;
  j["seconds_measured"] = d.seconds_measured;
  j["budget_seconds"] = budget_seconds;
  j["samples_per_tree"] = d.samples_per_tree;
  j["level"] = d.level;
  double best = 1e300;
  for (std::size_t i = 0; i < d.tv.size(); ++i) {
    out << right_aligned(fixed(static_cast<double>(i), 0), 4) << "   "
        << right_aligned(d.tv[i] ? num(*d.tv[i], 3) : std::string("none"), 13) << "   "
        << right_aligned(fixed(d.sampling_seconds[i], 2), 10) << "   "
        << right_aligned(fixed(d.judging_seconds[i], 3), 9) << '\n';
    j["detectable_tv"].push_back(d.tv[i] ? nlohmann::json(*d.tv[i]) : nlohmann::json(nullptr));
    j["sampling_seconds"].push_back(d.sampling_seconds[i]);
    j["judging_seconds"].push_back(d.judging_seconds[i]);
    if (d.tv[i]) best = std::min(best, *d.tv[i]);
  }
  const std::optional<double> worst = d.tv[d.worst_tree];
  out << "\nEvery tree of the suite detects a contamination of TV "
      << (worst ? num(*worst, 3) : std::string("(none)")) << " (worst tree " << d.worst_tree
      << ") with 99 % power in " << fixed(budget_seconds, 0) << " s; the best tree " << num(best, 3)
      << '\n';
  j["worst_tree"] = d.worst_tree;
  j["detectable_tv_worst"] = worst ? nlohmann::json(*worst) : nlohmann::json(nullptr);
  j["detectable_tv_best"] = best;
  if (d.spot.replicates > 0) {
    const double observed = static_cast<double>(d.spot.rejections) / d.spot.replicates;
    // Descriptive: the two-sided binomial p of the rejections under the predicted power.
    const double p = stats::binomial_two_sided_p(static_cast<std::uint64_t>(d.spot.rejections),
                                                 static_cast<std::uint64_t>(d.spot.replicates),
                                                 d.spot.predicted);
    out << "Spot check (descriptive), tree " << d.worst_tree << ", " << d.spot_samples
        << " samples per replicate, TV " << num(d.spot_tv, 3) << ": " << d.spot.rejections << " of "
        << d.spot.replicates << " replicates rejected (" << fixed(observed, 3)
        << "), predicted power " << fixed(d.spot.predicted, 3) << ", binomial p " << num(p, 2)
        << '\n';
    j["spot_check"] = {{"tree", d.worst_tree},
                       {"samples", d.spot_samples},
                       {"tv", d.spot_tv},
                       {"replicates", d.spot.replicates},
                       {"rejections", d.spot.rejections},
                       {"predicted_power", d.spot.predicted},
                       {"binomial_p", p}};
  }
  const WorstSimulation& w = d.worst_simulation;
  out << "Longest simulated p-value (tree " << w.tree << ", " << w.bins << " bins, " << w.samples
      << " samples, level " << num(w.level, 3) << "): counts with chi-square "
      << fixed(w.statistic, 1) << ", ten null sd above its mean, spread over every bin: ";
  if (w.simulated) {
    out << w.replicates << " of at most " << w.cap << " null replicates, p " << num(w.p_value, 3)
        << ", " << fixed(w.seconds, 2) << " s on " << d.threads << " thread(s)\n";
  } else {
    out << "decided by the bounds without simulation (p " << num(w.p_value, 3) << ", "
        << fixed(w.seconds, 2) << " s)\n";
  }
  j["worst_simulation"] = {{"tree", w.tree},
                           {"bins", w.bins},
                           {"samples", w.samples},
                           {"level", w.level},
                           {"statistic", w.statistic},
                           {"simulated", w.simulated},
                           {"replicates", w.replicates},
                           {"cap", w.cap},
                           {"p_value", w.p_value},
                           {"seconds", w.seconds}};
  json.write(j, out);
  return 0;
}

int run_bench_verifier_gpu(std::int32_t vocab, reports::ResultsWriter& json, std::ostream& out,
                           std::ostream& progress) {
  constexpr std::int32_t kCalls = 200;
  nlohmann::json j;
  j["format_version"] = 1;
  j["command"] = "bench verifier --device gpu";
  out << "Verifier stage on the GPU: N = B + 1 rows of V = " << vocab
      << " float32 logits already on the device, DDTree trees;\n"
      << "median microseconds per call over " << kCalls
      << " calls (CUDA events); the row floor reads every row once (a log-sum-exp over all\n"
      << "multiprocessors), and TEV and predraw are also given in floors\n\n"
      << "   B    T  nodes internal  1+C_p | floor us |   TEV us  floors | predraw us  floors | "
         "predraw / TEV\n";
  for (double temperature : {0.6, 1.0}) {
    for (std::int32_t budget : {32, 64, 128}) {
      progress << "  B = " << budget << ", T = " << temperature << " ..." << std::flush;
      const StageReport r =
          measure_verifier_stage_gpu(make_live_workload(budget, temperature, vocab), kCalls);
      progress << " done\n";
      const double tev = r.micros("tev (gpu)", 1), predraw = r.micros("predraw (eager, gpu)", 1);
      const double floor = r.gpu_floor_micros;
      out << right_aligned(fixed(r.budget, 0), 4) << ' '
          << right_aligned(fixed(r.temperature, 1), 4) << ' ' << right_aligned(fixed(r.nodes, 0), 6)
          << ' ' << right_aligned(fixed(r.internal, 0), 8) << ' '
          << right_aligned(fixed(r.ceiling, 3), 6) << " | " << right_aligned(fixed(floor, 1), 8)
          << " | " << right_aligned(fixed(tev, 1), 8) << ' '
          << right_aligned(fixed(tev / floor, 1), 7) << " | "
          << right_aligned(fixed(predraw, 1), 10) << ' '
          << right_aligned(fixed(predraw / floor, 1), 7) << " | "
          << right_aligned(fixed(predraw / tev, 2), 13) << '\n';
      j["workloads"].push_back({{"budget", r.budget},
                                {"temperature", r.temperature},
                                {"vocab", r.vocab},
                                {"nodes", r.nodes},
                                {"internal_nodes", r.internal},
                                {"ceiling", r.ceiling},
                                {"floor_micros", floor},
                                {"tev_micros", tev},
                                {"predraw_micros", predraw}});
    }
  }
  json.write(j, out);
  return 0;
}

int run_bench_montecarlo_gpu(std::uint64_t samples, int repeats, reports::ResultsWriter& json,
                             std::ostream& out) {
  const std::vector<GpuThroughput> rates = measure_montecarlo_gpu(samples, repeats);
  const ThroughputReport tree_shape;  // its default budget and vocabulary name the tree
  out << "Monte Carlo on the GPU against the CPU engine: DDTree B = " << tree_shape.budget
      << ", V = " << tree_shape.vocab << ", " << samples << " samples per run, best of " << repeats
      << "; million samples per second\n(sampling alone, tables built beforehand; GPU: the "
         "sampling kernel, CUDA events)\n\n"
      << "verifier              GPU        CPU (threads)   GPU / CPU   identical histograms\n";
  nlohmann::json j;
  j["format_version"] = 1;
  j["command"] = "bench montecarlo --device gpu";
  j["samples"] = samples;
  bool identical = true;
  for (const GpuThroughput& r : rates) {
    out << r.verifier << std::string(std::max<std::size_t>(1, 20 - r.verifier.size()), ' ')
        << right_aligned(fixed(r.gpu_rate / 1e6, 1), 9) << "  "
        << right_aligned(fixed(r.cpu_rate / 1e6, 1), 9) << " (" << r.cpu_threads << ")"
        << right_aligned(fixed(r.gpu_rate / r.cpu_rate, 1), 11) << "   "
        << (r.identical ? "yes" : "NO") << '\n';
    j["rates"].push_back({{"verifier", r.verifier},
                          {"gpu", r.gpu_rate},
                          {"cpu", r.cpu_rate},
                          {"cpu_threads", r.cpu_threads},
                          {"identical", r.identical}});
    identical = identical && r.identical;
  }
  j["identical"] = identical;
  json.write(j, out);
  return identical ? 0 : 1;
}

}  // namespace tev::bench
