#include "reports/render.hpp"

#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include "reports/document.hpp"
#include "reports/exittrain.hpp"
#include "reports/generation_report.hpp"
#include "reports/optional_field.hpp"
#include "reports/render_verdicts.hpp"

namespace tev::reports {

namespace {

using nlohmann::json;

// Theorem 1 given the tree, on drafts sampled from q (results.json's sampled_drafts).
void sampled_drafts_section(Document& d, const json& s) {
  const json& cfg = s.at("config");
  heading(d, "Sampled drafts: exact given the tree, or only over the drafter's randomness");
  paragraph(d,
            "Theorem 1 is a statement about one realized tree T. A **target-only** verifier (TEV, "
            "predraw, sequential residual, walk) "
            "reads only the target rows of T, so it is exact *conditionally*: given any T its "
            "block has the target's law, and "
            "E[L | T] <= 1 + C_p(T). A **q-based** verifier (speculative sampling, recursive "
            "rejection sampling) also reads the "
            "draft probabilities q and uses the fact that each drafted token was drawn from q: "
            "given T its law is *not* the "
            "target's, and it may accept more than P(u) allows, but averaged over the drafter's "
            "randomness its law is exact "
            "(*marginally*). So the ceiling 1 + C_p(T) binds target-only verifiers on every tree, "
            "and does not bind q-based ones. "
            "Below, every realized tree of each drafting policy is enumerated (V = " +
                std::to_string(cfg.at("vocab").get<int>()) + ", drafting depth " +
                std::to_string(cfg.at("depth").get<int>()) + ", width " +
                std::to_string(cfg.at("width").get<int>()) +
                ", blocks completed with p to H = " + std::to_string(cfg.at("horizon").get<int>()) +
                " tokens): no sampling noise. "
                "Sampled evidence for the same verifiers: `tevsuite check --drafts sampled` "
                "(synthetic, chi-square) and "
                "`tevsuite live --drafts sampled` (the Sphinx trigram: first word against the "
                "target row, tokens per round "
                "of TEV and the q-based verifiers on the same sampled trees).");
  Table t{{"verifier @ drafting", "drafter", "kind", "trees", "exact given T (max TV)",
           "marginal TV", "E[L]", "E_T[1 + C_p(T)]", "max E[L|T] - (1 + C_p(T))", "min",
           "P(T exceeds)", "tree of the max: P(T), E[L|T], 1 + C_p(T)"},
          {}};
  for (const json& row : s.at("rows")) {
    const double max_tv = row.at("conditional_max_tv").get<double>();
    t.rows.push_back(
        {row.at("case"), row.at("drafter"), row.at("kind"),
         std::to_string(row.at("realized_trees").get<std::uint64_t>()),
         max_tv <= cfg.at("exact_tolerance").get<double>() ? "yes (" + num(max_tv) + ")"
                                                           : "no (" + num(max_tv) + ")",
         num(row.at("marginal_tv").get<double>()), fixed(row.at("mean_L").get<double>()),
         fixed(row.at("mean_ceiling").get<double>()), num(row.at("max_excess").get<double>()),
         num(row.at("min_excess").get<double>()), num(row.at("excess_mass").get<double>()),
         "{" + row.at("worst_tree").get<std::string>() +
             "}: " + num(row.at("worst_tree_probability").get<double>()) + ", " +
             fixed(row.at("worst_tree_mean_L").get<double>()) + ", " +
             fixed(row.at("worst_tree_ceiling").get<double>())});
  }
  table(d, t);
  paragraph(d,
            "A tree is written as its drafted paths (tokens as digits). E[L] is the exact marginal "
            "tokens per round; "
            "E_T[1 + C_p(T)] is what TEV emits on the same sampled trees, so their difference is "
            "the q-based verifier's gain "
            "over TEV there. Enumeration took " +
                fixed(s.at("seconds").get<double>(), 1) + " s.");
  figure(d, "figures/sampled_drafts.png",
         "E[L | T] against 1 + C_p(T) on every realized tree (area: P(T)) for TEV and the q-based "
         "verifiers on the perturbed pair: TEV on the diagonal, q-based verifiers above it.");
}

Document build(const json& r) {
  Document d;
  const json& cfg = r.at("config");
  const double alpha_v = cfg.at("alpha_per_verifier").get<double>();
  heading(d, "Theorem 1, reproduced empirically");
  paragraph(d, std::string("Verdict: **") +
                   (r.at("passed").get<bool>()
                        ? "every claim holds and every verifier is judged as its kind requires"
                        : "NOT every claim holds — see the rows marked no") +
                   "**. Seed " + std::to_string(cfg.at("seed").get<std::uint32_t>()) + ", " +
                   std::to_string(cfg.at("samples").get<std::uint64_t>()) +
                   " samples per (tree, verifier), family-wise alpha " +
                   num(cfg.at("alpha").get<double>()) + " split evenly over " +
                   std::to_string(cfg.at("alpha_split").size()) + " families of tests (" +
                   num(alpha_v) +
                   " per verifier in the sweep: half for exactness, half for saturation, Holm "
                   "within each); run time " +
                   fixed(r.at("seconds").get<double>(), 1) + " s" +
                   (cfg.at("quick").get<bool>() ? " (--quick: reduced sweep)" : "") + ".");

  heading(d, "Claims and evidence");
  Table claims{{"claim", "where", "evidence", "holds"}, {}};
  for (const json& c : r.at("claims")) {
    claims.rows.push_back({c.at("claim"), c.at("reference"), c.at("evidence"),
                           c.at("holds").get<bool>() ? "yes" : "**no**"});
  }
  table(d, claims);

  const json& cases = r.at("sweep").at("cases");
  heading(d, "Sweep: every exact verifier on " + std::to_string(cases.size()) + " trees");
  paragraph(d,
            "Budgets, shapes and target families as listed in results.json (sweep.cases). Each "
            "verifier's blocks are "
            "completed and their (exit node, next token) counts tested with Pearson's chi-square "
            "against the canonical law "
            "(exactness family); E[L] below 1 + C_p (Chernoff bound under the exact law of L) and "
            "each node's acceptance "
            "against P(u) (exact binomial) form the saturation family; every verifier's exact law "
            "is also enumerated.");
  Table sweep{{"verifier", "kind", "verdict", "min Holm p exactness (chi2)",
               "min Holm p saturation (E[L], acceptance)", "tests", "mean L", "mean 1 + C_p",
               "max exact TV"},
              {}};
  for (const json& v : r.at("sweep").at("verifiers")) {
    sweep.rows.push_back({v.at("name"), v.at("kind"), v.at("verdict"),
                          num(v.at("min_exactness_p_holm").get<double>()),
                          num(v.at("min_saturation_p_holm").get<double>()),
                          std::to_string(v.at("exactness_tests").get<std::size_t>()) + " + " +
                              std::to_string(v.at("saturation_tests").get<std::size_t>()),
                          fixed(v.at("mean_L").get<double>()),
                          fixed(v.at("mean_ceiling").get<double>()),
                          num(v.at("max_exact_tv").get<double>())});
  }
  table(d, sweep);
  paragraph(d,
            "For the unsaturated verifiers the saturation tests reject by design (their mean "
            "length falls short), so their "
            "saturation p-value is ~0; their exactness rests on the chi-square tests and the "
            "enumeration (max exact TV).");
  figure(d, "figures/mean_length_vs_ceiling.png",
         "Mean emitted length L per (tree, verifier) with 95 % CI against 1 + C_p: saturated "
         "verifiers on the diagonal, unsaturated ones below.");
  figure(d, "figures/acceptance_vs_prefix.png",
         "Per-node acceptance rate against P(u) on " +
             r.at("acceptance_showcase").at("label").get<std::string>() + ".");

  heading(d, "Two-sample homogeneity");
  Table homog{{"pair", "trees", "min Holm p"}, {}};
  for (const json& h : r.at("homogeneity"))
    homog.rows.push_back({h.at("pair"), std::to_string(h.at("p_values").size()),
                          num(h.at("min_p_holm").get<double>())});
  table(d, homog);

  const json& cal = r.at("calibration");
  heading(d, "Calibration of the tests");
  paragraph(d, "Under true nulls (TEV and predraw are exact) the p-values of each test over " +
                   std::to_string(cal.at("seeds").get<std::uint32_t>()) + " independent seeds (" +
                   std::to_string(cal.at("samples").get<std::uint64_t>()) + " samples each, tree " +
                   cal.at("case").get<std::string>() +
                   ") must hold their level: the false-alarm rates at 0.05 and 0.01 may not exceed "
                   "the nominal ones (one-sided "
                   "binomial tests, which gate the calibration claim). A test whose p-value is a "
                   "bound (the Chernoff E[L] tests) or "
                   "discrete (binomial) is conservative, so its p-values are not uniform: the "
                   "Kolmogorov–Smirnov columns are descriptive. "
                   "Series marked descriptive gate nothing: the E[L] z-test on a tree whose "
                   "variance rests on a rare long path is "
                   "shown to say why the suite replaced it. Holm-adjusted minima are not uniform, "
                   "so they are not calibrated. The identity "
                   "test's p-value is the one a verdict held to levels 0.01 to 0.05 uses: below "
                   "100 times those levels it is made of "
                   "finite-sample bounds and a Monte Carlo p-value, each valid at every n, as it "
                   "is near the far smaller levels verdicts "
                   "use; being partly discrete, its KS column is descriptive too.");
  Table calt{
      {"test", "tree", "gates", "KS D", "KS p", "false alarms at 0.05", "false alarms at 0.01"},
      {}};
  for (const json& s : cal.at("series")) {
    calt.rows.push_back({s.at("test"), s.at("case"),
                         s.at("gates").get<bool>() ? "yes" : "descriptive",
                         num(s.at("ks_statistic").get<double>()), num(s.at("ks_p").get<double>()),
                         fixed(s.at("false_alarms_05").get<double>(), 3),
                         fixed(s.at("false_alarms_01").get<double>(), 3)});
  }
  table(d, calt);
  figure(d, "figures/pvalue_qq.png",
         "Raw p-values under the null against Uniform(0, 1) quantiles.");

  const json& pw = r.at("power");
  heading(d, "Power");
  paragraph(d,
            "Descriptive (gates no claim). One tree's chi-square at the level the sweep holds it "
            "to, alpha = " +
                num(pw.at("alpha").get<double>()) + ", on " + pw.at("case").get<std::string>() +
                "; predicted power from the non-central chi-square with the exact (enumerated) "
                "alternative law, spot-checked by "
                "Monte Carlo replicates (observed rejections / replicates at the budgets where the "
                "prediction is about 0.5, 0.9 and 0.99).");
  Table pt{{"alternative", "exact TV", "smallest budget for 99 %",
            "power at " + std::to_string(pw.at("default_budget").get<std::uint64_t>()),
            "spot checks (n: observed vs predicted)"},
           {}};
  auto add_curves = [&](const json& curves) {
    for (const json& c : curves) {
      std::string spots;
      for (const json& s : c.at("spot_checks")) {
        spots += "n=" + std::to_string(s.at("samples").get<std::uint64_t>()) + ": " +
                 std::to_string(s.at("rejections").get<int>()) + "/" +
                 std::to_string(s.at("replicates").get<int>()) + " vs " +
                 fixed(s.at("predicted").get<double>(), 2) + "; ";
      }
      if (!c.at("spot_check_note").get<std::string>().empty())
        spots += c.at("spot_check_note").get<std::string>();
      const auto n99 = c.at("budget_for_99").get<std::uint64_t>();
      pt.rows.push_back({c.at("name"), num(c.at("exact_tv").get<double>()),
                         n99 ? std::to_string(n99) : "none (analytic)",
                         fixed(c.at("power_at_default").get<double>(), 3), spots});
    }
  };
  add_curves(pw.at("mutants"));
  add_curves(pw.at("contamination"));
  table(d, pt);
  const json& tv = pw.at("smallest_detectable_tv");
  paragraph(d,
            "Contamination: the canonical law mixed with the bonus-from-full-row mutant's law at "
            "weight eps (analytic; "
            "Monte Carlo spot checks only where the 99 % budget is small enough to replicate). The "
            "smallest TV along this "
            "direction that one chi-square test at the default budget detects with 99 % power: " +
                (tv.is_number() ? num(tv.get<double>()) : std::string("none")) +
                "; its power against TV = 0.006 is " +
                fixed(pw.at("power_at_tv_0006").get<double>(), 3) +
                ". For comparison, a widely used engine's rejection-sampler test lets a bias of TV "
                "about 0.006 pass about half the time.");
  figure(d, "figures/power_curves.png",
         "Predicted power against sample count per mutant and contamination level; points are "
         "Monte Carlo spot checks with 95 % binomial intervals.");

  const json& comp = r.at("composition");
  heading(d, "Multi-round composition (Lemma 2)");
  paragraph(d, "Order-2 autoregressive target over V = " +
                   std::to_string(comp.at("config").at("vocab").get<int>()) +
                   ", a different drafter, DDTree budget " +
                   std::to_string(comp.at("config").at("budget").get<int>()) +
                   "; every sequence runs " +
                   std::to_string(comp.at("config").at("rounds").get<int>()) +
                   " rounds (or more until n tokens exist); the first n = " +
                   std::to_string(comp.at("config").at("tokens").get<int>()) + " tokens of " +
                   std::to_string(comp.at("config").at("sequences").get<std::uint64_t>()) +
                   " sequences are tested against the exact V^n law.");
  Table ct{{"verifier", "chi2", "dof", "p", "tokens per round", "mean 1 + C_p per round"}, {}};
  for (const json& c : comp.at("results")) {
    ct.rows.push_back({c.at("verifier"), fixed(c.at("chi2").get<double>(), 1),
                       std::to_string(c.at("dof").get<int>()), num(c.at("p_value").get<double>()),
                       fixed(c.at("tokens_per_round").get<double>()),
                       fixed(c.at("ceiling_per_round").get<double>())});
  }
  table(d, ct);
  figure(d, "figures/composition.png",
         "Composition: chi-square p-value per verifier (log scale, dashed: the per-verifier level) "
         "and tokens per round against the mean ceiling.");
  if (const json* sampled = optional_field(r, "sampled_drafts"))
    sampled_drafts_section(d, *sampled);
  return d;
}

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char ch : s) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

}  // namespace

ResultsKind results_kind(const json& results) {
  constexpr ResultsKind kinds[] = {ResultsKind::theorem1,
                                   ResultsKind::exittrain,
                                   ResultsKind::check,
                                   ResultsKind::sampled_check,
                                   ResultsKind::live,
                                   ResultsKind::live_sampled,
                                   ResultsKind::conformance,
                                   ResultsKind::conformance_model,
                                   ResultsKind::conformance_batch,
                                   ResultsKind::generation_check,
                                   ResultsKind::conformance_generation};
  std::string accepted;
  for (ResultsKind k : kinds)
    accepted += (accepted.empty() ? "" : ", ") + std::string(results_kind_name(k));
  const std::string why =
      "not a results file tevsuite report renders: it accepts the JSON of theorem1, exittrain "
      "--json, check --json, "
      "check --drafts sampled --json, check --generation --json, live --json, live --drafts "
      "sampled --json and conformance "
      "check|run --json, fixed-tree, model, batch or generation cases (\"kind\": " +
      accepted + ")";
  if (!results.is_object()) throw std::invalid_argument(why + "; this is not a JSON object");
  std::string name = results.value("kind", "");
  if (name.empty()) {  // written before "kind": the command says it, and check's drafts
    name = results.value("command", "");
    if (name == "check" && results.value("drafts", "") == "sampled")
      name = results_kind_name(ResultsKind::sampled_check);
  }
  for (ResultsKind k : kinds) {
    if (name == results_kind_name(k)) return k;
  }
  throw std::invalid_argument(
      why + "; this one says " +
      (name.empty() ? std::string("nothing (no \"kind\" or \"command\")") : "\"" + name + "\""));
}

RenderResult render_report(const json& results, const RenderOptions& options) {
  const ResultsKind kind = results_kind(results);
  RenderResult out;
  // First: an incomplete file must fail before anything is written.
  Document doc;
  std::vector<const char*> figures;
  switch (kind) {
    case ResultsKind::theorem1:
      doc = build(results);
      figures = {"mean_length_vs_ceiling.png", "acceptance_vs_prefix.png", "pvalue_qq.png",
                 "power_curves.png", "composition.png"};
      if (optional_field(results, "sampled_drafts") != nullptr)
        figures.push_back("sampled_drafts.png");  // results written before the section have none
      break;
    case ResultsKind::exittrain:
      doc = exittrain_document(results);
      break;  // its curves are tables; no figures
    case ResultsKind::check:
    case ResultsKind::live:
      doc = verifiers_document(results, kind == ResultsKind::live);
      figures = {"acceptance_vs_prefix.png"};
      break;
    case ResultsKind::conformance:
    case ResultsKind::conformance_batch:
      doc = conformance_document(results);
      figures = {"acceptance_vs_prefix.png"};
      break;
    case ResultsKind::sampled_check:
      doc = sampled_check_document(results);
      break;  // no fixed tree: no acceptance figure
    case ResultsKind::conformance_model:
      doc = model_conformance_document(results);
      break;  // likewise
    case ResultsKind::live_sampled:
      doc = live_sampled_document(results);
      break;  // a fresh tree per sample: no acceptance figure
    case ResultsKind::generation_check:
      doc = generation_check_document(results);
      break;  // whole generations: no tree, no acceptance figure
    case ResultsKind::conformance_generation:
      doc = generation_conformance_document(results);
      break;  // likewise
  }
  std::filesystem::create_directories(options.out_dir);
  const auto json_path = options.out_dir / "results.json";
  write_file(json_path, results.dump(1) + "\n");
  out.files.push_back(json_path);
  write_file(options.out_dir / "report.md", reports::markdown(doc));
  write_file(options.out_dir / "report.html",
             reports::html(doc, kind == ResultsKind::theorem1 ? "tevsuite: Theorem 1"
                                : kind == ResultsKind::exittrain
                                    ? "tevsuite: ExitTrain"
                                    : "tevsuite: " + std::string(results_kind_name(kind))));
  out.files.push_back(options.out_dir / "report.md");
  out.files.push_back(options.out_dir / "report.html");
  if (figures.empty()) return out;
  const std::filesystem::path script = plot_script();
  if (script.empty()) {
    out.warning = std::string(
                      "figures were not drawn: plot_figures.py is neither installed beside this "
                      "program nor in its source tree (") +
                  TEV_PLOT_SCRIPT_SOURCE + ")";
    return out;
  }
  std::filesystem::create_directories(options.out_dir / "figures");
  const std::string command = shell_quote(options.python) + " " + shell_quote(script.string()) +
                              " " + shell_quote(json_path.string()) + " " +
                              shell_quote((options.out_dir / "figures").string());
  const int status = std::system(command.c_str());
  if (status != 0) {
    out.warning = "figures were not drawn (" + command + " failed with status " +
                  std::to_string(status) +
                  "); install Debian's python3-matplotlib, or pass --python";
  } else {
    out.figure_script = script;
    for (const char* name : figures) out.files.push_back(options.out_dir / "figures" / name);
  }
  return out;
}

std::filesystem::path plot_script() {
  std::error_code error;
  const std::filesystem::path program = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) {
    const std::filesystem::path installed =
        (program.parent_path() / TEV_PLOT_SCRIPT_FROM_PROGRAM).lexically_normal();
    if (std::filesystem::exists(installed, error)) return installed;
  }
  if (std::filesystem::exists(TEV_PLOT_SCRIPT_SOURCE, error)) return TEV_PLOT_SCRIPT_SOURCE;
  return {};
}

}  // namespace tev::reports
