// The public library (include/tevsuite/check.hpp) over the in-process check
// (conformance/in_process.hpp), which takes and calls the public types itself: the judges' reports
// copied into the public result types, a caller's own case in tevsuite's form, and the names and
// processing of sampling parameters.
#include <tevsuite/check.hpp>

#include <stdexcept>

#include "conformance/in_process.hpp"
#include "core/exit_law.hpp"
#include "core/interrupt.hpp"
#include "stats/goodness_of_fit.hpp"

namespace tevsuite {
namespace {

namespace tc = tev::conformance;

Verdict public_verdict(tev::judging::Verdict v) {
  return static_cast<Verdict>(tev::judging::verdict_exit_code(v));
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
                         tev::judging::stated_tv(e), std::nullopt, std::nullopt, std::nullopt,
                         "a model case: sampling only"});
  }
  return out;
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
    out.cases.push_back({p.id, "independence within a round and across rounds: " + p.finding,
                         public_verdict(p.decision.verdict), e.samples, 0, e.chi_square.p_value,
                         p.decision.exactness_p_holm, std::nullopt, tev::judging::stated_tv(e),
                         std::nullopt, std::nullopt, std::nullopt,
                         "a pair of requests: sampling only"});
  }
  return out;
}

OwnedTreeCase owned(const tc::Case& c) {
  const TreeCase v = tc::view_of(c);
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
  return public_report(tc::check_tree_verifier(verifier, options));
}

Report check_tree_verifier(const DrawingVerifier& verifier, const TreeCheckOptions& options) {
  return public_report(tc::check_tree_verifier(verifier, options));
}

Report check_model_verifier(const ModelVerifier& verifier, const ModelCheckOptions& options) {
  return public_report(tc::check_model_verifier(verifier, options));
}

Report check_tree_verifier_batched(const TreeBatchVerifier& verifier,
                                   const TreeCheckOptions& options, std::uint64_t batch) {
  return public_report(tc::check_tree_verifier_batched(verifier, options, batch));
}

Report check_model_verifier_batched(const ModelBatchVerifier& verifier,
                                    const ModelCheckOptions& options, std::uint64_t batch) {
  return public_report(tc::check_model_verifier_batched(verifier, options, batch));
}

Report check_batch_verifier(const RequestBatchVerifier& verifier,
                            const BatchCheckOptions& options) {
  return public_report(tc::check_batch_verifier(verifier, options));
}

ExactLaw exact_law(const DrawingVerifier& verifier, const OwnedTreeCase& owned_case) {
  const tc::Case c = internal_case(owned_case);
  tev::ExactOutcome exact;
  try {
    exact = tc::enumerate_drawing(verifier, c);
  } catch (const tev::EnumerationBudgetExceeded& e) {
    throw std::length_error(e.what());
  }
  const tev::ExitLaw law = tev::ExitLaw::compute(c.tree, c.rows);
  return {tev::exact_tv(exact, tev::canonical_block_law(c.tree, c.rows, law)), exact.mean_length,
          law.ceiling(), exact.completion_probability};
}

std::vector<std::string> tree_case_lines(const TreeCheckOptions& options) {
  return tc::emit_configured(tc::emit_config(options));
}

std::string_view order_name(FilterOrder order) {
  return tev::order_name(static_cast<tev::FilterOrder>(order));
}
FilterOrder parse_order(std::string_view name) {
  return static_cast<FilterOrder>(tev::parse_order(name));
}

void process_logits(std::span<const double> logits, const SamplingParams& params,
                    std::span<double> out) {
  tev::process_logits(logits, tc::internal_params(params), out);
}

OwnedTreeCase read_tree_case(std::string_view json_line) {
  try {
    return owned(tc::parse_case(json_line, "case line"));
  } catch (const tc::InputError& e) {
    throw std::invalid_argument(e.what());
  }
}

}  // namespace tevsuite
