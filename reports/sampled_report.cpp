#include "reports/sampled_report.hpp"

#include <algorithm>
#include <iomanip>
#include <ostream>
#include <vector>

#include "core/format.hpp"
#include "reports/verdict_json.hpp"

namespace tev::reports {

namespace {

std::string yes_no(bool x) { return x ? "yes" : "no"; }

// Evidence of one case on every pair, in pair order.
std::vector<const judging::SampledEvidence*> evidence_of(
    const std::vector<judging::SampledEvidence>& all, const std::string& label) {
  std::vector<const judging::SampledEvidence*> out;
  for (const judging::SampledEvidence& e : all) {
    if (e.c.label() == label) out.push_back(&e);
  }
  return out;
}

void print_table(const std::vector<judging::SampledVerdict>& verdicts,
                 const std::vector<judging::SampledEvidence>& evidence, std::ostream& out) {
  out << "\n"
      << std::left << std::setw(66) << "verifier @ drafting" << std::setw(18) << "kind"
      << std::setw(6) << "cond" << std::setw(6) << "marg" << std::setw(38) << "verdict"
      << std::setw(10) << "TV enum" << std::setw(10) << "cond TV" << std::setw(10) << "min p"
      << std::setw(8) << "power" << std::setw(11) << "det. TV" << std::setw(24)
      << "exact E[L] per pair" << std::setw(13) << "E[L|T]-ceil"
      << "as expected\n";
  for (const judging::SampledVerdict& v : verdicts) {
    double tv = 0.0, cond_tv = 0.0, min_p = 1.0, power = 0.0, detectable = 0.0, excess = -1e300;
    std::string lengths;
    for (const judging::SampledEvidence* e : evidence_of(evidence, v.case_label)) {
      tv = std::max(tv, e->exact.tv);
      cond_tv = std::max(cond_tv, e->conditional.max_tv);
      min_p = std::min(min_p, e->chi_square.p_value);
      power = std::max(power, e->predicted_power);
      detectable = std::max(detectable, e->detectable_tv_toward.value_or(0.0));
      excess = std::max(excess, e->conditional.max_excess_over_ceiling);
      lengths += fixed(e->exact.mean_length, 3) + " ";
    }
    out << std::left << std::setw(66) << v.case_label << std::setw(18)
        << drafts::sampled_kind_name(v.kind) << std::setw(6) << yes_no(v.conditional_exact)
        << std::setw(6) << yes_no(v.marginal_exact) << std::setw(38) << v.verdict << std::setw(10)
        << scientific(tv) << std::setw(10) << scientific(cond_tv) << std::setw(10)
        << scientific(min_p) << std::setw(8) << fixed(power, 3) << std::setw(11)
        << (detectable > 0.0 ? scientific(detectable) : "-") << std::setw(24) << lengths
        << std::setw(13) << fixed(excess, 4) << (v.as_expected ? "yes" : "NO") << "\n";
  }
  out << "cond/marg: exact given every realized tree / over the drafter's randomness. TV enum, "
         "cond TV, power, det. TV and\n"
      << "E[L|T]-ceil are the largest over the pairs, min p the smallest. det. TV: the smallest TV "
         "along the case's own\n"
      << "direction from p that the chi-square test detects with 99 % power at the per-test alpha "
         "and this sample count\n"
      << "('-': exact, or not even the whole deviation reaches 99 % power; such mutants need "
         "enumeration).\n"
      << "E[L|T]-ceil: max over realized trees of E[L | T] - (1 + C_p(T)) (Theorem 1 bounds it by "
         "0 for target-only verifiers).\n";
}

// Tokens per round on the same sampled trees: every verifier on one drafting policy reads the
// same drafted nodes in each sample, so TEV's and a q-based verifier's means are paired.
// evidence: (cases, pairs) row-major.
void print_length_comparison(const std::vector<judging::SampledEvidence>& evidence,
                             std::size_t pairs, std::ostream& out) {
  out << "\nE[L] on the same sampled trees (exact by enumeration / measured), TEV against the "
         "q-based verifiers:\n";
  for (std::size_t a = 0; a < evidence.size(); ++a) {
    const judging::SampledEvidence& tev = evidence[a];
    if (tev.c.verifier != drafts::SampledVerifierId::tree_exit) continue;
    for (std::size_t b = a % pairs; b < evidence.size(); b += pairs) {
      const judging::SampledEvidence& q = evidence[b];
      if (q.kind != drafts::SampledKind::q_based || q.c.drafting.label() != tev.c.drafting.label())
        continue;
      out << "  pair " << a % pairs << "  " << std::left << std::setw(22) << tev.c.drafting.label()
          << " tev " << fixed(tev.exact.mean_length, 4) << " / "
          << fixed(tev.counts.mean_length(), 4) << "   " << std::setw(24)
          << drafts::sampled_verifier_info(q.c.verifier).name << fixed(q.exact.mean_length, 4)
          << " / " << fixed(q.counts.mean_length(), 4) << "   exact difference "
          << fixed(q.exact.mean_length - tev.exact.mean_length, 4) << "\n";
    }
  }
}

nlohmann::json to_json(const experiments::SampledCheckOptions& o,
                       const std::vector<drafts::LanguagePair>& pairs,
                       const std::vector<judging::SampledVerdict>& verdicts,
                       const std::vector<judging::SampledEvidence>& evidence, double seconds,
                       bool passed) {
  nlohmann::json j;
  j["format_version"] = 1;
  j["kind"] = results_kind_name(ResultsKind::sampled_check);
  j["command"] = "check";
  j["drafts"] = "sampled";
  j["config"] = {{"vocab", o.vocab},
                 {"depth", o.depth},
                 {"width", o.width},
                 {"horizon", o.depth + 1},
                 {"samples", o.samples},
                 {"seed", o.seed},
                 {"threads", o.threads},
                 {"alpha", o.alpha},
                 {"alpha_per_test", judging::sampled_test_alpha(o.alpha, evidence.size())},
                 {"exact_tolerance", judging::kSampledExactTolerance}};
  for (const drafts::LanguagePair& p : pairs)
    j["language_pairs"].push_back({{"label", p.spec().label()}, {"draft_kl", p.mean_kl(o.depth)}});
  for (const judging::SampledVerdict& v : verdicts) {
    double exact_tv = 0.0, min_p = 1.0;
    for (const judging::SampledEvidence* e : evidence_of(evidence, v.case_label)) {
      exact_tv = std::max(exact_tv, e->exact.tv);
      min_p = std::min(min_p, e->chi_square.p_value);
    }
    // Today's per-verifier fields (name, kind, exact, exact_tv, min_p) and the new ones.
    nlohmann::json c = {{"name", v.case_label},
                        {"kind", drafts::sampled_kind_name(v.kind)},
                        {"exact", v.marginal_exact},
                        {"exact_tv", exact_tv},
                        {"min_p", min_p},
                        {"verdict", v.verdict},
                        {"conditional_exact", v.conditional_exact},
                        {"marginal_exact", v.marginal_exact},
                        {"caught_by_enumeration", v.caught_by_enumeration},
                        {"caught_by_sampling", v.caught_by_sampling},
                        {"sampling_missed", v.sampling_missed},
                        {"consistent", v.consistent},
                        {"as_expected", v.as_expected}};
    const std::vector<const judging::SampledEvidence*> per_pair =
        evidence_of(evidence, v.case_label);
    for (std::size_t i = 0; i < per_pair.size(); ++i)
      c["per_pair"].push_back(sampled_pair_json(*per_pair[i], pairs[i]));
    j["verifiers"].push_back(std::move(c));
  }
  j["seconds"] = seconds;
  j["passed"] = passed;
  return j;
}

}  // namespace

void print_sampled_check(const experiments::SampledCheckOptions& o,
                         const experiments::SampledCheckResult& r, std::ostream& out) {
  const std::size_t tests = r.evidence.size();
  out << "Sampled drafts: V = " << o.vocab << ", drafting depth D = " << o.depth
      << ", width k = " << o.width << ", completion horizon H = " << o.depth + 1 << " ("
      << r.pairs.front().sequence_law().size() << " cells)\n";
  for (std::size_t i = 0; i < r.pairs.size(); ++i) {
    out << "  pair " << i << ": " << r.pairs[i].spec().label() << "  KL(p||q) "
        << fixed(r.pairs[i].mean_kl(o.depth), 3) << " nats\n";
  }
  out << "Samples: " << o.samples << " per case and pair, seed " << o.seed << ", " << o.threads
      << " thread(s); family-wise alpha " << o.alpha
      << " (the verdict policy: half for marginal exactness, Holm over " << tests
      << " chi-square tests, one per case and pair,\n"
      << scientific(r.test_alpha)
      << " each at Bonferroni; half for the E[L] consistency of sampler and enumeration, Holm); "
      << "enumeration tolerance " << scientific(judging::kSampledExactTolerance) << "\n";
  print_table(r.verdicts, r.evidence, out);
  print_length_comparison(r.evidence, r.pairs.size(), out);
  out << "\n"
      << (r.passed ? "PASS" : "FAIL")
      << ": target-only verifiers exact conditionally and marginally, q-based ones "
      << "marginally only, typical acceptance and every mutant not exact"
      << (r.passed ? "" : " -- does not hold") << " (" << fixed(r.seconds, 1) << " s)\n";
}

nlohmann::json sampled_check_json(const experiments::SampledCheckOptions& o,
                                  const experiments::SampledCheckResult& r) {
  return to_json(o, r.pairs, r.verdicts, r.evidence, r.seconds, r.passed);
}

}  // namespace tev::reports
