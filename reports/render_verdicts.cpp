#include "reports/render_verdicts.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "reports/optional_field.hpp"
#include "reports/render_evidence.hpp"
#include "stats/iid_assumption.hpp"

namespace tev::reports {

namespace {

using nlohmann::json;

constexpr std::size_t kAcceptanceNodes = 3;  // nodes shown for the first failing case

// What a case's sampling guarantees: the largest TV@99% of its identity test and its tests of
// independence ("stated_tv"); files written before it was recorded give the identity test's.
std::string stated_tv_text(const json& c) {
  const json* stated = optional_field(c, "stated_tv");
  return tv_text(stated != nullptr ? *stated : c.at("detectable_tv"));
}

constexpr const char* kDeviationNote =
    "Standardized deviation (observed - expected) / sqrt(expected) of each chi-square bin, binned "
    "exactly as the test bins "
    "them (a cell expecting fewer than 5 samples pools into its exit node's tail; the squares add "
    "up to the chi-square "
    "statistic). Cells of zero target probability that received samples are listed first: one such "
    "sample is proof of "
    "inexactness. Descriptive: the verdict rests on the tests above.";

struct NodeAcceptance {
  std::size_t node = 0;
  double prefix = 0.0, rate = 0.0, z = 0.0;
};

// Each non-root node's acceptance rate against P(u) (prefix: the tree's, null in older files),
// with the binomial z (descriptive: the exact binomial test gates), largest |z| first.
std::vector<NodeAcceptance> acceptance_by_deviation(const json& e, const json& prefix) {
  std::vector<NodeAcceptance> out;
  const double n = static_cast<double>(e.at("samples").get<std::uint64_t>());
  const json* accepted_field = optional_field(e, "accepted");
  if (n == 0.0 || !prefix.is_array() || accepted_field == nullptr) return out;
  const json& accepted = *accepted_field;
  for (std::size_t u = 1; u < prefix.size() && u < accepted.size(); ++u) {
    const double p = prefix[u].get<double>(),
                 k = static_cast<double>(accepted[u].get<std::uint64_t>());
    const double sd = std::sqrt(n * p * (1.0 - p));
    const double gap = k - n * p;
    const double z = sd > 0.0 ? gap / sd
                     : std::abs(gap) < 0.5
                         ? 0.0
                         : std::copysign(std::numeric_limits<double>::infinity(), gap);
    out.push_back({u, p, k / n, z});
  }
  std::stable_sort(out.begin(), out.end(), [](const NodeAcceptance& a, const NodeAcceptance& b) {
    return std::abs(a.z) > std::abs(b.z);
  });
  return out;
}

// One tree's evidence in words: what the verdict rests on, test by test, then its farthest bins and
// the nodes whose acceptance lies farthest from P(u). policy: the levels (may be null in older files).
void spell_out(Document& d, const json& e, const json& prefix, const json& policy) {
  const bool has_policy = policy.is_object();
  const std::string half =
      has_policy ? num(policy.at("exactness_alpha").get<double>()) : std::string("alpha/2");
  std::string s =
      "Verdict **" + text(e, "verdict") + "** on " + count(e.at("samples")) + " samples. ";
  const auto invalid =
      e.at("invalid").get<std::uint64_t>() + e.at("impossible").get<std::uint64_t>();
  if (invalid > 0) {
    s += std::to_string(invalid) +
         " sample(s) fell where the target puts no mass (an invalid path, or a bonus of zero "
         "probability): "
         "not exact at once, whatever the p-values";
    if (!text(e, "first_impossible").empty()) s += " (first: " + text(e, "first_impossible") + ")";
    s += ". ";
  }
  s += "Exactness: chi-square " + fixed(e.at("chi2").get<double>(), 2) + " on " +
       std::to_string(e.at("dof").get<int>()) + " dof, p = " + num(e.at("chi2_p").get<double>()) +
       "; Holm-adjusted over the exactness family " + num(e.at("exactness_p_holm").get<double>()) +
       (e.at("exactness_p_holm").get<double>() <
                (has_policy ? policy.at("exactness_alpha").get<double>() : 0.0)
            ? " < "
            : " against ") +
       half + ". Saturation: mean L " + fixed(e.at("mean_L").get<double>()) +
       " against 1 + C_p = " + fixed(e.at("ceiling").get<double>()) +
       " (shortfall p = " + num(e.at("shortfall_p").get<double>()) + "), " +
       count(e.at("completions")) +
       " block(s) ending on a drafted child's token (one proves non-saturation); Holm-adjusted "
       "over the saturation family " +
       num(e.at("saturation_p_holm").get<double>()) +
       ". Power: every law at least this far from the canonical one, in any direction, tails "
       "included, is rejected by this case's identity test with " +
       (has_policy ? num(100.0 * policy.at("required_power").get<double>()) : std::string("99")) +
       " % power at its level" +
       (has_policy ? " " + num(policy.at("chi_square_level").get<double>()) : std::string()) +
       " is TV " + tv_text(e.at("detectable_tv")) +
       (e.at("powered").get<bool>()
            ? ""
            : " — too weak to call it exact, hence inconclusive unless a test rejects");
  if (optional_field(e, "exact_tv") != nullptr) {
    s += "; exact enumeration: TV " + num(e.at("exact_tv").get<double>()) +
         " from the canonical law, exact E[L] " + fixed(e.at("exact_mean_L").get<double>()) +
         ", predicted power of this chi-square against the exact law " +
         fixed(e.at("predicted_power").get<double>(), 3);
  }
  reports::paragraph(d, s + ".");
  Table dev{deviation_header({}), {}};
  deviation_rows(dev, e, {}, kAllDeviations, false);
  if (!dev.rows.empty()) reports::table(d, dev);
  const std::vector<NodeAcceptance> nodes = acceptance_by_deviation(e, prefix);
  if (nodes.empty()) return;
  Table acc{{"node", "P(u)", "acceptance rate", "binomial z (descriptive)"}, {}};
  for (std::size_t i = 0; i < nodes.size() && i < kAcceptanceNodes; ++i) {
    acc.rows.push_back({std::to_string(nodes[i].node), fixed(nodes[i].prefix), fixed(nodes[i].rate),
                        fixed(nodes[i].z, 2)});
  }
  reports::paragraph(d,
                     "The nodes whose acceptance rate lies farthest from P(u) (the saturation "
                     "family's exact binomial tests gate; z is shown to rank them):");
  reports::table(d, acc);
}

// The per-node acceptance section: what it tests, and the figure over every node of every `what`.
void acceptance_section(Document& d, const std::string& what) {
  reports::heading(d, "Per-node acceptance against P(u)");
  reports::paragraph(d,
                     "Node u is accepted when the returned exit lies in u's subtree; an exact "
                     "saturated verifier accepts it with probability P(u), the "
                     "target's probability of u's prefix (Theorem 1). The saturation family tests "
                     "every node with an exact binomial test.");
  reports::figure(
      d, "figures/acceptance_vs_prefix.png",
      "Per-node acceptance rate against P(u), every node of every " + what +
          " (a saturated exact verifier sits on the diagonal; an unsaturated one below it).");
}

// The worst of a verifier's trees: the one its verdict comes from, with the smallest exactness p.
std::size_t deciding_tree(const json& v) {
  const json& trees = v.at("per_tree");
  std::size_t best = 0;
  for (std::size_t i = 0; i < trees.size(); ++i) {
    const json& t = trees[i];
    const json& b = trees[best];
    const bool verdict_i = text(t, "verdict") == text(v, "verdict"),
               verdict_b = text(b, "verdict") == text(v, "verdict");
    if ((verdict_i && !verdict_b) ||
        (verdict_i == verdict_b &&
         t.at("exactness_p_holm").get<double>() < b.at("exactness_p_holm").get<double>()))
      best = i;
  }
  return best;
}

std::string tree_label(const json& trees, std::size_t i, bool live) {
  if (!trees.is_array() || i >= trees.size()) return "tree " + std::to_string(i);
  const json& t = trees[i];
  std::string s = "tree " + std::to_string(i) + ": " + text(t, "label");
  if (live) s += " (" + text(t, "builder") + " from " + text(t, "drafter") + ")";
  return s;
}

// P(u) of tree i, recorded once per tree (null in files written before it was).
json tree_prefix(const json& trees, std::size_t i) {
  const json* prefix = i < trees.size() ? optional_field(trees[i], "prefix") : nullptr;
  return prefix != nullptr ? *prefix : json();
}

}  // namespace

Document verifiers_document(const json& r, bool live) {
  Document d;
  const json& cfg = r.at("config");
  const json& verifiers = r.at("verifiers");
  const json* listed_trees = optional_field(r, "trees");
  const json trees = listed_trees != nullptr ? *listed_trees : json::array();
  const json* policy_field = optional_field(cfg, "verdict_policy");
  const json policy = policy_field != nullptr ? *policy_field : json();
  const bool passed = r.at("passed").get<bool>();
  reports::heading(d, std::string(live ? "tevsuite live" : "tevsuite check") +
                          ": every verifier against the canonical law");
  std::string intro =
      overall_line(passed) + std::to_string(verifiers.size()) + " verifiers on " +
      std::to_string(trees.size()) + (live ? " live" : " synthetic") + " tree(s), " +
      count(cfg.at("samples")) + " samples per tree (fast-path verifiers" +
      (live ? ", " + count(cfg.at("chooser_samples")) + " for the others" : std::string()) +
      "), seed " + count(cfg.at("seed")) + ", family-wise alpha " +
      num(cfg.at("alpha").get<double>());
  if (policy.is_object()) {
    intro += ": " + num(policy.at("alpha").get<double>()) +
             " per verifier, half for exactness (Holm over its chi-square tests, one per tree) and "
             "half for "
             "saturation (Holm over its E[L] and per-node acceptance tests); each tree's "
             "chi-square is held to " +
             num(policy.at("chi_square_level").get<double>()) +
             ", the level at which TV@99% is stated";
  }
  if (live && optional_field(r, "target") != nullptr) intro += ". Target: " + text(r, "target");
  reports::paragraph(d, intro + ". Run time " + fixed(r.at("seconds").get<double>(), 1) + " s.");

  reports::heading(d, "Verdict per verifier");
  Table vt{{"verifier", "kind", "verdict", "as expected", "min Holm p exactness",
            "min Holm p saturation", "TV@99% (weakest tree)", "max exact TV", "power (exact law)",
            "caught by"},
           {}};
  for (const json& v : verifiers) {
    double worst = 0.0;
    bool none = false;
    for (const json& t : v.at("per_tree")) {
      if (t.at("detectable_tv").is_null())
        none = true;
      else
        worst = std::max(worst, t.at("detectable_tv").get<double>());
    }
    vt.rows.push_back(
        {text(v, "name"), text(v, "kind"), text(v, "verdict"),
         v.at("as_expected").get<bool>() ? "yes" : "**no**",
         num(v.at("min_exactness_p_holm").get<double>()),
         num(v.at("min_saturation_p_holm").get<double>()), none ? "none" : num(worst),
         v.at("enumerated").get<bool>() ? num(v.at("max_exact_tv").get<double>()) : "-",
         optional_field(v, "predicted_power") != nullptr && v.at("enumerated").get<bool>()
             ? fixed(v.at("predicted_power").get<double>(), 3)
             : "-",
         optional_field(v, "caught_by") != nullptr ? text(v, "caught_by") : "-"});
  }
  reports::table(d, vt);

  reports::heading(d, "Verdict per tree");
  reports::paragraph(d,
                     "Every (verifier, tree): chi-square of the completed (exit node, next token) "
                     "law against the canonical law, its Holm-adjusted p "
                     "in the verifier's exactness family, the smallest Holm p of the tree's "
                     "saturation tests, TV@99% (the smallest "
                     "contamination the tree's chi-square detects with 99 % power at its level; "
                     "none: no TV is) and, where enumerated, "
                     "the exact TV and the chi-square's predicted power against the exact law.");
  Table tt{{"verifier", "tree", "samples", "chi2 (dof)", "p", "Holm p exactness",
            "Holm p saturation", "TV@99%", "exact TV", "power", "mean L", "1 + C_p", "verdict"},
           {}};
  for (const json& v : verifiers) {
    const json& per_tree = v.at("per_tree");
    for (std::size_t i = 0; i < per_tree.size(); ++i) {
      const json& t = per_tree[i];
      tt.rows.push_back(
          {text(v, "name"), std::to_string(i), count(t.at("samples")),
           fixed(t.at("chi2").get<double>(), 1) + " (" + std::to_string(t.at("dof").get<int>()) +
               ")",
           num(t.at("chi2_p").get<double>()), num(t.at("exactness_p_holm").get<double>()),
           num(t.at("saturation_p_holm").get<double>()), tv_text(t.at("detectable_tv")),
           optional_field(t, "exact_tv") != nullptr ? num(t.at("exact_tv").get<double>()) : "-",
           optional_field(t, "predicted_power") != nullptr
               ? fixed(t.at("predicted_power").get<double>(), 3)
               : "-",
           fixed(t.at("mean_L").get<double>()), fixed(t.at("ceiling").get<double>()),
           text(t, "verdict")});
    }
  }
  reports::table(d, tt);
  Table labels{{"tree", "nodes", "1 + C_p"}, {}};
  for (std::size_t i = 0; i < trees.size(); ++i) {
    labels.rows.push_back({tree_label(trees, i, live), count(trees[i].at("nodes")),
                           fixed(trees[i].at("ceiling").get<double>())});
  }
  reports::table(d, labels);

  reports::heading(d, "First failing case");
  const auto failing = std::find_if(verifiers.begin(), verifiers.end(),
                                    [](const json& v) { return !v.at("as_expected").get<bool>(); });
  const auto caught = std::find_if(verifiers.begin(), verifiers.end(),
                                   [](const json& v) { return text(v, "verdict") == "not exact"; });
  if (failing != verifiers.end()) {
    const std::size_t i = deciding_tree(*failing);
    reports::paragraph(d, "**" + text(*failing, "name") + "** (" + text(*failing, "kind") + ", " +
                              text(*failing, "description") + ") is judged **" +
                              text(*failing, "verdict") +
                              "**, which is not what its kind calls for. Its deciding tree is " +
                              tree_label(trees, i, live) + ".");
    spell_out(d, failing->at("per_tree").at(i), tree_prefix(trees, i), policy);
  } else if (caught != verifiers.end()) {
    const std::size_t i = deciding_tree(*caught);
    reports::paragraph(d,
                       "None: every verdict is the one its kind calls for. How a catch looks: the "
                       "first verifier judged not exact, **" +
                           text(*caught, "name") + "** (" + text(*caught, "kind") + ", " +
                           text(*caught, "description") + "), on " + tree_label(trees, i, live) +
                           ".");
    spell_out(d, caught->at("per_tree").at(i), tree_prefix(trees, i), policy);
  } else {
    reports::paragraph(d, "None: every verdict is the one its kind calls for.");
  }

  reports::heading(d, "Largest standardized deviations");
  reports::paragraph(d, std::string(kDeviationNote) +
                            " Shown for each verifier on its deciding tree (the one its verdict "
                            "comes from, smallest exactness p).");
  Table dev{deviation_header({"verifier", "tree"}), {}};
  for (const json& v : verifiers) {
    const std::size_t i = deciding_tree(v);
    deviation_rows(dev, v.at("per_tree").at(i), {text(v, "name"), std::to_string(i)},
                   kDeviationsPerSubject, false);
  }
  deviation_table(d, std::move(dev));

  acceptance_section(d, "tree, per verifier");
  return d;
}

// Every case's tests of independence (stats/iid_assumption.hpp), one row per test: what each
// counted, its p-value and its worst-direction guarantee. Files written before the tests ran, or
// whose cases had none, add nothing.
// One row per test of independence of every subject that lists them (a case, or a pair of a
// batch's requests), the subject named by its field `id_field` under the heading `subject`.
Table iid_table(const json& subjects, const char* id_field, const std::string& subject) {
  Table t{{subject, "test", "samples or pairs", "chi2 (dof)", "p", "TV@99%"}, {}};
  for (const json& c : subjects) {
    const json* tests = optional_field(c, "iid_tests");
    if (tests == nullptr) continue;
    for (const json& test : *tests) {
      t.rows.push_back({text(c, id_field), text(test, "test"), count(test.at("samples")),
                        fixed(test.at("chi2").get<double>(), 1) + " (" +
                            std::to_string(test.at("dof").get<int>()) + ")",
                        num(test.at("p").get<double>()), tv_text(test.at("detectable_tv"))});
    }
  }
  return t;
}

void iid_section(Document& d, const json& cases) {
  const Table t = iid_table(cases, "case_id", "case");
  if (t.rows.empty()) return;
  reports::heading(d, "Tests of independence");
  reports::paragraph(
      d,
      "Per case, in sample order: each half of its sample stream against the canonical law over "
      "its pair bins (the case's cells cut, in cell "
      "order, into at most " +
          std::to_string(stats::kPairBins) + " bins), and for every lag l from 1 to " +
          std::to_string(stats::kSerialLags) +
          " the joint law of the bins of samples i and i + l against the product of the "
          "canonical law with itself, at two phases (i mod 2l < l, then i mod 2l >= l; at lag 1 "
          "the pairs (2k, 2k+1) and (2k+1, 2k+2)): the pairs of one phase are disjoint, so "
          "under independence they are i.i.d. and the identity test applies. Each test sits in "
          "the case's exactness p-value; TV@99% is its worst-direction guarantee at its level, "
          "and a case is exact only where every one of them is at most the policy's TV. "
          "Dependence more than " +
          std::to_string(stats::kSerialLags) + " samples apart is not tested.");
  reports::table(d, t);
}

Document model_conformance_document(const json& r) {
  Document d;
  const json& policy = r.at("policy");
  const json& cases = r.at("cases");
  reports::heading(
      d, "Conformance model cases: an outside drafter and verifier against the target's law");
  reports::paragraph(
      d,
      "Overall verdict: **" + text(r, "overall") + "** (exit " +
          std::to_string(r.at("exit_code").get<int>()) + "). " + std::to_string(cases.size()) +
          " model cases: the verifier drafts from q and verifies itself, every block is completed "
          "with p to the horizon H = D + 1 and the H-token sequences are tested against p's "
          "H-token law (marginal exactness). "
          "Family-wise alpha " +
          num(policy.at("alpha").get<double>()) + ": " +
          num(policy.at("exactness_alpha").get<double>()) + " for marginal exactness (Holm over " +
          count(r.at("exactness_tests")) +
          " cases, each the identity test and, where the file lists them, the tests of "
          "independence below); each case is held to " +
          num(policy.at("chi_square_level").get<double>()) +
          " (Bonferroni), where TV@99% is the worst-direction guarantee: every law that far, tails "
          "included, is rejected with " +
          num(100.0 * policy.at("required_power").get<double>()) +
          " % power; a case that cannot guarantee TV " +
          num(policy.at("max_detectable_tv").get<double>()) +
          " is inconclusive. Saturation does not apply (no fixed tree, no "
          "1 + C_p, no P(u)): mean L and the reference E[L] of the suite's own exact verifier for "
          "the drafting hint are descriptive.");
  reports::heading(d, "Verdict per case");
  Table ct{{"case", "what it exercises", "drafting hint", "samples", "impossible", "chi2 (dof)",
            "p", "Holm p exactness", "TV@99%", "mean L", "reference E[L]", "verdict"},
           {}};
  for (const json& c : cases) {
    const json& reference = c.at("reference_mean_L");
    ct.rows.push_back(
        {text(c, "case_id"), text(c, "label"), text(c, "drafting"), count(c.at("samples")),
         count(c.at("impossible")),
         fixed(c.at("chi_square").get<double>(), 1) + " (" +
             std::to_string(c.at("dof").get<int>()) + ")",
         num(c.at("p_value").get<double>()), num(c.at("exactness_p_holm").get<double>()),
         stated_tv_text(c), fixed(c.at("mean_L").get<double>()),
         reference.is_null() ? "-" : fixed(reference.get<double>()), text(c, "verdict")});
  }
  reports::table(d, ct);
  iid_section(d, cases);
  reports::heading(d, "First failing case");
  const std::string first = text(r, "first_failing_case");
  const auto failing = std::find_if(cases.begin(), cases.end(),
                                    [&](const json& c) { return text(c, "case_id") == first; });
  if (first.empty() || failing == cases.end()) {
    reports::paragraph(d, "None: every case is exact (marginally).");
  } else {
    const json& c = *failing;
    reports::paragraph(d, "Case **" + first + "** (" + text(c, "label") + ", drafting hint " +
                              text(c, "drafting") + "): verdict **" + text(c, "verdict") +
                              "** on " + count(c.at("samples")) + " samples. Chi-square " +
                              fixed(c.at("chi_square").get<double>(), 2) + " on " +
                              std::to_string(c.at("dof").get<int>()) +
                              " dof, p = " + num(c.at("p_value").get<double>()) +
                              "; Holm-adjusted over the exactness family " +
                              num(c.at("exactness_p_holm").get<double>()) + "; " +
                              count(c.at("impossible")) + " impossible block(s)" +
                              (text(c, "first_impossible").empty()
                                   ? ""
                                   : " (first: " + text(c, "first_impossible") + ")") +
                              ".");
  }
  return d;
}

Document conformance_document(const json& r) {
  Document d;
  const json& policy = r.at("policy");
  const json& cases = r.at("cases");
  reports::heading(d, "Conformance: an outside verifier against the canonical law");
  reports::paragraph(
      d, "Overall verdict: **" + text(r, "overall") + "** (exit " +
             std::to_string(r.at("exit_code").get<int>()) + "). " + std::to_string(cases.size()) +
             " cases; family-wise alpha " + num(policy.at("alpha").get<double>()) + ": " +
             num(policy.at("exactness_alpha").get<double>()) + " for exactness (Holm over " +
             count(r.at("exactness_tests")) + " chi-square tests, one per case), " +
             num(policy.at("saturation_alpha").get<double>()) + " for saturation (Holm over " +
             count(r.at("saturation_tests")) +
             " E[L] and per-node acceptance tests). Each case's chi-square is held to " +
             num(policy.at("chi_square_level").get<double>()) +
             " (Bonferroni); TV@99% is the worst-direction guarantee: every law at least "
             "that far from the canonical one, tails included, is rejected by its identity test "
             "(and, where the file lists them, every half's law or pair law at lags 1 to " +
             std::to_string(stats::kSerialLags) +
             " that far from the canonical law or the product by its tests of independence) "
             "with " +
             num(100.0 * policy.at("required_power").get<double>()) +
             " % power there, and a case that cannot guarantee TV " +
             num(policy.at("max_detectable_tv").get<double>()) + " is inconclusive.");

  reports::heading(d, "Verdict per case");
  Table ct{{"case", "what it exercises", "samples", "impossible", "in-tree bonus", "chi2 (dof)",
            "p", "Holm p exactness", "Holm p saturation", "mean L", "1 + C_p", "TV@99%", "verdict"},
           {}};
  for (const json& c : cases) {
    ct.rows.push_back(
        {text(c, "case_id"), text(c, "label"), count(c.at("samples")), count(c.at("invalid")),
         count(c.at("completions")),
         fixed(c.at("chi2").get<double>(), 1) + " (" + std::to_string(c.at("dof").get<int>()) + ")",
         num(c.at("chi2_p").get<double>()), num(c.at("exactness_p_holm").get<double>()),
         num(c.at("saturation_p_holm").get<double>()), fixed(c.at("mean_L").get<double>()),
         fixed(c.at("ceiling").get<double>()), stated_tv_text(c), text(c, "verdict")});
  }
  reports::table(d, ct);
  iid_section(d, cases);

  // Batch cases: the cases are the batches' requests, and every pair of a batch's requests is
  // tested for independence within a round.
  const json no_pairs = json::array();
  const json* listed_pairs = optional_field(r, "pairs");
  const json& pairs = listed_pairs != nullptr ? *listed_pairs : no_pairs;
  if (listed_pairs != nullptr) {
    reports::heading(d, "Independence of the requests within a round");
    reports::paragraph(d,
                       "Per pair of a batch's requests: the joint law of their completed blocks "
                       "(exit node and bonus, each request's cells "
                       "in at most " +
                           std::to_string(stats::kPairBins) +
                           " bins in cell order) in one round against the product of their "
                           "canonical laws (identity test over "
                           "the pairs of bins), in the exactness family with the requests. A "
                           "dependent pair is a leak: one request reading "
                           "another's rows or uniforms, for its exit node or only for its bonus.");
    Table pt{{"pair", "rounds", "chi2 (dof)", "p", "Holm p exactness", "TV@99%", "finding"}, {}};
    for (const json& p : pairs) {
      pt.rows.push_back({text(p, "pair"), count(p.at("rounds")),
                         fixed(p.at("chi2").get<double>(), 1) + " (" +
                             std::to_string(p.at("dof").get<int>()) + ")",
                         num(p.at("chi2_p").get<double>()),
                         num(p.at("exactness_p_holm").get<double>()), stated_tv_text(p),
                         text(p, "finding")});
    }
    reports::table(d, pt);
    // Files written before the tests across rounds ran have no such tests: the table is empty.
    if (const Table lagged = iid_table(pairs, "pair", "pair"); !lagged.rows.empty()) {
      reports::heading(d, "Independence of the requests across rounds");
      reports::paragraph(
          d, "Per pair of a batch's requests, for every lag l from 1 to " +
                 std::to_string(stats::kSerialLags) +
                 " and in either order: the joint law of one request's block in round r and the "
                 "other's in round r + l (in the same bins) against the product of their "
                 "canonical laws. Each pair of rounds holds two blocks no other pair of its test "
                 "holds, so under independence they are i.i.d. and the identity test applies; the "
                 "tests sit in the pair's exactness p-value beside the test within a round. A "
                 "dependent pair here is a request reading another's generator state a round or "
                 "more later.");
      reports::table(d, lagged);
    }
  }

  reports::heading(d, "First failing case");
  const std::string first = text(r, "first_failing_case");
  const auto failing = std::find_if(cases.begin(), cases.end(),
                                    [&](const json& c) { return text(c, "case_id") == first; });
  const auto failing_pair = std::find_if(pairs.begin(), pairs.end(),
                                         [&](const json& p) { return text(p, "pair") == first; });
  if (!first.empty() && failing_pair != pairs.end()) {
    reports::paragraph(d, "Pair **" + first + "**: " + text(*failing_pair, "finding") +
                              "; its chi-square p " +
                              num(failing_pair->at("chi2_p").get<double>()) + ", Holm p " +
                              num(failing_pair->at("exactness_p_holm").get<double>()) + ".");
  } else if (first.empty() || failing == cases.end()) {
    reports::paragraph(d, "None: every case is exact and saturated.");
  } else {
    reports::paragraph(d, "Case **" + first + "** (" + text(*failing, "label") +
                              "), the first case with the overall verdict.");
    const json* prefix = optional_field(*failing, "prefix");
    spell_out(d, *failing, prefix != nullptr ? *prefix : json(), policy);
  }

  reports::heading(d, "Largest standardized deviations");
  reports::paragraph(d, kDeviationNote);
  Table dev{deviation_header({"case"}), {}};
  for (const json& c : cases)
    deviation_rows(dev, c, {text(c, "case_id")}, kDeviationsPerSubject, false);
  deviation_table(d, std::move(dev));

  acceptance_section(d, "case");
  return d;
}

Document generation_conformance_document(const json& r) {
  Document d;
  const json& policy = r.at("policy");
  const json& cases = r.at("cases");
  reports::heading(d,
                   "Conformance generation cases: an engine's generation loop against plain "
                   "generation");
  reports::paragraph(
      d, "Overall verdict: **" + text(r, "overall") + "** (exit " +
             std::to_string(r.at("exit_code").get<int>()) + "). " + std::to_string(cases.size()) +
             " requests: the engine ran its own speculative generation loop on each, and its "
             "emitted sequences are tested against plain generation's exact law under the same "
             "request (the identity test, pooled by first token, and the tests of independence "
             "over consecutive generations). Family-wise alpha " +
             num(policy.at("alpha").get<double>()) + ": " +
             num(policy.at("exactness_alpha").get<double>()) + " for exactness (Holm over " +
             count(r.at("exactness_tests")) +
             " requests); TV@99% is the worst-direction guarantee: every law that far is "
             "rejected with " +
             num(100.0 * policy.at("required_power").get<double>()) +
             " % power; a request that cannot guarantee TV " +
             num(policy.at("max_detectable_tv").get<double>()) + " is inconclusive.");
  reports::heading(d, "Verdict per request");
  Table ct{{"request", "parameters", "generations", "impossible", "sequences", "chi2 (dof)", "p",
            "Holm p exactness", "TV@99%", "tokens", "plain tokens", "verdict"},
           {}};
  for (const json& c : cases) {
    ct.rows.push_back({text(c, "case_id"), text(c, "label"), count(c.at("samples")),
                       count(c.at("impossible")), count(c.at("sequences")),
                       fixed(c.at("chi_square").get<double>(), 1) + " (" +
                           std::to_string(c.at("dof").get<int>()) + ")",
                       num(c.at("p_value").get<double>()),
                       num(c.at("exactness_p_holm").get<double>()), stated_tv_text(c),
                       fixed(c.at("mean_tokens").get<double>()),
                       fixed(c.at("plain_mean_tokens").get<double>()), text(c, "verdict")});
  }
  reports::table(d, ct);
  iid_section(d, cases);
  reports::heading(d, "First failing request");
  const std::string first = text(r, "first_failing_case");
  const auto failing = std::find_if(cases.begin(), cases.end(),
                                    [&](const json& c) { return text(c, "case_id") == first; });
  if (first.empty() || failing == cases.end()) {
    reports::paragraph(d, "None: every request is exact.");
  } else {
    const json& c = *failing;
    reports::paragraph(d, "Request **" + first + "** (" + text(c, "label") + "): verdict **" +
                              text(c, "verdict") + "** on " + count(c.at("samples")) +
                              " generations, identity p = " + num(c.at("p_value").get<double>()) +
                              "; " + count(c.at("impossible")) + " impossible generation(s)" +
                              (text(c, "first_impossible").empty()
                                   ? std::string(".")
                                   : ", the first: " + text(c, "first_impossible") + "."));
  }
  return d;
}

VerdictSummary verdict_summary(const json& r, ResultsKind kind) {
  if (kind == ResultsKind::conformance || kind == ResultsKind::conformance_model ||
      kind == ResultsKind::conformance_batch || kind == ResultsKind::conformance_generation) {
    return {"overall: " + text(r, "overall"), r.at("exit_code").get<int>()};
  }
  if (kind == ResultsKind::generation_check) {
    // check --generation and live --generation record their exit code (4: only loops judged
    // exact are short of generations); files written before it say passed or not.
    const json* code = optional_field(r, "exit_code");
    const int exit_code = code != nullptr ? code->get<int>() : r.at("passed").get<bool>() ? 0 : 1;
    return {exit_code == 0   ? "PASS: every loop as expected"
            : exit_code == 4 ? "inconclusive: too few generations"
                             : "FAIL: not every loop as expected",
            exit_code};
  }
  const bool passed = r.at("passed").get<bool>();
  // As the commands decide: live (either drafts) exits 4 when its only unexpected verdicts are inconclusive.
  bool inconclusive =
      kind == ResultsKind::live_sampled && !passed && r.at("only_inconclusive").get<bool>();
  if (kind == ResultsKind::live && !passed) {
    for (const json& v : r.at("verifiers")) {
      if (v.at("as_expected").get<bool>()) continue;
      inconclusive = text(v, "verdict") == "inconclusive";
      if (!inconclusive) break;
    }
  }
  return {passed         ? "PASS: every verdict is the one its kind calls for"
          : inconclusive ? "inconclusive: too few samples"
                         : "FAIL: not every verdict is the one its kind calls for",
          passed         ? 0
          : inconclusive ? 4
                         : 1};
}

}  // namespace tev::reports
