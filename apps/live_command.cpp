#include "apps/live_command.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <ostream>
#include <stdexcept>

#include "apps/results_file.hpp"
#include "apps/verdicts.hpp"
#include "core/exit_law.hpp"
#include "core/statistics.hpp"
#include "sim/monte_carlo.hpp"

namespace tev {

namespace {

namespace fs = std::filesystem;

struct LiveCase {
  SuiteCase suite_case;
  std::string drafter, builder, context_text;
  double root_kl = 0.0;
  double row_deviation = 0.0;
};

SuiteCase as_suite_case(std::string label, const LiveTree& live) {
  SuiteCase c;
  c.label = std::move(label);
  c.shape = TreeShape::ddtree;
  c.tree = live.tree;
  c.rows = live.rows;
  c.draft_kl = live.root_kl;
  return c;
}

std::vector<LiveCase> build_cases(const LiveOptions& options, const ModelSet& set, const std::vector<std::vector<Token>>& contexts,
                                  std::ostream& progress) {
  std::vector<LiveCase> cases;
  for (const NamedModel& drafter : set.drafters) {
    for (TreeBuilder builder : options.builders) {
      LiveTreeConfig config = options.tree;
      config.builder = builder;
      for (std::size_t i = 0; i < contexts.size(); ++i) {
        progress << "building tree " << cases.size() + 1 << ": " << builder_name(builder) << " from " << drafter.name
                 << ", context " << i << " ..." << std::flush;
        const auto start = std::chrono::steady_clock::now();
        const LiveTree live = build_live_tree(*set.target, *drafter.model, contexts[i], config);
        progress << " " << fixed(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 2) << " s\n";
        LiveCase c;
        c.drafter = drafter.name;
        c.builder = builder_name(builder);
        c.context_text = render_tokens(*set.target, live.context);
        c.root_kl = live.root_kl;
        c.row_deviation = live.row_deviation;
        c.suite_case = as_suite_case(c.builder + " / " + c.drafter + " / context " + std::to_string(i), live);
        if (!options.dump_dir.empty()) {
          const LiveDumpInfo info{"tree-" + std::to_string(cases.size()), set.target->name(), drafter.name, c.builder,
                                  options.tree.temperature};
          write_live_dump(fs::path(options.dump_dir) / (info.id + ".json"), live, info, *set.target, options.judging.samples);
        }
        cases.push_back(std::move(c));
      }
    }
  }
  return cases;
}

std::vector<LiveCase> read_cases(const std::string& dir, std::ostream& progress) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) throw std::invalid_argument(dir + " holds no .json live-tree dumps");
  std::vector<LiveCase> cases;
  for (const fs::path& file : files) {
    progress << "reading " << file.string() << '\n';
    const LoadedLiveTree loaded = read_live_dump(file);
    LiveCase c;
    c.drafter = loaded.info.drafter;
    c.builder = loaded.info.builder;
    c.row_deviation = loaded.live.row_deviation;
    c.suite_case = as_suite_case(file.filename().string(), loaded.live);
    cases.push_back(std::move(c));
  }
  return cases;
}

void print_cases(const std::vector<LiveCase>& cases, std::ostream& out) {
  out << "Live trees: " << cases.size() << "\n";
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const LiveCase& c = cases[i];
    const ExitLaw law = ExitLaw::compute(c.suite_case.tree, c.suite_case.rows);
    out << "  tree " << std::right << std::setw(2) << i << ": " << std::left << std::setw(36) << c.suite_case.label << " nodes "
        << std::setw(4) << c.suite_case.tree.size() << " depth " << std::setw(3) << c.suite_case.tree.max_depth() << " 1+C_p "
        << fixed(law.ceiling(), 4) << "  KL(target||drafter) " << fixed(c.root_kl, 3) << " nats  row dev "
        << scientific(c.row_deviation) << (c.context_text.empty() ? "" : "  \"" + c.context_text + "\"") << '\n';
  }
}

// The first word of a completed block: the exit's depth-1 ancestor's token, or the bonus at the root.
std::vector<std::uint64_t> first_word_counts(const DraftTree& tree, const BlockCounts& counts) {
  std::vector<std::uint64_t> first(static_cast<std::size_t>(tree.vocab), 0);
  for (NodeId v = 0; v < tree.size(); ++v) {
    NodeId top = v;
    while (top != 0 && tree.parent[top] != 0) top = tree.parent[top];
    for (Token a = 0; a < tree.vocab; ++a) {
      const std::uint64_t n = counts.completed[static_cast<std::size_t>(v) * static_cast<std::size_t>(tree.vocab) + static_cast<std::size_t>(a)];
      first[static_cast<std::size_t>(v == 0 ? a : tree.token[top])] += n;
    }
  }
  return first;
}

struct GenerationRow {
  std::string drafter, builder;
  Generation generation;
  std::size_t prompt_length = 0;
};

}  // namespace

int run_live(const LiveOptions& options, std::ostream& out, std::ostream& progress) {
  const auto start = std::chrono::steady_clock::now();
  ResultsFile json_file(options.json_path);
  if (!options.dump_dir.empty()) fs::create_directories(options.dump_dir);

  const bool from_dumps = !options.from_dir.empty();
  ModelSet set;
  std::vector<std::vector<Token>> contexts;
  std::vector<LiveCase> cases;
  if (from_dumps) {
    cases = read_cases(options.from_dir, progress);
  } else {
    progress << "loading models ...\n";
    set = load_models(options.models);
    out << "Target: " << set.description << "\nDrafters:";
    for (const NamedModel& d : set.drafters) out << ' ' << d.name << " (" << d.model->name() << ")";
    out << "\nBudget " << options.tree.budget << ", temperature " << options.tree.temperature << ", " << options.contexts
        << " context(s) of " << options.context_length << " sampled tokens per drafter x builder\n";
    contexts = sample_contexts(*set.target, options.contexts, options.context_length, options.judging.seed, set.end_token);
    cases = build_cases(options, set, contexts, progress);
  }
  print_cases(cases, out);
  std::vector<SuiteCase> suite;
  for (const LiveCase& c : cases) suite.push_back(c.suite_case);

  // One family-wise alpha: Bonferroni over the verifiers, the generation family and the first-word test.
  auto included = [&](const VerifierInfo& info) { return options.mutants || info.kind != VerifierKind::mutant; };
  const auto catalog = verifier_catalog();
  const int shares = static_cast<int>(std::count_if(catalog.begin(), catalog.end(), included)) + (from_dumps ? 0 : 2);
  const double share_alpha = options.judging.alpha / shares;
  out << "Samples per tree: " << options.judging.samples << " (verifiers with a fast path), " << options.chooser_samples
      << " (the others: O(V) per draw); seed " << options.judging.seed << "; family-wise alpha " << options.judging.alpha
      << ", " << share_alpha << " per verifier or test family\n";
  if (options.judging.enumerate) {
    out << "Exact laws by lumped enumeration (a branch per drafted child, every other token of a draw as one weighted vector): "
        << "each verifier's law against the canonical law to " << options.judging.exact_tolerance
        << (options.mutants ? ", each mutant's exact TV and predicted power at its sample count" : "; planted mutants with --mutants") << '\n';
  } else {
    out << "Live trees are not enumerated (--no-enumeration): verdicts rest on sampling, and a tree whose chi-square cannot "
        << "detect TV 0.05 with 99 % power makes its verifier 'inconclusive'"
        << (options.mutants ? "; a mutant sampling misses is reported, not failed" : "; planted mutants with --mutants") << '\n';
  }
  const std::vector<VerifierReport> reports = check_every_verifier(
      suite,
      [&](const VerifierInfo& info) -> std::optional<JudgingConfig> {
        if (!included(info)) return std::nullopt;
        JudgingConfig config = options.judging;
        config.verifiers_sharing_alpha = shares;
        if (info.fast_path == FastPath::none) config.samples = options.chooser_samples;
        return config;
      },
      progress);
  print_verdict_table(reports, out);
  bool passed = all_as_expected(reports);
  const bool inconclusive = only_inconclusive_unexpected(reports);

  nlohmann::json j;
  std::vector<GenerationRow> generations;
  if (!from_dumps) {
    out << "\nSpeculative generation with TEV, " << options.rounds << " rounds per drafter x builder from context 0:\n";
    std::vector<double> length_p;
    for (const NamedModel& drafter : set.drafters) {
      for (TreeBuilder builder : options.builders) {
        progress << "generating: " << builder_name(builder) << " from " << drafter.name << " ..." << std::flush;
        LiveTreeConfig config = options.tree;
        config.builder = builder;
        GenerationRow row{drafter.name, builder_name(builder),
                          speculative_generate(*set.target, *drafter.model, contexts.at(0), config, VerifierId::tree_exit,
                                               options.rounds, options.judging.seed),
                          contexts.at(0).size()};
        progress << " done\n";
        length_p.push_back(row.generation.length_p());
        out << "  " << std::left << std::setw(8) << row.builder << std::setw(14) << row.drafter << " tokens/round "
            << fixed(row.generation.mean_length(), 3) << "  mean 1+C_p " << fixed(row.generation.mean_ceiling(), 3)
            << "  p " << scientific(length_p.back()) << "  rounds " << row.generation.rounds << "  row dev "
            << scientific(row.generation.row_deviation) << '\n';
        const std::span<const Token> all = row.generation.tokens;
        out << "    \"" << render_tokens(*set.target, all.first(row.prompt_length)) << " | "
            << render_tokens(*set.target, all.subspan(row.prompt_length)) << "\"\n";
        generations.push_back(std::move(row));
      }
    }
    const auto adjusted = holm_adjust(length_p);
    const double min_length_p = adjusted.empty() ? 1.0 : *std::min_element(adjusted.begin(), adjusted.end());
    const bool generation_ok = min_length_p >= share_alpha;
    out << "  tokens per round vs 1 + C_p: min Holm p " << scientific(min_length_p) << (generation_ok ? " (holds)" : " (DOES NOT HOLD)") << '\n';

    // The first generated word under TEV against the target's exact next-word row at the context.
    const SuiteCase& first = suite.front();
    MonteCarloPlan plan;
    plan.seed = options.judging.seed + 1;
    plan.samples = options.first_word_samples;
    plan.threads = options.judging.threads;
    const BlockCounts counts = run_monte_carlo(VerifierId::tree_exit, first.tree, first.rows, plan);
    const std::vector<std::uint64_t> words = first_word_counts(first.tree, counts);
    const ChiSquareResult first_word = pearson_chi_square(words, first.rows.row(0), node_groups(1, first.tree.vocab));
    const bool first_ok = first_word.impossible == 0 && first_word.p_value >= share_alpha;
    out << "  first word of " << options.first_word_samples << " TEV rounds on tree 0 vs the target's next-word row: chi2 "
        << fixed(first_word.statistic, 1) << " on " << first_word.dof << " dof, p " << scientific(first_word.p_value)
        << (first_ok ? " (holds)" : " (DOES NOT HOLD)") << '\n';
    passed = passed && generation_ok && first_ok;
    j["generation"]["min_length_p_holm"] = min_length_p;
    j["first_word"] = {{"tree", 0}, {"samples", options.first_word_samples}, {"chi2", first_word.statistic},
                       {"dof", first_word.dof}, {"p", first_word.p_value}, {"impossible", first_word.impossible}};
  }

  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out << "\n" << (passed ? "PASS" : "FAIL") << ": on live trees every saturated verifier exact and saturated, every "
      << "unsaturated one exact and not saturated" << (from_dumps ? "" : ", tokens per round at 1 + C_p, first word at the target's row")
      << (passed ? "" : inconclusive ? " -- inconclusive: too few samples (--samples, --chooser-samples)" : " -- does not hold")
      << " (" << fixed(seconds, 1) << " s)\n";

  if (json_file.wanted()) {
    j["format_version"] = 2;
    j["command"] = "live";
    j["config"] = {{"budget", options.tree.budget},        {"temperature", options.tree.temperature},
                   {"contexts", options.contexts},         {"context_length", options.context_length},
                   {"samples", options.judging.samples},     {"chooser_samples", options.chooser_samples},
                   {"rounds", options.rounds},             {"seed", options.judging.seed},
                   {"alpha", options.judging.alpha},         {"threads", options.judging.threads},
                   {"enumerate", options.judging.enumerate},
                   {"from", options.from_dir}};
    if (!from_dumps) j["target"] = set.description;
    for (const LiveCase& c : cases) {
      const ExitLaw law = ExitLaw::compute(c.suite_case.tree, c.suite_case.rows);
      j["trees"].push_back({{"label", c.suite_case.label}, {"drafter", c.drafter}, {"builder", c.builder},
                            {"context", c.context_text}, {"nodes", c.suite_case.tree.size()},
                            {"max_depth", c.suite_case.tree.max_depth()}, {"ceiling", law.ceiling()},
                            {"root_kl", c.root_kl}, {"row_max_deviation", c.row_deviation}});
    }
    j["verifiers"] = verifiers_json(reports);
    for (const GenerationRow& g : generations) {
      j["generation"]["runs"].push_back({{"drafter", g.drafter}, {"builder", g.builder}, {"rounds", g.generation.rounds},
                                         {"tokens_per_round", g.generation.mean_length()},
                                         {"mean_ceiling", g.generation.mean_ceiling()}, {"p", g.generation.length_p()},
                                         {"row_max_deviation", g.generation.row_deviation},
                                         {"text", render_tokens(*set.target, g.generation.tokens)}});
    }
    j["seconds"] = seconds;
    j["passed"] = passed;
    json_file.write(j, out);
  }
  return passed ? 0 : inconclusive ? verdict_exit_code(Verdict::inconclusive) : 1;
}

}  // namespace tev
