#include "live/live_sampled.hpp"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_reduce.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ostream>
#include <stdexcept>

#include "core/compensated_sum.hpp"
#include "core/exit_law.hpp"
#include "core/random_streams.hpp"
#include "live/live.hpp"
#include "judging/sampled_law.hpp"

namespace tev::live {

namespace {

// Forwards a verifier's accept/reject tests to the enumeration and answers its token draws (over
// the vocabulary) with their first possible token without branching, keeping the run's first such
// draw whole: when the root emits its bonus, that draw is the first word's law on this branch.
struct FirstWordChooser {
  EnumeratingChooser& inner;
  std::size_t vocab;
  std::vector<double> first_draw;  // (V) weights of the run's first token draw
  std::size_t categorical(std::span<const double> weights) {
    if (weights.size() != vocab) return inner.categorical(weights);
    if (first_draw.empty()) first_draw.assign(weights.begin(), weights.end());
    const auto positive =
        std::find_if(weights.begin(), weights.end(), [](double w) { return w > 0.0; });
    if (positive == weights.end())
      throw std::logic_error("categorical draw over zero total weight");
    return static_cast<std::size_t>(positive - weights.begin());
  }
  // For the dispatch to compile; first_word_law never runs target-only verifiers.
  Token next_token(const DraftTree&, NodeId, std::span<const double> weights) {
    return static_cast<Token>(categorical(weights));
  }
  template <class Compute>
  auto prepare(Compute&& compute) {
    return compute();
  }
};

struct FirstWordRun {
  std::vector<Token> emitted;
  std::vector<double> first_draw;
};

// Sample words of the sampled_live stream: (part, drafter × policy stream, sample or draw).
enum class Part : std::uint64_t { first_word = 0, rounds = 1 };
std::uint64_t sample_key(Part part, std::uint32_t stream, std::uint64_t index) {
  return (static_cast<std::uint64_t>(part) << 56) | (static_cast<std::uint64_t>(stream) << 40) |
         index;
}
constexpr std::uint32_t kVerifierWord =
    1u << 24;  // tree words of verifier draws; node numbers stay below
DrawSite verifier_site(std::uint32_t seed, drafts::SampledVerifierId id, std::uint64_t key) {
  return {seed, uses::sampled_live.stream, kVerifierWord + static_cast<std::uint32_t>(id), key};
}
judging::PhiloxNodeChoosers drafting_choosers(std::uint32_t seed, std::uint64_t key) {
  return {PhiloxChooser{DrawSite{}}, DrawSite{seed, uses::sampled_live.stream, 0, key}, 0};
}

// A realized tree's fixed form, kept per distinct tree while the kept rows stay within
// kMaxRows (about 150 MB at V = 72,547): chains of top-k drafts realize few distinct trees.
class FixedTrees {
 public:
  using Fixed = std::pair<DraftTree, TargetRows>;
  static constexpr NodeId kMaxRows = 256;
  // `scratch` holds the tree when it is not kept.
  const Fixed& get(const drafts::DraftedTree& drafted, std::int32_t vocab, Fixed& scratch) {
    std::vector<Token> key;  // every node's prefix, then its drafts, each list closed by kNoToken
    for (const auto& [prefix, node] : drafted.nodes()) {
      key.insert(key.end(), prefix.begin(), prefix.end());
      key.push_back(kNoToken);
      key.insert(key.end(), node.drafts.begin(), node.drafts.end());
      key.push_back(kNoToken);
    }
    {
      const std::lock_guard lock(mutex_);
      if (const auto it = trees_.find(key); it != trees_.end()) return it->second;
    }
    scratch = drafted.fixed_tree(vocab);
    const std::lock_guard lock(mutex_);
    if (rows_ + scratch.first.size() > kMaxRows) return scratch;
    rows_ += scratch.first.size();
    return trees_.emplace(std::move(key), std::move(scratch)).first->second;
  }

 private:
  std::mutex mutex_;
  std::map<std::vector<Token>, Fixed> trees_;
  NodeId rows_ = 0;  // rows kept in trees_
};

// The first emitted word of `samples` runs, each on a freshly drafted tree (key: sample index).
std::vector<std::uint64_t> sample_first_words(const LiveLanguagePair& pair,
                                              const drafts::SampledCase& c, std::uint32_t stream,
                                              const LiveSampledOptions& o) {
  using Counts = std::vector<std::uint64_t>;
  const auto vocab = static_cast<std::size_t>(pair.vocab());
  const bool target_only =
      drafts::sampled_verifier_info(c.verifier).kind == drafts::SampledKind::target_only;
  FixedTrees fixed_trees;
  auto body = [&](const oneapi::tbb::blocked_range<std::uint64_t>& range, Counts counts) {
    if (counts.empty()) counts.assign(vocab, 0);
    PhiloxChooser verify{DrawSite{}};
    judging::PhiloxNodeChoosers choosers =
        drafting_choosers(o.seed, 0);  // one scratch buffer for the range's draws
    FixedTrees::Fixed scratch;
    for (std::uint64_t s = range.begin(); s != range.end(); ++s) {
      const std::uint64_t key = sample_key(Part::first_word, stream, s);
      choosers.base.sample = key;
      drafts::LazyDrafts drafts(pair, c.drafting, choosers);
      verify.restart(verifier_site(o.seed, c.verifier, key));
      Token first = kNoToken;
      if (target_only) {  // run_sampled_verifier's target-only path, with the fixed tree built once
        const auto& [tree, rows] = fixed_trees.get(drafts.realized(), pair.vocab(), scratch);
        first = drafts::emitted_tokens(tree, run_verifier(drafts::target_only_verifier(c.verifier),
                                                          tree, rows, verify))
                    .front();
      } else {
        first = drafts::run_sampled_verifier(c.verifier, drafts, verify, pair.vocab()).front();
      }
      ++counts[static_cast<std::size_t>(first)];
    }
    return counts;
  };
  auto merge = [](Counts a, const Counts& b) {
    for (std::size_t i = 0; i < b.size(); ++i) a[i] += b[i];
    return a;
  };
  oneapi::tbb::task_arena arena(o.threads);
  Counts counts = arena.execute([&] {
    return oneapi::tbb::parallel_reduce(
        oneapi::tbb::blocked_range<std::uint64_t>(0, o.first_word_samples, 256), Counts{}, body,
        merge);
  });
  if (counts.empty()) counts.assign(vocab, 0);
  return counts;
}

double mean_of(const std::vector<double>& x) {
  return x.empty() ? 0.0 : compensated_total(x) / static_cast<double>(x.size());
}
double standard_error(const std::vector<double>& x) {
  if (x.size() < 2) return 0.0;
  const double m = mean_of(x);
  CompensatedSum square;
  for (double v : x) square.add((v - m) * (v - m));
  return std::sqrt(square.value() / static_cast<double>(x.size() - 1) /
                   static_cast<double>(x.size()));
}

// Rounds of generation after `prompt`: each round drafts one tree (key: the round), TEV and the
// q-based verifier each verify it `draws_per_round` times, and TEV's first block extends the text.
RoundsComparison run_rounds(const models::LanguageModel& target,
                            const models::LanguageModel& drafter, const std::string& drafter_name,
                            const drafts::Drafting& drafting, drafts::SampledVerifierId q_verifier,
                            std::uint32_t stream, std::span<const Token> prompt,
                            const LiveSampledOptions& o, double& row_deviation) {
  RoundsComparison out;
  out.drafter = drafter_name;
  out.drafting = drafting;
  out.q_verifier = q_verifier;
  out.draws = o.draws_per_round;
  out.tokens.assign(prompt.begin(), prompt.end());
  std::vector<double> tev_means, q_means, differences;
  std::vector<LengthLaw> laws;
  std::uint64_t tev_sum = 0;
  CompensatedSum ceiling;
  const auto draws = static_cast<std::uint64_t>(o.draws_per_round);
  for (std::int32_t r = 0; r < o.rounds; ++r) {
    if (out.tokens.size() + static_cast<std::size_t>(drafting.depth) + 1 >
        std::min(target.max_length(), drafter.max_length()))
      break;
    const LiveLanguagePair pair(target, drafter, out.tokens, o.top_k, drafting.depth,
                                o.temperature);
    judging::PhiloxNodeChoosers choosers =
        drafting_choosers(o.seed, sample_key(Part::rounds, stream, static_cast<std::uint64_t>(r)));
    drafts::LazyDrafts drafts(pair, drafting, choosers);
    const drafts::DraftedTree& tree = drafts.realized();
    const auto [fixed, rows] = tree.fixed_tree(pair.vocab());
    const ExitLaw law = ExitLaw::compute(fixed, rows);
    laws.push_back(length_law(fixed, law));
    ceiling.add(law.ceiling());
    PhiloxChooser chooser{DrawSite{}};
    std::uint64_t tev_total = 0, q_total = 0;
    std::vector<Token> advance;
    for (std::uint64_t j = 0; j < draws; ++j) {
      const std::uint64_t key =
          sample_key(Part::rounds, stream, static_cast<std::uint64_t>(r) * draws + j);
      chooser.restart(verifier_site(o.seed, drafts::SampledVerifierId::tree_exit, key));
      const Block block = run_verifier(VerifierId::tree_exit, fixed, rows, chooser);
      tev_total += static_cast<std::uint64_t>(fixed.depth[block.exit]) + 1;
      if (j == 0) advance = drafts::emitted_tokens(fixed, block);
      chooser.restart(verifier_site(o.seed, q_verifier, key));
      q_total += drafts::run_sampled_verifier(q_verifier, tree, chooser, pair.vocab()).size();
    }
    out.tokens.insert(out.tokens.end(), advance.begin(), advance.end());
    tev_sum += tev_total;
    tev_means.push_back(static_cast<double>(tev_total) / static_cast<double>(draws));
    q_means.push_back(static_cast<double>(q_total) / static_cast<double>(draws));
    differences.push_back(q_means.back() - tev_means.back());
    row_deviation = std::max(row_deviation, pair.row_deviation());
    ++out.rounds;
  }
  out.tev_mean = mean_of(tev_means);
  out.tev_se = standard_error(tev_means);
  out.q_mean = mean_of(q_means);
  out.q_se = standard_error(q_means);
  out.difference_mean = mean_of(differences);
  out.difference_se = standard_error(differences);
  out.ceiling_mean = out.rounds ? ceiling.value() / out.rounds : 0.0;
  std::vector<stats::DrawnLaw> drawn;
  for (const LengthLaw& l : laws) drawn.push_back({l.lengths, l.mass, static_cast<double>(draws)});
  out.tev_p =
      out.rounds ? stats::sum_two_sided_chernoff_p(static_cast<double>(tev_sum), drawn) : 1.0;
  return out;
}

// The cases of one drafter: TEV and the q-based verifier on each policy, and two q-based mutants
// that act at the root (where the first word is decided).
std::vector<drafts::SampledCase> first_word_cases(const LiveSampledOptions& o, std::int32_t depth) {
  using Id = drafts::SampledVerifierId;
  const drafts::Drafting chain{drafts::DraftPolicy::chain, 1, depth};
  const drafts::Drafting iid{drafts::DraftPolicy::iid_children, o.draft_width, depth};
  const drafts::Drafting distinct{drafts::DraftPolicy::without_replacement, o.draft_width, depth};
  std::vector<drafts::SampledCase> cases = {
      {Id::tree_exit, chain},    {Id::speculative_sampling, chain},
      {Id::tree_exit, iid},      {Id::rejection_with_replacement, iid},
      {Id::tree_exit, distinct}, {Id::rejection_without_replacement, distinct}};
  if (o.mutants) {
    cases.push_back({Id::mutant_bonus_from_target_row, iid});
    cases.push_back({Id::mutant_draft_uniform_reused, chain});
  }
  return cases;
}

// The comparison streams: the q-based verifier of each policy against TEV.
std::vector<drafts::SampledCase> rounds_cases(const LiveSampledOptions& o) {
  std::vector<drafts::SampledCase> out;
  for (const drafts::SampledCase& c : first_word_cases(o, o.draft_depth)) {
    if (drafts::sampled_verifier_info(c.verifier).kind == drafts::SampledKind::q_based)
      out.push_back(c);
  }
  return out;
}

std::uint32_t stream_of(std::size_t drafter, drafts::DraftPolicy policy) {
  return static_cast<std::uint32_t>(drafter * 8 + static_cast<std::size_t>(policy));
}

}  // namespace

std::optional<std::vector<double>> first_word_law(const LiveLanguagePair& pair,
                                                  const drafts::SampledCase& c) {
  if (drafts::sampled_verifier_info(c.verifier).kind == drafts::SampledKind::target_only)
    return std::nullopt;
  const auto vocab = static_cast<std::size_t>(pair.vocab());
  const drafts::Drafting root_only{c.drafting.policy, c.drafting.width,
                                   1};  // the root's drafts have the same law at any depth
  std::vector<double> law(vocab, 0.0);
  enumerate_outcomes(
      [&](EnumeratingChooser& chooser) {
        drafts::SharedNodeChooser<EnumeratingChooser> choosers{chooser};
        drafts::LazyDrafts drafts(pair, root_only, choosers);
        FirstWordChooser verify{chooser, vocab, {}};
        FirstWordRun run{drafts::run_sampled_verifier(c.verifier, drafts, verify, pair.vocab()),
                         {}};
        run.first_draw = std::move(verify.first_draw);
        return run;
      },
      [&](const FirstWordRun& run, const Branch& branch) {
        if (run.emitted.size() > 1) {  // a root draft was accepted: it is the first word
          law[static_cast<std::size_t>(run.emitted.front())] += branch.probability;
          return;
        }
        const double total = compensated_total(run.first_draw);
        for (std::size_t a = 0; a < vocab; ++a)
          law[a] += branch.probability * run.first_draw[a] / total;
      },
      EnumeratingChooser(TokenDraws::per_token));
  return law;
}

int LiveSampledResult::exit_code() const {
  return passed              ? 0
         : only_inconclusive ? judging::verdict_exit_code(judging::Verdict::inconclusive)
                             : 1;
}

LiveSampledResult run_live_sampled(const models::ModelSet& models, const LiveSampledOptions& o,
                                   std::ostream& progress) {
  const auto start = std::chrono::steady_clock::now();
  if (o.first_word_samples < 1 || o.rounds < 1 || o.draws_per_round < 1)
    throw std::invalid_argument(
        "live --drafts sampled: samples, rounds and draws must be positive");
  LiveSampledResult result;
  result.target = models.target->name();
  result.description = models.description;
  result.context =
      sample_contexts(*models.target, 1, o.context_length, o.seed, models.end_token).front();
  result.context_text = models::render_tokens(*models.target, result.context);
  const judging::VerdictPolicy policy{.alpha = o.alpha, .max_detectable_tv = o.max_detectable_tv};
  validate(policy);
  const std::vector<drafts::SampledCase> cases = first_word_cases(o, o.first_word_depth);
  result.chi_square_level = policy.chi_square_level(cases.size() * models.drafters.size());
  result.exact_tolerance = policy.exact_tolerance;
  const auto vocab = models.target->vocab();
  const auto groups = stats::node_groups(1, vocab);
  const auto n = static_cast<double>(o.first_word_samples);

  // 1. The first word, a fresh tree per sample.
  for (std::size_t d = 0; d < models.drafters.size(); ++d) {
    const models::NamedModel& drafter = models.drafters[d];
    result.drafters.push_back(drafter.name);
    progress << "first word: rows after the context for " << drafter.name << " ..." << std::flush;
    const LiveLanguagePair pair(*models.target, *drafter.model, result.context, o.top_k,
                                o.first_word_depth, o.temperature);
    pair.prefetch();
    progress << " done\n";
    const std::span<const double> target_row = pair.p({});
    result.root_tv.push_back(total_variation(target_row, pair.q({})));
    const std::optional<double> detectable = stats::worst_case_detectable_tv(
        target_row, groups, n, result.chi_square_level, policy.required_power);
    for (const drafts::SampledCase& c : cases) {
      progress << "  " << drafter.name << ": " << c.label() << " ..." << std::flush;
      const auto case_start = std::chrono::steady_clock::now();
      FirstWordCase f;
      f.drafter = drafter.name;
      f.c = c;
      f.kind = drafts::sampled_verifier_info(c.verifier).kind;
      f.counts = sample_first_words(pair, c, stream_of(d, c.drafting.policy), o);
      f.evidence.samples = o.first_word_samples;
      const stats::TestLevel level{result.chi_square_level, policy.exactness_alpha(), o.seed,
                                   static_cast<std::uint32_t>(result.first_word.size())};
      f.evidence.chi_square = stats::identity_test(f.counts, target_row, groups, level);
      f.evidence.detectable_tv = detectable;
      if (const auto law = first_word_law(pair, c)) {
        f.exact_tv = total_variation(*law, target_row);
        f.predicted_power =
            stats::identity_test_power(target_row, *law, groups, n, result.chi_square_level);
      }
      progress
          << " "
          << std::chrono::duration<double>(std::chrono::steady_clock::now() - case_start).count()
          << " s\n";
      result.first_word.push_back(std::move(f));
    }
    result.row_deviation = std::max(result.row_deviation, pair.row_deviation());
  }
  std::vector<judging::TreeEvidence> evidence;
  for (const FirstWordCase& f : result.first_word) evidence.push_back(f.evidence);
  const judging::SubjectVerdict decision = judging::decide(evidence, policy);
  bool unexpected_beyond_power = false;
  for (std::size_t i = 0; i < result.first_word.size(); ++i) {
    FirstWordCase& f = result.first_word[i];
    f.verdict = decision.cases[i].verdict;
    f.caught_by_sampling = decision.cases[i].sampled_not_exact;
    const bool exact_by_law = !f.exact_tv || *f.exact_tv <= policy.exact_tolerance;
    if (f.kind == drafts::SampledKind::mutant) {
      f.as_expected =
          !exact_by_law && (f.caught_by_sampling || f.predicted_power < policy.required_power);
    } else {
      f.as_expected = f.verdict == judging::Verdict::exact_saturated && exact_by_law;
      result.first_word_verdict = std::min(result.first_word_verdict, f.verdict);
    }
    unexpected_beyond_power |=
        !f.as_expected && !(f.kind != drafts::SampledKind::mutant &&
                            f.verdict == judging::Verdict::inconclusive && exact_by_law);
  }

  // 2. Tokens per round, TEV and each q-based verifier on the same trees; drafter × policy streams in parallel.
  const std::vector<drafts::SampledCase> comparisons = rounds_cases(o);
  result.rounds.resize(models.drafters.size() * comparisons.size());
  std::vector<double> deviations(result.rounds.size(), 0.0);
  progress << "rounds: " << result.rounds.size() << " drafter x policy streams of " << o.rounds
           << " rounds ...\n"
           << std::flush;
  oneapi::tbb::task_arena arena(o.threads);
  arena.execute([&] {
    oneapi::tbb::parallel_for(std::size_t{0}, result.rounds.size(), [&](std::size_t i) {
      const std::size_t d = i / comparisons.size();
      const drafts::SampledCase& c = comparisons[i % comparisons.size()];
      result.rounds[i] =
          run_rounds(*models.target, *models.drafters[d].model, models.drafters[d].name, c.drafting,
                     c.verifier, stream_of(d, c.drafting.policy), result.context, o, deviations[i]);
    });
  });
  std::vector<double> tev_p;
  for (const RoundsComparison& r : result.rounds) tev_p.push_back(r.tev_p);
  const std::vector<double> adjusted = stats::holm_adjust(tev_p);
  bool rounds_hold = true;
  for (std::size_t i = 0; i < result.rounds.size(); ++i) {
    result.rounds[i].tev_holds = adjusted[i] >= policy.saturation_alpha();
    rounds_hold = rounds_hold && result.rounds[i].tev_holds;
    result.row_deviation = std::max(result.row_deviation, deviations[i]);
    const std::span<const Token> all = result.rounds[i].tokens;
    result.rounds[i].prompt_text =
        models::render_tokens(*models.target, all.first(result.context.size()));
    result.rounds[i].continuation_text =
        models::render_tokens(*models.target, all.subspan(result.context.size()));
  }
  const bool first_word_ok = std::all_of(result.first_word.begin(), result.first_word.end(),
                                         [](const FirstWordCase& f) { return f.as_expected; });
  result.passed = first_word_ok && rounds_hold;
  result.only_inconclusive = !result.passed && rounds_hold && !unexpected_beyond_power;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

LiveSampledResult run_live_sampled(const models::ModelRequest& request, const LiveSampledOptions& o,
                                   std::ostream& progress) {
  const auto start = std::chrono::steady_clock::now();
  progress << "loading models ...\n";
  const models::ModelSet models = models::load_models(request);
  LiveSampledResult result = run_live_sampled(models, o, progress);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace tev::live
