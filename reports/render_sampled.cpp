// The sampled drafts' documents of render_verdicts.hpp: `check --drafts sampled` and
// `live --drafts sampled`.
#include "reports/render_verdicts.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "reports/render_evidence.hpp"

namespace tev::reports {

namespace {

using nlohmann::json;

// JSON holds no infinity: a KL written as null is infinite (q misses mass p has).
std::string kl_text(const json& kl) {
  return kl.is_null() ? "infinite" : fixed(kl.get<double>(), 3);
}

}  // namespace

Document sampled_check_document(const json& r) {
  Document d;
  const json& cfg = r.at("config");
  const json& verifiers = r.at("verifiers");
  const json& pairs = r.at("language_pairs");
  const bool passed = r.at("passed").get<bool>();
  reports::heading(
      d, "tevsuite check --drafts sampled: q-based and target-only verifiers on sampled drafts");
  reports::paragraph(
      d, overall_line(passed) + "Drafts of depth D = " + count(cfg.at("depth")) +
             ", width k = " + count(cfg.at("width")) + " over V = " + count(cfg.at("vocab")) +
             "; every case runs on " + std::to_string(pairs.size()) + " language pairs with " +
             count(cfg.at("samples")) + " samples each, seed " + count(cfg.at("seed")) +
             ". Family-wise alpha " + num(cfg.at("alpha").get<double>()) +
             ": half for marginal exactness (one chi-square of the completed H-token law per case "
             "and pair, each at " +
             num(cfg.at("alpha_per_test").get<double>()) +
             " — the level at which power and detectable TV are stated), half for the "
             "E[L] consistency of sampler and enumeration. Exact enumeration decides beside "
             "sampling (tolerance " +
             num(cfg.at("exact_tolerance").get<double>()) + ").");

  reports::heading(d, "Verdict per case");
  Table vt{{"verifier @ drafting", "kind", "verdict", "conditionally exact", "marginally exact",
            "caught by enumeration", "caught by sampling", "as expected"},
           {}};
  for (const json& v : verifiers) {
    auto yes = [&](const char* key) {
      return v.at(key).get<bool>() ? std::string("yes") : std::string("no");
    };
    vt.rows.push_back({text(v, "name"), text(v, "kind"), text(v, "verdict"),
                       yes("conditional_exact"), yes("marginal_exact"),
                       yes("caught_by_enumeration"), yes("caught_by_sampling"),
                       v.at("as_expected").get<bool>() ? "yes" : "**no**"});
  }
  reports::table(d, vt);

  reports::heading(d, "Per case and language pair");
  reports::paragraph(d,
                     "Each case's chi-square on each pair at the per-test level. Power: the test's "
                     "predicted rejection rate there against the "
                     "case's exact (enumerated) law, so for an exact case it is the level itself. "
                     "Detectable TV: the smallest TV along the "
                     "case's own direction from p's law that the test detects with 99 % power "
                     "(none: the case is exact, or not even its whole "
                     "deviation is detected that often — enumeration catches those).");
  Table pt{{"verifier @ drafting", "pair", "chi2 (dof)", "p", "power at the level",
            "detectable TV at 99 %", "exact TV", "max TV given a tree", "exact E[L]", "mean L"},
           {}};
  for (const json& v : verifiers) {
    const json& per_pair = v.at("per_pair");
    for (std::size_t i = 0; i < per_pair.size(); ++i) {
      const json& p = per_pair[i];
      pt.rows.push_back(
          {text(v, "name"), std::to_string(i),
           fixed(p.at("chi_square").get<double>(), 1) + " (" +
               std::to_string(p.at("dof").get<int>()) + ")",
           num(p.at("p_value").get<double>()), fixed(p.at("predicted_power").get<double>(), 3),
           tv_text(p.at("smallest_detectable_tv")), num(p.at("exact_tv").get<double>()),
           num(p.at("conditional_max_tv").get<double>()), fixed(p.at("exact_mean_L").get<double>()),
           fixed(p.at("mean_L").get<double>())});
    }
  }
  reports::table(d, pt);
  Table pairs_table{{"pair", "language pair", "KL(p || q)"}, {}};
  for (std::size_t i = 0; i < pairs.size(); ++i)
    pairs_table.rows.push_back(
        {std::to_string(i), text(pairs[i], "label"), kl_text(pairs[i].at("draft_kl"))});
  reports::table(d, pairs_table);

  // A case's pair with the smallest chi-square p: where its law lies farthest from p's.
  auto worst_pair = [](const json& v) {
    const json& per_pair = v.at("per_pair");
    std::size_t best = 0;
    for (std::size_t i = 1; i < per_pair.size(); ++i) {
      if (per_pair[i].at("p_value").get<double>() < per_pair[best].at("p_value").get<double>())
        best = i;
    }
    return best;
  };
  reports::heading(d, "First failing case");
  const auto failing = std::find_if(verifiers.begin(), verifiers.end(),
                                    [](const json& v) { return !v.at("as_expected").get<bool>(); });
  const auto caught = std::find_if(verifiers.begin(), verifiers.end(),
                                   [](const json& v) { return text(v, "verdict") == "not exact"; });
  const auto shown = failing != verifiers.end() ? failing : caught;
  if (shown == verifiers.end()) {
    reports::paragraph(d, "None: every verdict is the one its kind calls for.");
  } else {
    const std::size_t i = worst_pair(*shown);
    const json& p = shown->at("per_pair").at(i);
    reports::paragraph(
        d, (failing != verifiers.end()
                ? "**" + text(*shown, "name") + "** (" + text(*shown, "kind") + ") is judged **" +
                      text(*shown, "verdict") + "**, which is not what its kind calls for."
                : "None: every verdict is the one its kind calls for. How a catch looks: the first "
                  "case judged not exact, **" +
                      text(*shown, "name") + "** (" + text(*shown, "kind") + ").") +
               " On pair " + std::to_string(i) + " (" + text(pairs.at(i), "label") +
               "): chi-square " + fixed(p.at("chi_square").get<double>(), 2) + " on " +
               std::to_string(p.at("dof").get<int>()) +
               " dof, p = " + num(p.at("p_value").get<double>()) + " against the per-test level " +
               num(cfg.at("alpha_per_test").get<double>()) + ", " + count(p.at("impossible")) +
               " impossible sequence(s); predicted power " +
               fixed(p.at("predicted_power").get<double>(), 3) + "; enumeration: marginal TV " +
               num(p.at("exact_tv").get<double>()) +
               " from p's H-token law, largest TV given one realized tree " +
               num(p.at("conditional_max_tv").get<double>()) + " over " +
               count(p.at("realized_trees")) + " trees; exact E[L] " +
               fixed(p.at("exact_mean_L").get<double>()) + ", measured " +
               fixed(p.at("mean_L").get<double>()) + ".");
    Table dev{deviation_header({}), {}};
    deviation_rows(dev, p, {}, kAllDeviations, true);
    if (!dev.rows.empty()) reports::table(d, dev);
  }

  reports::heading(d, "Largest standardized deviations");
  reports::paragraph(d,
                     "Standardized deviation (observed - expected) / sqrt(expected) of each "
                     "chi-square bin of the completed H-token law, binned as the "
                     "test bins them (sequences expecting fewer than 5 samples pool by their first "
                     "H - 1 tokens); impossible sequences first. "
                     "Shown for each case on its pair with the smallest p. Descriptive: the "
                     "verdict rests on the tests above.");
  Table dev{deviation_header({"verifier @ drafting", "pair"}), {}};
  for (const json& v : verifiers) {
    const std::size_t i = worst_pair(v);
    const json& p = v.at("per_pair").at(i);
    deviation_rows(dev, p, {text(v, "name"), std::to_string(i)}, kDeviationsPerSubject, true);
  }
  deviation_table(d, std::move(dev));

  reports::heading(d, "Per-node acceptance");
  reports::paragraph(d,
                     "Not applicable: every round drafts a new tree from q, so no node has one "
                     "P(u) to hold its acceptance to. Its place is taken by "
                     "conditional exactness (the largest TV given one realized tree, by "
                     "enumeration) and, per realized tree, E[L | T] against "
                     "1 + C_p(T) (Theorem 1).");
  return d;
}

Document live_sampled_document(const json& r) {
  Document d;
  const json& cfg = r.at("config");
  const bool passed = r.at("passed").get<bool>();
  std::string drafters;
  for (const json& name : r.at("drafters"))
    drafters += (drafters.empty() ? "" : ", ") + name.get<std::string>();
  reports::heading(d,
                   "tevsuite live --drafts sampled: q-based verifiers and TEV on trees sampled "
                   "from a live drafter");
  reports::paragraph(
      d, overall_line(passed) + "Target: " + text(r, "target") + "; drafters " + drafters +
             ", each row cut to its top " + count(cfg.at("top_k")) +
             " words. First word: " + count(cfg.at("first_word_samples")) +
             " samples per case, each on a freshly drafted tree of depth " +
             count(cfg.at("first_word_depth")) + ", width " + count(cfg.at("draft_width")) +
             ", against the target's next-word row (Pearson chi-square, "
             "each at " +
             num(cfg.at("chi_square_level").get<double>()) + "). Seed " + count(cfg.at("seed")) +
             ", family-wise alpha " + num(cfg.at("alpha").get<double>()) +
             ": half for the first word, half for TEV's tokens per round.");

  reports::heading(d, "Verdict per case");
  reports::paragraph(
      d,
      "TV at 99 %: every first-word law at least this far from the target row, in any direction, "
      "tails included, is rejected by the identity test with 99 % power "
      "at its level; above the policy's limit the case is inconclusive. Exact TV: the first word's "
      "exact law over the root's drafts and tests "
      "('-': target-only, exact on every tree); power: of the chi-square at its level against that "
      "law.");
  Table vt{{"drafter", "verifier @ drafting", "kind", "chi2 (dof)", "p", "TV at 99 %", "exact TV",
            "power", "verdict", "caught by sampling", "as expected"},
           {}};
  for (const json& f : r.at("first_word")) {
    const bool has_law = !f.at("exact_tv").is_null();
    vt.rows.push_back({text(f, "drafter"), text(f, "case"), text(f, "kind"),
                       fixed(f.at("chi2").get<double>(), 1) + " (" + count(f.at("dof")) + ")",
                       num(f.at("p").get<double>()), tv_text(f.at("detectable_tv")),
                       has_law ? num(f.at("exact_tv").get<double>()) : "-",
                       has_law ? fixed(f.at("predicted_power").get<double>(), 3) : "-",
                       text(f, "verdict"), f.at("caught_by_sampling").get<bool>() ? "yes" : "no",
                       f.at("as_expected").get<bool>() ? "yes" : "**no**"});
  }
  reports::table(d, vt);

  reports::heading(d, "Tokens per round on the same sampled trees");
  reports::paragraph(d, "Each round's drafted tree verified " + count(cfg.at("draws_per_round")) +
                            " times by TEV and by the q-based verifier, " +
                            count(cfg.at("rounds")) +
                            " rounds per drafter and policy (TEV's text advances); mean and "
                            "standard error over rounds. "
                            "TEV's exact E[L | T] = 1 + C_p(T) beside it; TEV p: its sum against "
                            "the rounds' exact length laws (Holm at alpha/2).");
  Table rt{{"drafter", "drafting", "TEV", "1 + C_p", "q-based verifier", "tokens per round",
            "q-based - TEV", "TEV p", "TEV holds"},
           {}};
  auto pm = [](const json& c, const char* mean, const char* se) {
    return fixed(c.at(mean).get<double>(), 3) + " ± " + fixed(c.at(se).get<double>(), 3);
  };
  for (const json& c : r.at("rounds")) {
    rt.rows.push_back({text(c, "drafter"), text(c, "drafting"), pm(c, "tev_mean", "tev_se"),
                       fixed(c.at("mean_ceiling").get<double>(), 3), text(c, "q_verifier"),
                       pm(c, "q_mean", "q_se"), pm(c, "difference_mean", "difference_se"),
                       num(c.at("tev_p").get<double>()),
                       c.at("tev_holds").get<bool>() ? "yes" : "**no**"});
  }
  reports::table(d, rt);

  reports::heading(d, "Per-node acceptance");
  reports::paragraph(d,
                     "Not applicable: every first-word sample drafts a new tree from q, so no node "
                     "has one P(u) to hold its acceptance to.");
  return d;
}

}  // namespace tev::reports
