#include "reports/live_sampled_report.hpp"

#include <iomanip>
#include <ostream>

#include "core/format.hpp"
#include "reports/verdict_json.hpp"

namespace tev::reports {

namespace {

// The policy's verdict in the words of marginal exactness: saturation is not asked of a first word.
std::string first_word_verdict(const live::FirstWordCase& f) {
  if (f.verdict == judging::Verdict::exact_saturated)
    return f.kind == drafts::SampledKind::q_based ? "exact (marginally)" : "exact";
  return verdict_text(f.verdict);
}

std::string optional_text(const std::optional<double>& x) { return x ? scientific(*x) : "-"; }

void print_first_word(const live::LiveSampledResult& r, const live::LiveSampledOptions& o,
                      std::ostream& out) {
  out << "\nFirst generated word, " << o.first_word_samples
      << " samples per case, each on a freshly drafted tree, against the target's\n"
      << "next-word row at the context (Pearson chi-square, pooled; verdict policy: Holm at "
         "alpha/2 over "
      << r.first_word.size() << " cases, " << scientific(r.chi_square_level)
      << " each at Bonferroni)\n\n";
  out << std::left << std::setw(14) << "drafter" << std::setw(62) << "verifier @ drafting"
      << std::setw(18) << "kind" << std::setw(10) << "chi2" << std::setw(7) << "dof"
      << std::setw(10) << "p" << std::setw(10) << "TV@99%" << std::setw(11) << "exact TV"
      << std::setw(8) << "power" << std::setw(20) << "verdict"
      << "as expected\n";
  for (const live::FirstWordCase& f : r.first_word) {
    out << std::left << std::setw(14) << f.drafter << std::setw(62) << f.c.label() << std::setw(18)
        << drafts::sampled_kind_name(f.kind) << std::setw(10)
        << fixed(f.evidence.chi_square.statistic, 1) << std::setw(7) << f.evidence.chi_square.dof
        << std::setw(10) << scientific(f.evidence.chi_square.p_value) << std::setw(10)
        << optional_text(f.evidence.detectable_tv) << std::setw(11) << optional_text(f.exact_tv)
        << std::setw(8) << (f.exact_tv ? fixed(f.predicted_power, 3) : "-") << std::setw(20)
        << first_word_verdict(f) << (f.as_expected ? "yes" : "NO") << '\n';
  }
  out << "TV@99%: every first-word law at least this far from the target row, in any direction, "
         "tails included, is rejected\n"
      << "by the identity test with 99 % power at its level; above 0.05 the case is "
         "'inconclusive'. exact TV: the first word's exact law, enumerated over\n"
      << "the root's drafts and tests (where the first word is decided), against the target row "
         "('-': target-only, exact on\n"
      << "every tree); power: of the chi-square at its level against that law. A mutant must be "
         "caught wherever power >= 0.99.\n";
}

void print_rounds(const live::LiveSampledResult& r, const live::LiveSampledOptions& o,
                  std::ostream& out) {
  out << "\nTokens per round on the same sampled trees: " << o.rounds
      << " rounds of generation per drafter x policy (TEV's text\n"
      << "advances), each round's drafted tree verified " << o.draws_per_round
      << " times by TEV and by the q-based verifier; mean +- standard\n"
      << "error over rounds; TEV's exact E[L | T] = 1 + C_p(T) beside it (two-sided Chernoff bound "
         "of TEV's sum, Holm at alpha/2):\n\n";
  out << std::left << std::setw(14) << "drafter" << std::setw(24) << "drafting" << std::setw(18)
      << "TEV" << std::setw(10) << "1+C_p" << std::setw(26) << "q-based verifier" << std::setw(18)
      << "tokens/round" << std::setw(20) << "q-based - TEV"
      << "TEV p\n";
  auto pm = [](double m, double se) { return fixed(m, 3) + " +- " + fixed(se, 3); };
  for (const live::RoundsComparison& c : r.rounds) {
    out << std::left << std::setw(14) << c.drafter << std::setw(24) << c.drafting.label()
        << std::setw(18) << pm(c.tev_mean, c.tev_se) << std::setw(10) << fixed(c.ceiling_mean, 3)
        << std::setw(26) << drafts::sampled_verifier_info(c.q_verifier).name << std::setw(18)
        << pm(c.q_mean, c.q_se) << std::setw(20) << pm(c.difference_mean, c.difference_se)
        << scientific(c.tev_p) << (c.tev_holds ? "" : " (TEV OFF 1 + C_p)") << '\n';
  }
}

}  // namespace

nlohmann::json live_sampled_json(const live::LiveSampledOptions& o,
                                 const live::LiveSampledResult& r) {
  nlohmann::json j;
  j["format_version"] = 1;
  j["command"] = "live";
  j["drafts"] = "sampled";
  j["kind"] = results_kind_name(
      ResultsKind::
          live_sampled);  // not the fixed-tree live results: no trees, no per-node evidence
  j["config"] = {{"context_length", o.context_length},
                 {"draft_depth", o.draft_depth},
                 {"first_word_depth", o.first_word_depth},
                 {"draft_width", o.draft_width},
                 {"top_k", o.top_k},
                 {"temperature", o.temperature},
                 {"first_word_samples", o.first_word_samples},
                 {"rounds", o.rounds},
                 {"draws_per_round", o.draws_per_round},
                 {"mutants", o.mutants},
                 {"seed", o.seed},
                 {"threads", o.threads},
                 {"alpha", o.alpha},
                 {"max_detectable_tv", o.max_detectable_tv},
                 {"chi_square_level", r.chi_square_level},
                 {"exact_tolerance", r.exact_tolerance}};
  j["target"] = r.description;
  j["drafters"] = r.drafters;
  j["root_tv"] = r.root_tv;
  j["context"] = r.context;
  j["row_max_deviation"] = r.row_deviation;
  for (const live::FirstWordCase& f : r.first_word) {
    j["first_word"].push_back(
        {{"drafter", f.drafter},
         {"case", f.c.label()},
         {"kind", drafts::sampled_kind_name(f.kind)},
         {"samples", f.evidence.samples},
         {"chi2", f.evidence.chi_square.statistic},
         {"dof", f.evidence.chi_square.dof},
         {"p", f.evidence.chi_square.p_value},
         {"impossible", f.evidence.chi_square.impossible},
         {"detectable_tv", optional_json(f.evidence.detectable_tv)},
         {"exact_tv", optional_json(f.exact_tv)},
         {"predicted_power", f.exact_tv ? nlohmann::json(f.predicted_power) : nlohmann::json()},
         {"verdict", first_word_verdict(f)},
         {"caught_by_sampling", f.caught_by_sampling},
         {"as_expected", f.as_expected}});
  }
  for (const live::RoundsComparison& c : r.rounds) {
    j["rounds"].push_back({{"drafter", c.drafter},
                           {"drafting", c.drafting.label()},
                           {"q_verifier", drafts::sampled_verifier_info(c.q_verifier).name},
                           {"rounds", c.rounds},
                           {"draws_per_round", c.draws},
                           {"tev_mean", c.tev_mean},
                           {"tev_se", c.tev_se},
                           {"mean_ceiling", c.ceiling_mean},
                           {"q_mean", c.q_mean},
                           {"q_se", c.q_se},
                           {"difference_mean", c.difference_mean},
                           {"difference_se", c.difference_se},
                           {"tev_p", c.tev_p},
                           {"tev_holds", c.tev_holds},
                           {"tokens", c.tokens}});
  }
  j["passed"] = r.passed;
  j["only_inconclusive"] =
      r.only_inconclusive;  // `tevsuite report` gives the command's exit code back
  j["seconds"] = r.seconds;
  return j;
}

void print_live_sampled(const live::LiveSampledOptions& o, const live::LiveSampledResult& r,
                        std::ostream& out) {
  out << "Target: " << r.description << "\nDrafters (each row cut to its top " << o.top_k
      << " words, renormalized):";
  for (std::size_t d = 0; d < r.drafters.size(); ++d)
    out << ' ' << r.drafters[d] << " (TV(p, q) at the context " << fixed(r.root_tv[d], 3) << ")";
  out << "\nDrafting depth D = " << o.draft_depth << " (first-word test: " << o.first_word_depth
      << "), width k = " << o.draft_width << ", temperature " << o.temperature << "; context \""
      << r.context_text << "\"; seed " << o.seed << ", family-wise alpha " << o.alpha
      << " (half for the first word, half for TEV's tokens per round), 'exact' needs TV@99% <= "
      << o.max_detectable_tv << "; row dev " << scientific(r.row_deviation) << '\n';
  print_first_word(r, o, out);
  print_rounds(r, o, out);
  out << "\nTEV's generated text per drafter x policy:\n";
  for (const live::RoundsComparison& c : r.rounds) {
    out << "  " << std::left << std::setw(14) << c.drafter << std::setw(24) << c.drafting.label()
        << '"' << c.prompt_text << " | " << c.continuation_text << "\"\n";
  }
  out << '\n'
      << (r.passed ? "PASS" : "FAIL")
      << ": on live sampled trees the first word of TEV and the q-based verifiers at the target's "
      << "row, every mutant caught where powered, TEV's tokens per round at 1 + C_p"
      << (r.passed              ? ""
          : r.only_inconclusive ? " -- inconclusive: too few samples (--first-word-samples)"
                                : " -- does not hold")
      << " (" << fixed(r.seconds, 1) << " s)\n";
}

}  // namespace tev::reports
