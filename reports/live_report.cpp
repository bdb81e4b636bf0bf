#include "reports/live_report.hpp"

#include <iomanip>
#include <ostream>

#include "core/exit_law.hpp"
#include "core/format.hpp"
#include "reports/verdict_json.hpp"
#include "reports/verdict_table.hpp"

namespace tev::reports {

namespace {

void print_cases(const std::vector<live::LiveCase>& cases, std::ostream& out) {
  out << "Live trees: " << cases.size() << "\n";
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const live::LiveCase& c = cases[i];
    const ExitLaw law = ExitLaw::compute(c.check_case.tree, c.check_case.rows);
    out << "  tree " << std::right << std::setw(2) << i << ": " << std::left << std::setw(36)
        << c.check_case.label << " nodes " << std::setw(4) << c.check_case.tree.size() << " depth "
        << std::setw(3) << c.check_case.tree.max_depth() << " 1+C_p " << fixed(law.ceiling(), 4)
        << "  KL(target||drafter) " << fixed(c.root_kl, 3) << " nats  row dev "
        << scientific(c.row_deviation)
        << (c.context_text.empty() ? "" : "  \"" + c.context_text + "\"") << '\n';
  }
}

void print_generation(const live::LiveOptions& options, const live::LiveResult& r,
                      std::ostream& out) {
  out << "\nSpeculative generation with TEV, " << options.rounds
      << " rounds per drafter x builder from context 0:\n";
  for (const live::LiveGenerationRun& g : r.generations) {
    out << "  " << std::left << std::setw(8) << g.builder << std::setw(14) << g.drafter
        << " tokens/round " << fixed(g.generation.mean_length(), 3) << "  mean 1+C_p "
        << fixed(g.generation.mean_ceiling(), 3) << "  p " << scientific(g.generation.length_p())
        << "  rounds " << g.generation.rounds << "  row dev "
        << scientific(g.generation.row_deviation) << '\n';
    out << "    \"" << g.prompt_text << " | " << g.continuation_text << "\"\n";
  }
  out << "  tokens per round vs 1 + C_p: min Holm p " << scientific(r.min_length_p_holm)
      << (r.generation_holds ? " (holds)" : " (DOES NOT HOLD)") << '\n';
  const stats::ChiSquareResult& w = r.first_word.chi_square;
  out << "  first word of " << r.first_word.samples
      << " TEV rounds on tree 0 vs the target's next-word row: chi2 " << fixed(w.statistic, 1)
      << " on " << w.dof << " dof, p " << scientific(w.p_value)
      << (r.first_word.holds ? " (holds)" : " (DOES NOT HOLD)") << '\n';
}

}  // namespace

void print_live(const live::LiveOptions& options, const live::LiveResult& r, std::ostream& out) {
  const judging::JudgingConfig& judging = options.judging;
  if (!r.from_dumps) {
    out << "Target: " << r.target << "\nDrafters:";
    for (const auto& [name, model] : r.drafters) out << ' ' << name << " (" << model << ")";
    out << "\nBudget " << options.tree.budget << ", temperature " << options.tree.temperature
        << ", " << options.contexts << " context(s) of " << options.context_length
        << " sampled tokens per drafter x builder\n";
  }
  print_cases(r.cases, out);
  out << "Samples per tree: " << judging.samples << " (verifiers with a fast path), "
      << options.chooser_samples << " (the others: O(V) per draw); seed " << judging.seed
      << "; family-wise alpha " << judging.alpha << ", " << r.share_alpha(judging.alpha)
      << " per verifier or test family\n";
  if (judging.enumerate) {
    out << "Exact laws by lumped enumeration (a branch per drafted child, every other token of a "
           "draw as one weighted vector): "
        << "each verifier's law against the canonical law to " << judging.exact_tolerance
        << (options.mutants ? ", each mutant's exact TV and predicted power at its sample count"
                            : "; planted mutants with --mutants")
        << '\n';
  } else {
    out << "Live trees are not enumerated (--no-enumeration): verdicts rest on sampling, and a "
           "tree whose chi-square cannot "
        << "detect TV 0.05 with 99 % power makes its verifier 'inconclusive'"
        << (options.mutants ? "; a mutant sampling misses is reported, not failed"
                            : "; planted mutants with --mutants")
        << '\n';
  }
  print_verdict_table(r.verifiers, out);
  if (!r.from_dumps) print_generation(options, r, out);
  out << "\n"
      << (r.passed ? "PASS" : "FAIL")
      << ": on live trees every saturated verifier exact and saturated, every "
      << "unsaturated one exact and not saturated"
      << (r.from_dumps ? "" : ", tokens per round at 1 + C_p, first word at the target's row")
      << (r.passed         ? ""
          : r.inconclusive ? " -- inconclusive: too few samples (--samples, --chooser-samples)"
                           : " -- does not hold")
      << " (" << fixed(r.seconds, 1) << " s)\n";
}

nlohmann::json live_json(const live::LiveOptions& options, const live::LiveResult& r) {
  const judging::JudgingConfig& judging = options.judging;
  nlohmann::json j;
  if (!r.from_dumps) {
    const stats::ChiSquareResult& w = r.first_word.chi_square;
    j["generation"]["min_length_p_holm"] = r.min_length_p_holm;
    j["first_word"] = {{"tree", 0},           {"samples", r.first_word.samples},
                       {"chi2", w.statistic}, {"dof", w.dof},
                       {"p", w.p_value},      {"impossible", w.impossible}};
  }
  j["format_version"] = 2;
  j["command"] = "live";
  j["kind"] = results_kind_name(ResultsKind::live);
  j["config"] = {{"budget", options.tree.budget},
                 {"temperature", options.tree.temperature},
                 {"contexts", options.contexts},
                 {"context_length", options.context_length},
                 {"samples", judging.samples},
                 {"chooser_samples", options.chooser_samples},
                 {"rounds", options.rounds},
                 {"seed", judging.seed},
                 {"alpha", judging.alpha},
                 {"threads", judging.threads},
                 {"enumerate", judging.enumerate},
                 {"from", options.from_dir},
                 {"verdict_policy",
                  policy_json(judging::VerdictPolicy{.alpha = r.share_alpha(judging.alpha),
                                                     .exact_tolerance = judging.exact_tolerance},
                              r.cases.size())}};
  if (!r.from_dumps) j["target"] = r.target;
  for (const live::LiveCase& c : r.cases) {
    const ExitLaw law = ExitLaw::compute(c.check_case.tree, c.check_case.rows);
    j["trees"].push_back({{"label", c.check_case.label},
                          {"drafter", c.drafter},
                          {"builder", c.builder},
                          {"context", c.context_text},
                          {"nodes", c.check_case.tree.size()},
                          {"max_depth", c.check_case.tree.max_depth()},
                          {"ceiling", law.ceiling()},
                          {"root_kl", c.root_kl},
                          {"row_max_deviation", c.row_deviation},
                          {"prefix", law.prefix}});
  }
  j["verifiers"] = verifiers_json(r.verifiers);
  for (const live::LiveGenerationRun& g : r.generations) {
    j["generation"]["runs"].push_back({{"drafter", g.drafter},
                                       {"builder", g.builder},
                                       {"rounds", g.generation.rounds},
                                       {"tokens_per_round", g.generation.mean_length()},
                                       {"mean_ceiling", g.generation.mean_ceiling()},
                                       {"p", g.generation.length_p()},
                                       {"row_max_deviation", g.generation.row_deviation},
                                       {"text", g.text}});
  }
  j["seconds"] = r.seconds;
  j["passed"] = r.passed;
  return j;
}

}  // namespace tev::reports
