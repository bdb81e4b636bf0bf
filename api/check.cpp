// The public library (include/tevsuite/check.hpp) over the in-process check
// (conformance/in_process.hpp): the public views and draws wrapped around the internal ones, the
// internal reports copied into the public result types.
#include <tevsuite/check.hpp>

#include <algorithm>
#include <functional>
#include <sstream>
#include <stdexcept>

#include "conformance/batch_case.hpp"
#include "conformance/in_process.hpp"
#include "core/exit_law.hpp"
#include "core/interrupt.hpp"
#include "core/statistics.hpp"

namespace tevsuite {
namespace {

namespace tc = tev::conformance;

static_assert(kDefaultSeed == tev::kDefaultSeed);
static_assert(kGreedyTemperature == tev::kGreedyTemperature);
static_assert(TreeCheckOptions{}.cases == tc::EmitConfig{}.cases &&
              TreeCheckOptions{}.samples == tc::EmitConfig{}.samples &&
              TreeCheckOptions{}.large_vocab == tc::EmitConfig{}.large_vocab &&
              TreeCheckOptions{}.large_vocab_factor == tc::EmitConfig{}.large_vocab_sample_factor &&
              TreeCheckOptions{}.alpha == tc::CheckOptions{}.alpha);
static_assert(ModelCheckOptions{}.cases == tc::ModelEmitConfig{}.cases &&
              ModelCheckOptions{}.samples == tc::ModelEmitConfig{}.samples &&
              ModelCheckOptions{}.alpha == tc::ModelCheckOptions{}.alpha);

static_assert(static_cast<int>(DraftPolicy::top_k) ==
                  static_cast<int>(tev::drafts::DraftPolicy::top_k) &&
              static_cast<int>(DraftPolicy::independent_chains) ==
                  static_cast<int>(tev::drafts::DraftPolicy::independent_chains));

Verdict public_verdict(tev::judging::Verdict v) {
  return static_cast<Verdict>(tev::judging::verdict_exit_code(v));
}

static_assert(static_cast<int>(FilterOrder::top_p_full_and_top_k) ==
                  static_cast<int>(tev::FilterOrder::top_p_full_and_top_k) &&
              static_cast<int>(FilterOrder::min_p_last) ==
                  static_cast<int>(tev::FilterOrder::min_p_last));
SamplingParams public_params(const tev::SamplingParams& p) {
  return {p.temperature, p.top_k, p.top_p, p.min_p, static_cast<FilterOrder>(p.order)};
}
tev::SamplingParams internal_params(const SamplingParams& p) {
  return {p.temperature, p.top_k, p.top_p, p.min_p, static_cast<tev::FilterOrder>(p.order)};
}
std::optional<SamplingParams> public_params(const std::optional<tev::SamplingParams>& p) {
  return p ? std::optional<SamplingParams>(public_params(*p)) : std::nullopt;
}

TreeCase public_view(const tc::TreeCaseView& v) {
  return {v.id,     v.label, v.vocab,  v.parents,
          v.tokens, v.probs, v.logits, public_params(v.sampling)};
}

tc::TokenBlock emitted(Block b) { return {std::move(b.accepted), b.bonus}; }

class SampleRandomness final : public Randomness {
 public:
  explicit SampleRandomness(tc::Randomness& r) : r_(r) {}
  double uniform() override { return r_.uniform(); }
  std::uint64_t bits() override { return r_.bits(); }
  std::uint64_t sample() const override { return r_.sample(); }

 private:
  tc::Randomness& r_;
};

// tevsuite's chooser (a Philox sampler or the enumerator) behind the public Draws.
template <class Chooser>
class ChooserDraws final : public Draws {
 public:
  explicit ChooserDraws(tc::Draws<Chooser>& draws) : draws_(draws) {}
  std::size_t categorical(std::span<const double> weights) override {
    return draws_.categorical(weights);
  }
  std::int32_t next_token(std::int32_t node, std::span<const double> weights) override {
    return draws_.next_token(node, weights);
  }

 private:
  tc::Draws<Chooser>& draws_;
};

class PairRows final : public ModelRows {
 public:
  explicit PairRows(const tc::ModelCaseView& view) : view_(view) {}
  std::span<const double> p(std::span<const std::int32_t> prefix) const override {
    return view_.p(prefix);
  }
  std::span<const double> q(std::span<const std::int32_t> prefix) const override {
    return view_.q(prefix);
  }
  std::span<const double> p_logits(std::span<const std::int32_t> prefix) const override {
    return view_.p_logits(prefix);
  }
  std::span<const double> q_logits(std::span<const std::int32_t> prefix) const override {
    return view_.q_logits(prefix);
  }

 private:
  const tc::ModelCaseView& view_;
};

// The public drawing verifier as the in-process check's generic one (any chooser).
auto internal_drawing(const DrawingVerifier& verifier) {
  return tc::drawing([&verifier](const tc::TreeCaseView& view, auto& draws) {
    ChooserDraws draws_(draws);
    return emitted(verifier.verify(public_view(view), draws_));
  });
}

static_assert(kMaxRequests == tc::kMaxBatchRequests);

// Refuses an option outside its range (check.hpp's), naming it; NaN is outside every range.
template <class T>
void check_range(const char* name, T value, T low, T high) {
  if (value >= low && value <= high) return;
  std::ostringstream message;
  message << name << " must lie in [" << low << ", " << high << "], not " << value;
  throw std::invalid_argument(message.str());
}

// The fields both kinds of options share, checked.
template <class Internal, class Public>
Internal common_options(const Public& o) {
  check_range<std::int32_t>("cases", o.cases, 1, kMaxCases);
  check_range<std::uint64_t>("samples", o.samples, 1, kMaxSamples);
  check_range<double>("alpha", o.alpha, kMinAlpha, kMaxAlpha);
  Internal out;
  out.cases.cases = o.cases;
  out.cases.samples = o.samples;
  out.cases.engine_inputs = o.engine_inputs;
  out.alpha = o.alpha;
  out.seed = o.seed;
  out.threads = o.threads;
  return out;
}

tc::CheckOptions internal_options(const TreeCheckOptions& o) {
  auto out = common_options<tc::CheckOptions>(o);
  out.cases.large_vocab = o.large_vocab;
  out.cases.large_vocab_sample_factor = o.large_vocab_factor;
  return out;
}

tc::ModelCheckOptions internal_options(const ModelCheckOptions& o) {
  return common_options<tc::ModelCheckOptions>(o);
}

std::optional<double> finite(double x) { return x == x ? std::optional<double>(x) : std::nullopt; }

Report public_report(const tc::TreeReport& r) {
  Report out{public_verdict(r.overall),
             tev::judging::verdict_text(r.overall),
             r.policy.alpha,
             r.policy.exact_tolerance,
             {},
             tc::describe(r)};
  for (const tc::CaseResult& c : r.cases) {
    const tev::judging::TreeEvidence& e = c.evidence;
    out.cases.push_back({c.id, c.label, public_verdict(c.decision.verdict), c.samples, c.impossible,
                         e.chi_square.p_value, c.decision.exactness_p_holm,
                         c.decision.saturation_p_holm, tev::judging::stated_tv(e),
                         e.enumerated ? std::optional<double>(e.exact_tv) : std::nullopt,
                         finite(e.mean_length), finite(e.ceiling), c.not_enumerated});
  }
  return out;
}

Report public_report(const tc::ModelReport& r) {
  Report out{public_verdict(r.overall),
             tc::model_verdict_text(r.overall),
             r.policy.alpha,
             r.policy.exact_tolerance,
             {},
             tc::describe(r)};
  for (const tc::ModelCaseResult& c : r.cases) {
    const tev::judging::TreeEvidence& e = c.evidence;
    out.cases.push_back({c.id, c.label, public_verdict(c.decision.verdict), e.samples, c.impossible,
                         e.chi_square.p_value, c.decision.exactness_p_holm, std::nullopt,
                         e.detectable_tv, std::nullopt, std::nullopt, std::nullopt,
                         "a model case: sampling only"});
  }
  return out;
}

// A batch's rows as blocks, each checked: the batch's size, tokens in [0, V), −1 padding only
// after a row's last accepted token. `rows` names the batch's rows in messages, `row(i)` row i.
std::vector<tc::TokenBlock> checked_blocks(const BlockBatch& batch, std::int32_t vocab,
                                           std::uint64_t count, const std::string& rows,
                                           const std::function<std::string(std::uint64_t)>& row) {
  const auto where = [&](std::uint64_t i) { return row(i) + ": "; };
  const auto width = static_cast<std::size_t>(std::max(batch.width, 0));
  if (batch.bonus.size() != count || batch.accepted.size() != count * width) {
    throw std::invalid_argument(
        rows + ": a batch of " + std::to_string(count) + " needs " + std::to_string(count) +
        " bonus tokens and " + std::to_string(count) + " x width accepted entries, got " +
        std::to_string(batch.bonus.size()) + " and " + std::to_string(batch.accepted.size()));
  }
  const auto in_vocab = [&](std::int32_t t) { return t >= 0 && t < vocab; };
  std::vector<tc::TokenBlock> blocks(count);
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::int32_t* row = batch.accepted.data() + i * width;
    std::size_t length = 0;
    while (length < width && row[length] != -1) {
      if (!in_vocab(row[length]))
        throw std::invalid_argument(where(i) + "accepted token " + std::to_string(row[length]) +
                                    " outside [0, V)");
      ++length;
    }
    for (std::size_t j = length; j < width; ++j) {
      if (row[j] != -1)
        throw std::invalid_argument(where(i) + "accepted token " + std::to_string(row[j]) +
                                    " after the -1 padding");
    }
    if (!in_vocab(batch.bonus[i]))
      throw std::invalid_argument(where(i) + "bonus token " + std::to_string(batch.bonus[i]) +
                                  " outside [0, V)");
    blocks[i] = {std::vector<std::int32_t>(row, row + length), batch.bonus[i]};
  }
  return blocks;
}

std::string samples_name(std::string_view id, std::uint64_t first, std::uint64_t count) {
  return "case " + std::string(id) + ", samples " + std::to_string(first) + ".." +
         std::to_string(first + count - 1);
}
std::function<std::string(std::uint64_t)> sample_name(std::string_view id, std::uint64_t first) {
  return [id, first](std::uint64_t i) {
    return "case " + std::string(id) + ", sample " + std::to_string(first + i);
  };
}

Report public_report(const tc::BatchReport& r) {
  Report out{public_verdict(r.overall),
             tev::judging::verdict_text(r.overall),
             r.policy.alpha,
             r.policy.exact_tolerance,
             {},
             tc::describe(r)};
  for (const tc::CaseResult& c : r.requests) {
    const tev::judging::TreeEvidence& e = c.evidence;
    out.cases.push_back({c.id, c.label, public_verdict(c.decision.verdict), c.samples, c.impossible,
                         e.chi_square.p_value, c.decision.exactness_p_holm,
                         c.decision.saturation_p_holm, tev::judging::stated_tv(e), std::nullopt,
                         finite(e.mean_length), finite(e.ceiling),
                         "a batch's request: sampling only"});
  }
  for (const tc::PairResult& p : r.pairs) {
    const tev::judging::TreeEvidence& e = p.evidence;
    out.cases.push_back({p.id, "independence within a round: " + p.finding,
                         public_verdict(p.decision.verdict), e.samples, 0, e.chi_square.p_value,
                         p.decision.exactness_p_holm, std::nullopt, e.detectable_tv, std::nullopt,
                         std::nullopt, std::nullopt, "a pair of requests: sampling only"});
  }
  return out;
}

std::uint64_t batch_seed(const tev::DrawSite& site) { return tc::Randomness(site).bits(); }

std::optional<DraftingHint> public_hint(const std::optional<tev::drafts::Drafting>& d) {
  if (!d) return std::nullopt;
  return DraftingHint{static_cast<DraftPolicy>(d->policy), d->width, d->depth};
}

ModelCase public_model_case(const tc::ModelCaseView& view, const PairRows& rows) {
  return {view.id,
          view.label,
          view.vocab,
          view.depth,
          public_hint(view.drafting),
          &rows,
          public_params(view.target_sampling),
          public_params(view.drafter_sampling)};
}

OwnedTreeCase owned(const tc::Case& c) {
  const tc::TreeCaseView v = tc::view_of(c);
  return {c.id,
          c.label,
          v.vocab,
          {v.parents.begin(), v.parents.end()},
          {v.tokens.begin(), v.tokens.end()},
          {c.rows.data().begin(), c.rows.data().end()},
          c.samples};
}

// A case of the caller's own in tevsuite's form: level order, rows checked and reordered with it.
tc::Case internal_case(const OwnedTreeCase& o) {
  const std::size_t n = o.parents.size();
  if (o.vocab < 1 || n < 1 || o.tokens.size() != n ||
      o.probs.size() != n * static_cast<std::size_t>(o.vocab)) {
    throw std::invalid_argument(
        "case " + o.id + ": needs vocab ≥ 1, N ≥ 1 parents, N tokens and N × vocab probabilities");
  }
  const tev::BuiltTree built = tev::tree_from_parents(o.parents, o.tokens, o.vocab);
  std::vector<double> probs;
  probs.reserve(o.probs.size());
  for (const tev::NodeId source : built.order) {
    const auto row = o.view().row(source);
    probs.insert(probs.end(), row.begin(), row.end());
  }
  tc::Case c;
  c.id = o.id;
  c.label = o.label;
  c.tree = built.tree;
  c.rows =
      tev::TargetRows::from_probabilities(probs, built.tree.size(), o.vocab, tc::kRowTolerance);
  c.order = built.order;
  return c;
}

}  // namespace

std::string_view version() { return TEVSUITE_VERSION_STRING; }

std::string verdict_text(Verdict v) {
  switch (v) {
    case Verdict::exact_saturated:
      return tev::judging::verdict_text(tev::judging::Verdict::exact_saturated);
    case Verdict::not_exact:
      return tev::judging::verdict_text(tev::judging::Verdict::not_exact);
    case Verdict::error:
      return "error";
    case Verdict::exact_not_saturated:
      return tev::judging::verdict_text(tev::judging::Verdict::exact_not_saturated);
    case Verdict::inconclusive:
      return tev::judging::verdict_text(tev::judging::Verdict::inconclusive);
    case Verdict::exact_saturation_inconclusive:
      return tev::judging::verdict_text(tev::judging::Verdict::exact_saturation_inconclusive);
  }
  return "unknown verdict " + std::to_string(static_cast<int>(v));
}

const CaseResult* Report::first_failing() const {
  if (verdict == Verdict::exact_saturated) return nullptr;
  for (const CaseResult& c : cases) {
    if (c.verdict == verdict) return &c;
  }
  return nullptr;
}

struct InterruptPoll::Installed {
  explicit Installed(std::function<void()> poll) : internal(std::move(poll)) {}
  tev::InterruptPoll internal;
};

InterruptPoll::InterruptPoll(std::function<void()> poll)
    : installed_(std::make_unique<Installed>(std::move(poll))) {}
InterruptPoll::~InterruptPoll() = default;

Report check_tree_verifier(const TreeVerifier& verifier, const TreeCheckOptions& options) {
  return public_report(tc::check_tree_verifier(
      [&](const tc::TreeCaseView& view, tc::Randomness& r) {
        SampleRandomness randomness(r);
        return emitted(verifier(public_view(view), randomness));
      },
      internal_options(options)));
}

Report check_tree_verifier(const DrawingVerifier& verifier, const TreeCheckOptions& options) {
  return public_report(
      tc::check_tree_verifier(internal_drawing(verifier), internal_options(options)));
}

Report check_model_verifier(const ModelVerifier& verifier, const ModelCheckOptions& options) {
  return public_report(tc::check_model_verifier(
      [&](const tc::ModelCaseView& view, tc::Randomness& r) {
        const PairRows rows(view);
        SampleRandomness randomness(r);
        return emitted(verifier(public_model_case(view, rows), randomness));
      },
      internal_options(options)));
}

Report check_tree_verifier_batched(const TreeBatchVerifier& verifier,
                                   const TreeCheckOptions& options, std::uint64_t batch) {
  return public_report(tc::check_tree_verifier_batched(
      [&](const tc::TreeCaseView& view, std::uint64_t first, std::uint64_t count,
          const tev::DrawSite& site) {
        return checked_blocks(verifier(public_view(view), first, count, batch_seed(site)),
                              view.vocab, count, samples_name(view.id, first, count),
                              sample_name(view.id, first));
      },
      internal_options(options), batch));
}

Report check_model_verifier_batched(const ModelBatchVerifier& verifier,
                                    const ModelCheckOptions& options, std::uint64_t batch) {
  return public_report(tc::check_model_verifier_batched(
      [&](const tc::ModelCaseView& view, std::uint64_t first, std::uint64_t count,
          const tev::DrawSite& site) {
        const PairRows rows(view);
        return checked_blocks(
            verifier(public_model_case(view, rows), first, count, batch_seed(site)), view.vocab,
            count, samples_name(view.id, first, count), sample_name(view.id, first));
      },
      internal_options(options), batch));
}

Report check_batch_verifier(const RequestBatchVerifier& verifier,
                            const BatchCheckOptions& options) {
  check_range<std::int32_t>("batches", options.batches, 1, kMaxCases);
  check_range<std::int32_t>("requests", options.requests, 1, kMaxRequests);
  check_range<std::uint64_t>("rounds", options.rounds, 1, kMaxSamples);
  check_range<double>("alpha", options.alpha, kMinAlpha, kMaxAlpha);
  tc::BatchCheckOptions internal;
  internal.batches.cases = options.batches;
  internal.batches.batch = options.requests;
  internal.batches.samples = options.rounds;
  internal.batches.engine_inputs = options.engine_inputs;
  internal.alpha = options.alpha;
  internal.seed = options.seed;
  return public_report(tc::check_batch_verifier(
      [&](std::string_view batch, std::span<const tc::TreeCaseView> views,
          const tev::DrawSite& site) {
        std::vector<TreeCase> requests;
        for (const tc::TreeCaseView& v : views) requests.push_back(public_view(v));
        tc::Randomness r(site);
        SampleRandomness randomness(r);
        const std::string round =
            "batch " + std::string(batch) + ", round " + std::to_string(site.sample);
        return checked_blocks(
            verifier(requests, randomness), views.front().vocab, views.size(), round,
            [&](std::uint64_t k) { return round + ", request " + std::string(views[k].id); });
      },
      internal));
}

ExactLaw exact_law(const DrawingVerifier& verifier, const OwnedTreeCase& owned_case) {
  const tc::Case c = internal_case(owned_case);
  tev::ExactOutcome exact;
  try {
    exact = tc::detail::enumerate_drawing(internal_drawing(verifier), c, tc::view_of(c));
  } catch (const tev::EnumerationBudgetExceeded& e) {
    throw std::length_error(e.what());
  }
  const tev::ExitLaw law = tev::ExitLaw::compute(c.tree, c.rows);
  return {tev::exact_tv(exact, tev::canonical_block_law(c.tree, c.rows, law)), exact.mean_length,
          law.ceiling(), exact.completion_probability};
}

std::vector<std::string> tree_case_lines(const TreeCheckOptions& options) {
  return tc::emit_configured(internal_options(options).cases);
}

std::string_view order_name(FilterOrder order) {
  return tev::order_name(static_cast<tev::FilterOrder>(order));
}
FilterOrder parse_order(std::string_view name) {
  return static_cast<FilterOrder>(tev::parse_order(name));
}

void process_logits(std::span<const double> logits, const SamplingParams& params,
                    std::span<double> out) {
  tev::process_logits(logits, internal_params(params), out);
}

OwnedTreeCase read_tree_case(std::string_view json_line) {
  try {
    return owned(tc::parse_case(json_line, "case line"));
  } catch (const tc::InputError& e) {
    throw std::invalid_argument(e.what());
  }
}

}  // namespace tevsuite
