#include "conformance/in_process.hpp"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <deque>
#include <optional>
#include <span>
#include <sstream>
#include <stdexcept>

#include "conformance/batch_case.hpp"
#include "core/choosers.hpp"
#include "core/format.hpp"
#include "core/interrupt.hpp"

namespace tev::conformance {

std::uint64_t SampleRandomness::bits() {
  // The top 32 bits of each uniform in [0, 1) are uniform over 32-bit values.
  const auto high = static_cast<std::uint64_t>(uniform() * 4294967296.0);
  const auto low = static_cast<std::uint64_t>(uniform() * 4294967296.0);
  return high << 32 | low;
}

namespace {

int arena_threads(int threads) {
  return threads > 0 ? threads : oneapi::tbb::task_arena::automatic;
}

// Every case's judges. fill(c, index, where, add_range) hands case `index`'s samples to add_range(first,
// count, add_one), which adds samples first .. first + count − 1 in parallel, each thread to its
// own judge of the case with add_one(judge, s) (sample s keyed by s alone, so the counts do not
// depend on the threads); then the judges merge. `where` names the case in messages.
template <class Judge, class CaseT, class Fill>
std::vector<Judge> judge_cases(const std::vector<CaseT>& cases, std::uint32_t seed, int threads,
                               Fill&& fill) {
  std::vector<Judge> judges;
  oneapi::tbb::task_arena arena(arena_threads(threads));
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const CaseT& c = cases[k];
    const auto index = static_cast<std::uint32_t>(k);
    oneapi::tbb::enumerable_thread_specific<Judge> per_thread(
        [&] { return Judge(c, seed, index); });
    const auto add_range = [&](std::uint64_t first, std::uint64_t count, auto&& add_one) {
      arena.execute([&] {
        oneapi::tbb::parallel_for(
            oneapi::tbb::blocked_range<std::uint64_t>(first, first + count, 256),
            [&](const auto& range) {
              poll_interrupt();  // on the caller's thread: completing a large batch takes seconds
              Judge& judge = per_thread.local();
              for (std::uint64_t s = range.begin(); s != range.end(); ++s) add_one(judge, s);
            });
      });
    };
    fill(c, index, "in-process verifier, case " + c.id, add_range);
    judges.emplace_back(c, seed, index);
    for (const Judge& part : per_thread) judges.back().merge(part);
  }
  return judges;
}

// Every case's samples drawn one at a time: add(judge, case, site, where) draws the sample of
// `site` (site.tree: the case's index) and adds it.
template <class Judge, class CaseT, class Add>
std::vector<Judge> sample_cases(const std::vector<CaseT>& cases, std::uint32_t seed, int threads,
                                Add&& add) {
  return judge_cases<Judge>(
      cases, seed, threads,
      [&](const CaseT& c, std::uint32_t index, const std::string& where, const auto& add_range) {
        add_range(0, c.samples, [&](Judge& judge, std::uint64_t s) {
          add(judge, c, DrawSite{seed, Stream::verifier, index, s}, where);
        });
      });
}

// The same with a batched verifier: fetch(case, first, count, first_site) answers one batch of a
// case's samples (batches in order, one call each), whose blocks are then added by
// add(judge, block, sample, where), each keyed by its own sample as sample_cases keys them.
template <class Judge, class CaseT, class Fetch, class Add>
std::vector<Judge> sample_cases_batched(const std::vector<CaseT>& cases, std::uint32_t seed,
                                        int threads, std::uint64_t batch, Fetch&& fetch,
                                        Add&& add) {
  return judge_cases<Judge>(
      cases, seed, threads,
      [&](const CaseT& c, std::uint32_t index, const std::string& where, const auto& add_range) {
        const std::uint64_t step = batch > 0 ? batch : std::max<std::uint64_t>(c.samples, 1);
        for (std::uint64_t first = 0; first < c.samples; first += step) {
          const std::uint64_t count = std::min(step, c.samples - first);
          const std::vector<tevsuite::Block> blocks =
              fetch(c, first, count, DrawSite{seed, Stream::verifier, index, first});
          if (blocks.size() != count) {
            throw std::invalid_argument(where + ", samples " + std::to_string(first) + ".." +
                                        std::to_string(first + count - 1) + ": " +
                                        std::to_string(blocks.size()) + " blocks for a batch of " +
                                        std::to_string(count));
          }
          add_range(first, count, [&](Judge& judge, std::uint64_t s) {
            add(judge, blocks[s - first], s, where);
          });
        }
      });
}

// The χ² bins farthest from the reference law, each named by bin_name (a cell of its own or a
// pooled tail) and observed against expected.
template <class BinName>
void append_deviations(std::ostringstream& out, std::span<const stats::BinDeviation> deviations,
                       BinName&& bin_name) {
  if (deviations.empty()) return;
  out << "  largest cell deviations, observed vs expected ((o - e)/sqrt(e)):\n";
  for (const stats::BinDeviation& d : deviations) {
    out << "    " << bin_name(d) << ": " << d.observed << " vs " << fixed(d.expected, 1) << " ("
        << (d.expected > 0.0 ? fixed(d.residual, 1) : std::string("impossible")) << ")\n";
  }
}

// A χ² p for people: one that underflowed prints as the bound it is, not as 0 (a case with
// impossible events has p = 0 by definition, and says so on its own line).
std::string p_text(double p, std::uint64_t impossible) {
  return p > 0.0 || impossible > 0 ? num(p) : std::string("below the smallest double (underflow)");
}

// The first failing case spelled out: what it is, its tests at the verdict's level, and the χ²
// bins farthest from the canonical law.
void append_case(std::ostringstream& out, const CaseResult& r) {
  const judging::TreeEvidence& e = r.evidence;
  out << "first failing case: " << r.id << " (" << r.label
      << "): " << verdict_text(r.decision.verdict) << "\n";
  out << "  samples " << r.samples << ", impossible " << r.impossible
      << (r.first_impossible.empty() ? "" : " (first: " + r.first_impossible + ")") << "\n";
  out << "  chi-square p " << p_text(e.chi_square.p_value, r.impossible)
      << "; Holm-adjusted p: exactness " << p_text(r.decision.exactness_p_holm, r.impossible)
      << ", saturation " << num(r.decision.saturation_p_holm) << "\n";
  out << "  E[L] " << fixed(e.mean_length, 4) << ", ceiling 1 + C_p " << fixed(e.ceiling, 4)
      << "\n";
  out << "  power: detects TV " << (e.detectable_tv ? num(*e.detectable_tv) : std::string("(none)"))
      << " with 99% power at its level";
  if (e.enumerated)
    out << "; exact TV of the verifier's law " << num(e.exact_tv) << " (enumeration)";
  if (!r.not_enumerated.empty()) out << "; " << r.not_enumerated;
  out << "\n";
  if (!e.iid_tests.empty())
    out << "  tests of independence: " << stats::iid_tests_text(e.iid_tests) << "\n";
  // completed_counts is (N, V): cell v·V + y is exit node v, next token y.
  const std::size_t vocab = e.prefix.empty() ? 1 : e.completed_counts.size() / e.prefix.size();
  append_deviations(out, e.largest_deviations, [&](const stats::BinDeviation& d) {
    // A tail pools the cells of one exit node, or (group −1) the leftover tails of several.
    if (d.group < 0) return "global tail of " + std::to_string(d.cells) + " cells";
    const std::string node = "exit node " + std::to_string(d.group);
    if (d.cell >= 0)
      return node + ", next token " + std::to_string(static_cast<std::size_t>(d.cell) % vocab);
    return node + ", tail of " + std::to_string(d.cells) + " cells";
  });
}

// A block's accepted tokens as the JSON numbers the judge reads, in this thread's buffer (valid
// until the thread's next call; no allocation per sample).
std::span<const std::int64_t> json_path(const tevsuite::Block& block) {
  thread_local std::vector<std::int64_t> path;
  path.assign(block.accepted.begin(), block.accepted.end());
  return path;
}

// A model case's cell is its H completed tokens as a base-V number, the first token highest.
std::string sequence_name(std::int64_t cell, std::int32_t vocab, std::int32_t horizon) {
  std::vector<std::int64_t> tokens(static_cast<std::size_t>(horizon));
  for (std::int32_t k = horizon - 1; k >= 0; --k, cell /= vocab)
    tokens[static_cast<std::size_t>(k)] = cell % vocab;
  std::string name = "tokens";
  for (const std::int64_t t : tokens) name += " " + std::to_string(t);
  return name;
}

static_assert(tevsuite::kDefaultSeed == kDefaultSeed);
static_assert(tevsuite::kGreedyTemperature == kGreedyTemperature);
static_assert(tevsuite::kMaxRequests == kMaxBatchRequests);
static_assert(tevsuite::TreeCheckOptions{}.cases == EmitConfig{}.cases &&
              tevsuite::TreeCheckOptions{}.samples == EmitConfig{}.samples &&
              tevsuite::TreeCheckOptions{}.large_vocab == EmitConfig{}.large_vocab &&
              tevsuite::TreeCheckOptions{}.large_vocab_factor ==
                  EmitConfig{}.large_vocab_sample_factor);
static_assert(tevsuite::ModelCheckOptions{}.cases == ModelEmitConfig{}.cases &&
              tevsuite::ModelCheckOptions{}.samples == ModelEmitConfig{}.samples);
static_assert(tevsuite::BatchCheckOptions{}.batches == kDefaultBatches);
static_assert(static_cast<int>(tevsuite::DraftPolicy::top_k) ==
                  static_cast<int>(drafts::DraftPolicy::top_k) &&
              static_cast<int>(tevsuite::DraftPolicy::independent_chains) ==
                  static_cast<int>(drafts::DraftPolicy::independent_chains));
static_assert(static_cast<int>(tevsuite::FilterOrder::top_p_full_and_top_k) ==
                  static_cast<int>(FilterOrder::top_p_full_and_top_k) &&
              static_cast<int>(tevsuite::FilterOrder::min_p_last) ==
                  static_cast<int>(FilterOrder::min_p_last));

std::optional<tevsuite::DraftingHint> public_hint(const std::optional<drafts::Drafting>& d) {
  if (!d) return std::nullopt;
  return tevsuite::DraftingHint{static_cast<tevsuite::DraftPolicy>(d->policy), d->width, d->depth};
}

// Refuses an option outside its range (check_types.hpp's), naming it; NaN is outside every range.
template <class T>
void check_range(const char* name, T value, T low, T high) {
  if (value >= low && value <= high) return;
  std::ostringstream message;
  message << name << " must lie in [" << low << ", " << high << "], not " << value;
  throw std::invalid_argument(message.str());
}

// The ranges both kinds of case options share.
template <class Options>
void check_case_options(const Options& o) {
  check_range<std::int32_t>("cases", o.cases, 1, tevsuite::kMaxCases);
  check_range<std::uint64_t>("samples", o.samples, 1, tevsuite::kMaxSamples);
  check_range<double>("alpha", o.alpha, tevsuite::kMinAlpha, tevsuite::kMaxAlpha);
}

judging::VerdictPolicy policy(double alpha, std::uint32_t seed) {
  return judging::VerdictPolicy{.alpha = alpha, .seed = seed};
}

// The requests verified together (`together`: one batch's, in order) or each alone that an engine
// offers, each restated in its sampler's order; all, as stated, where engine_order is unset.
std::vector<Case> offered(std::vector<Case> cases, const tevsuite::EngineOrder* engine_order,
                          bool together) {
  if (engine_order == nullptr || !*engine_order) return cases;
  std::vector<tevsuite::SamplingParams> params;
  for (const Case& c : cases) params.push_back(public_params(c.sampling));
  std::vector<Case> kept;
  for (std::size_t k = 0; k < cases.size(); ++k) {
    if (cases[k].format_version != kEngineFormatVersion) {
      kept.push_back(std::move(cases[k]));
      continue;
    }
    const auto batch = together ? std::span<const tevsuite::SamplingParams>(params)
                                : std::span<const tevsuite::SamplingParams>(params).subspan(k, 1);
    const std::optional<tevsuite::FilterOrder> order = (*engine_order)(params[k], batch);
    if (!order) continue;
    if (*order != params[k].order) restate_order(cases[k], static_cast<FilterOrder>(*order));
    kept.push_back(std::move(cases[k]));
  }
  return kept;
}

std::vector<Case> checked_tree_cases(const tevsuite::TreeCheckOptions& options) {
  check_case_options(options);
  std::vector<Case> cases =
      offered(tree_case_values(emit_config(options)), options.engine_order, false);
  if (cases.empty()) throw std::invalid_argument("the engine offers none of the cases");
  return cases;
}

std::vector<ModelCase> checked_model_cases(const tevsuite::ModelCheckOptions& options) {
  check_case_options(options);
  return model_case_values(ModelEmitConfig{options.cases, options.samples, options.engine_inputs});
}

// Each case as the verifier sees it, built once.
std::vector<tevsuite::TreeCase> views_of(const std::vector<Case>& cases) {
  std::vector<tevsuite::TreeCase> views;
  for (const Case& c : cases) views.push_back(view_of(c));
  return views;
}

// A model case's rows (tevsuite::ModelRows): its pair's p and q, or an engine-shaped case's logits.
class CaseRows final : public tevsuite::ModelRows {
 public:
  explicit CaseRows(const ModelCase& c) : c_(c) {}
  std::span<const double> p(std::span<const std::int32_t> prefix) const override {
    if (engine_shaped())
      throw std::logic_error("an engine-shaped case gives p_logits and target_sampling, not p");
    return c_.pair.p(prefix);
  }
  std::span<const double> q(std::span<const std::int32_t> prefix) const override {
    if (engine_shaped())
      throw std::logic_error("an engine-shaped case gives q_logits and drafter_sampling, not q");
    return c_.pair.q(prefix);
  }
  std::span<const double> p_logits(std::span<const std::int32_t> prefix) const override {
    if (!engine_shaped()) throw std::logic_error("not an engine-shaped case: read p");
    return prefix_row(c_.logits.p, prefix);
  }
  std::span<const double> q_logits(std::span<const std::int32_t> prefix) const override {
    if (!engine_shaped()) throw std::logic_error("not an engine-shaped case: read q");
    return prefix_row(c_.logits.q, prefix);
  }

 private:
  bool engine_shaped() const { return c_.format_version == kEngineModelFormatVersion; }
  std::span<const double> prefix_row(const std::vector<double>& rows,
                                     std::span<const std::int32_t> prefix) const {
    const std::int32_t vocab = c_.pair.vocab();
    const std::size_t index =
        drafts::LanguagePair::prefix_count(vocab, static_cast<std::int32_t>(prefix.size())) +
        drafts::sequence_cell(prefix, vocab);
    return std::span<const double>(rows).subspan(index * static_cast<std::size_t>(vocab),
                                                 static_cast<std::size_t>(vocab));
  }

  const ModelCase& c_;
};

// The model cases as the verifier sees them, built once: the views point into `rows`.
struct ModelViews {
  std::deque<CaseRows> rows;
  std::vector<tevsuite::ModelCase> views;

  explicit ModelViews(const std::vector<ModelCase>& cases) {
    for (const ModelCase& c : cases) {
      const CaseRows& r = rows.emplace_back(c);
      tevsuite::ModelCase view{c.id, c.label, c.pair.vocab(), c.depth, public_hint(c.drafting), &r,
                               {},   {}};
      if (c.format_version == kEngineModelFormatVersion) {
        view.target_sampling = public_params(c.target_sampling);
        view.drafter_sampling = public_params(c.drafter_sampling);
      }
      views.push_back(view);
    }
  }
};

// tevsuite's chooser (the Philox sampler or the enumerator) behind the public Draws.
template <class Chooser>
class ChooserDraws final : public tevsuite::Draws {
 public:
  ChooserDraws(Chooser& chooser, const DraftTree& tree) : chooser_(chooser), tree_(tree) {}
  std::size_t categorical(std::span<const double> weights) override {
    return chooser_.categorical(weights);
  }
  std::int32_t next_token(std::int32_t node, std::span<const double> weights) override {
    return chooser_.next_token(tree_, node, weights);
  }

 private:
  Chooser& chooser_;
  const DraftTree& tree_;
};

// The block as the enumeration counts it: its (exit node, bonus) cell (a bonus of zero target
// probability included: the canonical law has 0 there), none when its path leaves the tree or its
// bonus is outside the vocabulary.
CountedBlock block_cell(const Case& c, const tevsuite::Block& block) {
  return {resolve_block(c, json_path(block), block.bonus).cell,
          static_cast<double>(block.accepted.size()) + 1.0};
}

ExactOutcome enumerate_view(const tevsuite::DrawingVerifier& verifier, const Case& c,
                            const tevsuite::TreeCase& view) {
  return enumerate_verifier(c.tree, c.rows, [&](EnumeratingChooser& chooser) {
    ChooserDraws draws(chooser, c.tree);
    return block_cell(c, verifier.verify(view, draws));
  });
}

// A batch's rows as blocks, each checked: the batch's size, tokens in [0, V), −1 padding only
// after a row's last accepted token. `rows` names the batch's rows in messages, `row(i)` row i.
template <class RowName>
std::vector<tevsuite::Block> checked_blocks(const tevsuite::BlockBatch& batch, std::int32_t vocab,
                                            std::uint64_t count, const std::string& rows,
                                            RowName&& row) {
  const auto where = [&](std::uint64_t i) { return row(i) + ": "; };
  const auto width = static_cast<std::size_t>(std::max(batch.width, 0));
  if (batch.bonus.size() != count || batch.accepted.size() != count * width) {
    throw std::invalid_argument(
        rows + ": a batch of " + std::to_string(count) + " needs " + std::to_string(count) +
        " bonus tokens and " + std::to_string(count) + " x width accepted entries, got " +
        std::to_string(batch.bonus.size()) + " and " + std::to_string(batch.accepted.size()));
  }
  const auto in_vocab = [&](std::int32_t t) { return t >= 0 && t < vocab; };
  std::vector<tevsuite::Block> blocks(count);
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::int32_t* tokens = batch.accepted.data() + i * width;
    std::size_t length = 0;
    while (length < width && tokens[length] != -1) {
      if (!in_vocab(tokens[length]))
        throw std::invalid_argument(where(i) + "accepted token " + std::to_string(tokens[length]) +
                                    " outside [0, V)");
      ++length;
    }
    for (std::size_t j = length; j < width; ++j) {
      if (tokens[j] != -1)
        throw std::invalid_argument(where(i) + "accepted token " + std::to_string(tokens[j]) +
                                    " after the -1 padding");
    }
    if (!in_vocab(batch.bonus[i]))
      throw std::invalid_argument(where(i) + "bonus token " + std::to_string(batch.bonus[i]) +
                                  " outside [0, V)");
    blocks[i] = {std::vector<std::int32_t>(tokens, tokens + length), batch.bonus[i]};
  }
  return blocks;
}

// A batched verifier's answer for samples first .. first + count − 1 of a case, checked: its seed
// is 64 bits of the first sample's randomness.
template <class Verifier, class View>
std::vector<tevsuite::Block> fetch_batch(const Verifier& verifier, const View& view,
                                         std::uint64_t first, std::uint64_t count,
                                         const DrawSite& site) {
  const std::string id(view.id);
  return checked_blocks(
      verifier(view, first, count, SampleRandomness(site).bits()), view.vocab, count,
      "case " + id + ", samples " + std::to_string(first) + ".." +
          std::to_string(first + count - 1),
      [&](std::uint64_t i) { return "case " + id + ", sample " + std::to_string(first + i); });
}

// The cases' judges into a report, with each case's exact law where `verifier` is given (else
// `no_enumeration` says why there is none).
TreeReport judge_tree_cases(const std::vector<Case>& cases,
                            const std::vector<tevsuite::TreeCase>& views,
                            const std::vector<CaseJudge>& judges,
                            const tevsuite::DrawingVerifier* verifier,
                            const tevsuite::TreeCheckOptions& options,
                            const std::string& no_enumeration) {
  std::vector<std::optional<ExactOutcome>> exact(cases.size());
  std::vector<std::string> not_enumerated(cases.size());
  if (verifier != nullptr) {
    for (std::size_t k = 0; k < cases.size(); ++k) {
      try {
        exact[k] = enumerate_view(*verifier, cases[k], views[k]);
      } catch (const EnumerationBudgetExceeded& e) {
        not_enumerated[k] = e.what();
      }
    }
  }
  TreeReport report =
      judge(judges, policy(options.alpha, options.seed),
            verifier ? std::span(exact) : std::span<const std::optional<ExactOutcome>>{});
  for (std::size_t k = 0; k < cases.size(); ++k)
    report.cases[k].not_enumerated = verifier ? not_enumerated[k] : no_enumeration;
  return report;
}

void add_tree_block(CaseJudge& judge, const tevsuite::Block& b, std::uint64_t sample,
                    const std::string& where) {
  judge.add_sample(json_path(b), b.bonus, sample, where);
}

void add_model_block(ModelCaseJudge& judge, const tevsuite::Block& b, std::uint64_t sample,
                     const std::string& where) {
  judge.add_sample(b.accepted, b.bonus, sample, where);
}

// Every case sampled, one sample at a time, by sample(view, case, site).
template <class Sample>
TreeReport run_tree_check(const Sample& sample, const tevsuite::DrawingVerifier* verifier,
                          const tevsuite::TreeCheckOptions& options,
                          const std::string& no_enumeration) {
  const std::vector<Case> cases = checked_tree_cases(options);
  const std::vector<tevsuite::TreeCase> views = views_of(cases);
  const auto judges = sample_cases<CaseJudge>(
      cases, options.seed, options.threads,
      [&](CaseJudge& judge, const Case& c, const DrawSite& site, const std::string& where) {
        add_tree_block(judge, sample(views[site.tree], c, site), site.sample, where);
      });
  return judge_tree_cases(cases, views, judges, verifier, options, no_enumeration);
}

}  // namespace

SamplingParams internal_params(const tevsuite::SamplingParams& p) {
  return {p.temperature, p.top_k, p.top_p, p.min_p, static_cast<FilterOrder>(p.order)};
}

tevsuite::SamplingParams public_params(const SamplingParams& p) {
  return {p.temperature, p.top_k, p.top_p, p.min_p, static_cast<tevsuite::FilterOrder>(p.order)};
}

EmitConfig emit_config(const tevsuite::TreeCheckOptions& options) {
  EmitConfig config;
  config.cases = options.cases;
  config.samples = options.samples;
  config.large_vocab = options.large_vocab;
  config.large_vocab_sample_factor = options.large_vocab_factor;
  config.engine_inputs = options.engine_inputs;
  return config;
}

std::vector<Case> tree_cases(const tevsuite::TreeCheckOptions& options) {
  return checked_tree_cases(options);
}

tevsuite::TreeCase view_of(const Case& c) {
  if (c.format_version == kEngineFormatVersion)
    return {c.id,         c.label, c.tree.vocab, c.tree.parent,
            c.tree.token, {},      c.logits,     public_params(c.sampling)};
  return {c.id, c.label, c.tree.vocab, c.tree.parent, c.tree.token, c.rows.data(), {}, {}};
}

ExactOutcome enumerate_drawing(const tevsuite::DrawingVerifier& verifier, const Case& c) {
  return enumerate_view(verifier, c, view_of(c));
}

TreeReport check_tree_verifier(const tevsuite::TreeVerifier& verifier,
                               const tevsuite::TreeCheckOptions& options) {
  return run_tree_check(
      [&](const tevsuite::TreeCase& view, const Case&, const DrawSite& site) {
        SampleRandomness randomness(site);
        return verifier(view, randomness);
      },
      nullptr, options, "a seeded verifier: no enumeration");
}

TreeReport check_tree_verifier(const tevsuite::DrawingVerifier& verifier,
                               const tevsuite::TreeCheckOptions& options) {
  return run_tree_check(
      [&](const tevsuite::TreeCase& view, const Case& c, const DrawSite& site) {
        PhiloxChooser chooser(site);
        ChooserDraws draws(chooser, c.tree);
        return verifier.verify(view, draws);
      },
      &verifier, options, "");
}

ModelReport check_model_verifier(const tevsuite::ModelVerifier& verifier,
                                 const tevsuite::ModelCheckOptions& options) {
  const std::vector<ModelCase> cases = checked_model_cases(options);
  const ModelViews views(cases);
  const auto judges = sample_cases<ModelCaseJudge>(
      cases, options.seed, options.threads,
      [&](ModelCaseJudge& judge, const ModelCase&, const DrawSite& site, const std::string& where) {
        SampleRandomness randomness(site);
        add_model_block(judge, verifier(views.views[site.tree], randomness), site.sample, where);
      });
  return judge_models(judges, policy(options.alpha, options.seed));
}

TreeReport check_tree_verifier_batched(const tevsuite::TreeBatchVerifier& verifier,
                                       const tevsuite::TreeCheckOptions& options,
                                       std::uint64_t batch) {
  const std::vector<Case> cases = checked_tree_cases(options);
  const std::vector<tevsuite::TreeCase> views = views_of(cases);
  const auto judges = sample_cases_batched<CaseJudge>(
      cases, options.seed, options.threads, batch,
      [&](const Case&, std::uint64_t first, std::uint64_t count, const DrawSite& site) {
        return fetch_batch(verifier, views[site.tree], first, count, site);
      },
      add_tree_block);
  return judge_tree_cases(cases, views, judges, nullptr, options,
                          "a batched verifier: no enumeration");
}

ModelReport check_model_verifier_batched(const tevsuite::ModelBatchVerifier& verifier,
                                         const tevsuite::ModelCheckOptions& options,
                                         std::uint64_t batch) {
  const std::vector<ModelCase> cases = checked_model_cases(options);
  const ModelViews views(cases);
  const auto judges = sample_cases_batched<ModelCaseJudge>(
      cases, options.seed, options.threads, batch,
      [&](const ModelCase&, std::uint64_t first, std::uint64_t count, const DrawSite& site) {
        return fetch_batch(verifier, views.views[site.tree], first, count, site);
      },
      add_model_block);
  return judge_models(judges, policy(options.alpha, options.seed));
}

std::string describe(const TreeReport& report) {
  std::ostringstream out;
  out << "overall: " << verdict_text(report.overall) << " (" << report.cases.size()
      << " cases, alpha " << num(report.policy.alpha) << ": " << report.exactness_tests
      << " exactness and " << report.saturation_tests << " saturation tests, Holm)\n";
  for (const CaseResult& r : report.cases) {
    if (r.id != report.first_failing) continue;
    append_case(out, r);
  }
  return out.str();
}

std::string describe(const ModelReport& report) {
  std::ostringstream out;
  out << "overall: " << model_verdict_text(report.overall) << " (" << report.cases.size()
      << " model cases, alpha " << num(report.policy.alpha) << ", " << report.exactness_tests
      << " exactness tests, Holm)\n";
  for (const ModelCaseResult& r : report.cases) {
    if (r.id != report.first_failing) continue;
    const judging::TreeEvidence& e = r.evidence;
    out << "first failing case: " << r.id << " (" << r.label
        << "): " << model_verdict_text(r.decision.verdict) << "\n";
    out << "  samples " << e.samples << ", impossible " << r.impossible
        << (r.first_impossible.empty() ? "" : " (first: " + r.first_impossible + ")") << "\n";
    out << "  chi-square p " << p_text(e.chi_square.p_value, r.impossible) << ", Holm-adjusted p "
        << p_text(r.decision.exactness_p_holm, r.impossible) << "\n";
    out << "  power: detects TV "
        << (e.detectable_tv ? num(*e.detectable_tv) : std::string("(none)"))
        << " with 99% power at its level\n";
    if (!e.iid_tests.empty())
      out << "  tests of independence: " << stats::iid_tests_text(e.iid_tests) << "\n";
    append_deviations(out, e.largest_deviations, [&](const stats::BinDeviation& d) {
      return d.cell >= 0 ? sequence_name(d.cell, r.vocab, r.horizon)
                         : "tail of " + std::to_string(d.cells) + " sequences";
    });
  }
  return out.str();
}

BatchReport check_batch_verifier(const tevsuite::RequestBatchVerifier& verifier,
                                 const tevsuite::BatchCheckOptions& options) {
  check_range<std::int32_t>("batches", options.batches, 1, tevsuite::kMaxCases);
  check_range<std::int32_t>("requests", options.requests, 1, tevsuite::kMaxRequests);
  check_range<std::uint64_t>("rounds", options.rounds, 1, tevsuite::kMaxSamples);
  check_range<double>("alpha", options.alpha, tevsuite::kMinAlpha, tevsuite::kMaxAlpha);
  EmitConfig config;
  config.cases = options.batches;
  config.batch = options.requests;
  config.samples = options.rounds;
  config.engine_inputs = options.engine_inputs;
  std::vector<BatchCase> batches;
  for (BatchCase& b : batch_case_values(config)) {
    b.requests = offered(std::move(b.requests), options.engine_order, true);
    if (!b.requests.empty()) batches.push_back(std::move(b));
  }
  if (batches.empty()) throw std::invalid_argument("the engine offers none of the requests");
  std::vector<BatchJudge> judges;
  for (std::size_t i = 0; i < batches.size(); ++i) {
    const BatchCase& b = batches[i];
    judges.emplace_back(b, options.seed, static_cast<std::uint32_t>(i));
    std::vector<tevsuite::TreeCase> views;
    for (const Case& r : b.requests) views.push_back(view_of(r));
    std::vector<RequestBlock> round(b.requests.size());
    for (std::uint64_t s = 0; s < b.samples; ++s) {
      const std::string where = "batch " + b.id + ", round " + std::to_string(s);
      SampleRandomness randomness(
          DrawSite{options.seed, Stream::verifier, static_cast<std::uint32_t>(i), s});
      const std::vector<tevsuite::Block> blocks = checked_blocks(
          verifier(views, randomness), views.front().vocab, views.size(), where,
          [&](std::uint64_t k) { return where + ", request " + std::string(views[k].id); });
      for (std::size_t k = 0; k < blocks.size(); ++k)
        round[k] = {{blocks[k].accepted.begin(), blocks[k].accepted.end()}, blocks[k].bonus};
      judges.back().add_round(round, s, where);
    }
  }
  return judge_batches(judges, policy(options.alpha, options.seed));
}

std::string describe(const BatchReport& report) {
  std::ostringstream out;
  out << "overall: " << verdict_text(report.overall) << " (" << report.requests.size()
      << " requests and " << report.pairs.size() << " pairs of requests, alpha "
      << num(report.policy.alpha) << ": " << report.exactness_tests << " exactness and "
      << report.saturation_tests << " saturation tests, Holm)\n";
  for (const CaseResult& r : report.requests) {
    if (r.id == report.first_failing) append_case(out, r);
  }
  for (const PairResult& p : report.pairs) {
    if (p.id != report.first_failing) continue;
    out << "first failing pair: " << p.id << ": " << p.finding << "\n";
    out << "  rounds " << p.evidence.samples
        << "; joint law of the two requests' completed exit nodes against the product of their "
           "exit laws: "
        << "chi-square p " << num(p.evidence.chi_square.p_value) << ", Holm-adjusted p "
        << num(p.decision.exactness_p_holm) << "\n";
    out << "  power: detects TV "
        << (p.evidence.detectable_tv ? num(*p.evidence.detectable_tv) : std::string("(none)"))
        << " with 99% power at its level\n";
  }
  return out.str();
}

}  // namespace tev::conformance
