#include "live/live_checks.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <ostream>
#include <stdexcept>

#include "stats/goodness_of_fit.hpp"
#include "montecarlo/monte_carlo.hpp"

namespace tev::live {

namespace {

namespace fs = std::filesystem;

workloads::CheckCase as_check_case(std::string label, const LiveTree& live) {
  workloads::CheckCase c;
  c.label = std::move(label);
  c.tree = live.tree;
  c.rows = live.rows;
  return c;
}

long long milliseconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                               start)
      .count();
}

std::vector<LiveCase> build_cases(const LiveOptions& options, const montecarlo::RunContext& context,
                                  const models::ModelSet& set,
                                  const std::vector<std::vector<Token>>& contexts,
                                  std::ostream& progress) {
  const bool dump = !options.dump_dir.empty() && context.writes_files;
  if (dump) fs::create_directories(options.dump_dir);
  std::vector<LiveCase> cases;
  for (const models::NamedModel& drafter : set.drafters) {
    for (TreeBuilder builder : options.builders) {
      LiveTreeConfig config = options.tree;
      config.builder = builder;
      for (std::size_t i = 0; i < contexts.size(); ++i) {
        progress << "building tree " << cases.size() + 1 << ": " << builder_name(builder)
                 << " from " << drafter.name << ", context " << i << " ..." << std::flush;
        const auto start = std::chrono::steady_clock::now();
        const LiveTree live = build_live_tree(*set.target, *drafter.model, contexts[i], config);
        progress << " " << milliseconds_since(start) << " ms\n";
        LiveCase c;
        c.drafter = drafter.name;
        c.builder = builder_name(builder);
        c.context_text = models::render_tokens(*set.target, live.context);
        c.root_kl = live.root_kl;
        c.row_deviation = live.row_deviation;
        c.check_case =
            as_check_case(c.builder + " / " + c.drafter + " / context " + std::to_string(i), live);
        if (dump) {
          const LiveDumpInfo info{"tree-" + std::to_string(cases.size()), set.target->name(),
                                  drafter.name, c.builder, options.tree.temperature};
          write_live_dump(fs::path(options.dump_dir) / (info.id + ".json"), live, info, *set.target,
                          options.judging.samples);
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
    if (entry.is_regular_file() && entry.path().extension() == ".json")
      files.push_back(entry.path());
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
    c.check_case = as_check_case(file.filename().string(), loaded.live);
    cases.push_back(std::move(c));
  }
  return cases;
}

// The first word of a completed block: the exit's depth-1 ancestor's token, or the bonus at the root.
std::vector<std::uint64_t> first_word_counts(const DraftTree& tree,
                                             const montecarlo::BlockCounts& counts) {
  std::vector<std::uint64_t> first(static_cast<std::size_t>(tree.vocab), 0);
  for (NodeId v = 0; v < tree.size(); ++v) {
    NodeId top = v;
    while (top != 0 && tree.parent[top] != 0) top = tree.parent[top];
    for (Token a = 0; a < tree.vocab; ++a) {
      const std::uint64_t n =
          counts.completed[static_cast<std::size_t>(v) * static_cast<std::size_t>(tree.vocab) +
                           static_cast<std::size_t>(a)];
      first[static_cast<std::size_t>(v == 0 ? a : tree.token[top])] += n;
    }
  }
  return first;
}

// Speculative generation with TEV per drafter × builder from context 0: tokens per round against
// the mean 1 + C_p of the rounds' trees, one Holm family at the share alpha.
void generate(const LiveOptions& options, const models::ModelSet& set,
              const std::vector<Token>& prompt, double share_alpha, LiveResult& result,
              std::ostream& progress) {
  std::vector<double> length_p;
  for (const models::NamedModel& drafter : set.drafters) {
    for (TreeBuilder builder : options.builders) {
      progress << "generating: " << builder_name(builder) << " from " << drafter.name << " ..."
               << std::flush;
      LiveTreeConfig config = options.tree;
      config.builder = builder;
      LiveGenerationRun run{
          drafter.name,
          builder_name(builder),
          speculative_generate(*set.target, *drafter.model, prompt, config, VerifierId::tree_exit,
                               options.rounds, options.judging.seed),
          {},
          {},
          {}};
      progress << " done\n";
      length_p.push_back(run.generation.length_p());
      const std::span<const Token> all = run.generation.tokens;
      run.prompt_text = models::render_tokens(*set.target, all.first(prompt.size()));
      run.continuation_text = models::render_tokens(*set.target, all.subspan(prompt.size()));
      run.text = models::render_tokens(*set.target, all);
      result.generations.push_back(std::move(run));
    }
  }
  const auto adjusted = stats::holm_adjust(length_p);
  result.min_length_p_holm =
      adjusted.empty() ? 1.0 : *std::min_element(adjusted.begin(), adjusted.end());
  result.generation_holds = result.min_length_p_holm >= share_alpha;
}

FirstWordTest first_word_test(const LiveOptions& options, const montecarlo::RunContext& context,
                              const workloads::CheckCase& first, double share_alpha) {
  montecarlo::MonteCarloPlan plan;
  plan.seed = options.judging.seed + 1;
  plan.samples = options.first_word_samples;
  plan.threads = options.judging.threads;
  plan.ranks = context.ranks;
  const montecarlo::BlockCounts counts =
      montecarlo::run_monte_carlo(VerifierId::tree_exit, first.tree, first.rows, plan);
  FirstWordTest test;
  test.samples = options.first_word_samples;
  test.chi_square =
      stats::identity_test(first_word_counts(first.tree, counts), first.rows.row(0),
                           stats::node_groups(1, first.tree.vocab),
                           stats::TestLevel{share_alpha, share_alpha, options.judging.seed, 0});
  test.holds = test.chi_square.impossible == 0 && test.chi_square.p_value >= share_alpha;
  return test;
}

}  // namespace

int LiveResult::exit_code() const {
  return passed ? 0 : inconclusive ? judging::verdict_exit_code(judging::Verdict::inconclusive) : 1;
}

LiveResult run_live_checks(const LiveOptions& options, const montecarlo::RunContext& context,
                           std::ostream& progress,
                           const judging::VerifierProgress& verifier_progress) {
  const auto start = std::chrono::steady_clock::now();
  LiveResult result;
  result.from_dumps = !options.from_dir.empty();
  models::ModelSet set;
  std::vector<std::vector<Token>> contexts;
  if (result.from_dumps) {
    result.cases = read_cases(options.from_dir, progress);
  } else {
    progress << "loading models ...\n";
    set = models::load_models(options.models);
    result.target = set.description;
    for (const models::NamedModel& d : set.drafters)
      result.drafters.emplace_back(d.name, d.model->name());
    contexts = sample_contexts(*set.target, options.contexts, options.context_length,
                               options.judging.seed, set.end_token);
    result.cases = build_cases(options, context, set, contexts, progress);
  }
  std::vector<workloads::CheckCase> suite;
  for (const LiveCase& c : result.cases) suite.push_back(c.check_case);

  // One family-wise alpha: Bonferroni over the verifiers, the generation family and the first-word test.
  auto included = [&](const VerifierInfo& info) {
    return options.mutants || !is_mutant(info.kind);
  };
  result.alpha_shares = judging::alpha_shares(options.mutants, result.from_dumps ? 0 : 2);
  const double share_alpha = result.share_alpha(options.judging.alpha);
  result.verifiers = judging::check_every_verifier(
      suite,
      [&](const VerifierInfo& info) -> std::optional<judging::JudgingConfig> {
        if (!included(info)) return std::nullopt;
        judging::JudgingConfig config = options.judging;
        config.verifiers_sharing_alpha = result.alpha_shares;
        config.ranks = context.ranks;
        if (info.fast_path == FastPath::none) config.samples = options.chooser_samples;
        return config;
      },
      verifier_progress);
  result.passed = judging::all_as_expected(result.verifiers);
  result.inconclusive = judging::only_inconclusive_unexpected(result.verifiers);
  if (!result.from_dumps) {
    generate(options, set, contexts.at(0), share_alpha, result, progress);
    result.first_word = first_word_test(options, context, suite.front(), share_alpha);
    result.passed = result.passed && result.generation_holds && result.first_word.holds;
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace tev::live
