#include "reports/verdict_table.hpp"

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <limits>
#include <memory>
#include <ostream>
#include <string>

#include "core/format.hpp"

namespace tev::reports {

namespace {

// The largest detectable TV over the verifier's trees: what its weakest tree can see; "none" when
// some tree detects no TV at all.
std::string worst_detectable_tv(const judging::VerifierReport& r) {
  double worst = 0.0;
  for (const judging::TreeEvidence& e : r.trees) {
    const std::optional<double> tv = judging::stated_tv(e);
    if (!tv) return "none";
    worst = std::max(worst, *tv);
  }
  return scientific(worst);
}

}  // namespace

judging::VerifierProgress verifier_progress_lines(std::ostream& progress) {
  return {[&progress](std::size_t k, std::size_t n, const VerifierInfo& info) {
            progress << "[" << k + 1 << "/" << n << "] " << info.name << " ..." << std::flush;
          },
          [&progress](const judging::VerifierReport& r) {
            progress << " " << verdict_text(r.verdict) << " (" << fixed(r.elapsed_seconds, 1)
                     << " s)\n";
          }};
}

std::function<void(std::string_view, std::uint64_t, std::uint64_t)> long_step_progress(
    std::ostream& progress, std::function<double()> seconds) {
  if (!seconds) {
    seconds = [] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
          .count();
    };
  }
  struct Step {
    double opened = 0.0;
    double shown = -std::numeric_limits<double>::infinity();
    bool named = false;
  };
  auto step = std::make_shared<Step>();
  return [&progress, seconds = std::move(seconds), step](std::string_view what, std::uint64_t done,
                                                         std::uint64_t most) {
    const double now = seconds();
    if (done == 0) {
      *step = Step{now};
      return;
    }
    if (now - step->opened < kLongStepShownAfter || now - step->shown < kLongStepEvery) return;
    if (!step->named) progress << ' ' << what << " (at most " << most << "):";
    progress << ' ' << done << "..." << std::flush;
    step->named = true;
    step->shown = now;
  };
}

int print_selftest(std::span<const judging::KnownAnswer> answers, bool verbose, std::ostream& out) {
  std::size_t failed = 0;
  for (const judging::KnownAnswer& a : answers) {
    if (!a.passed) ++failed;
    if (verbose || !a.passed)
      out << (a.passed ? "  ok    " : "  FAIL  ") << a.name << ": " << a.detail << '\n';
  }
  out << "selftest: " << answers.size() - failed << " of " << answers.size()
      << " known-answer tests of the statistics core passed"
      << (failed == 0 ? "" : " -- this build cannot be trusted to judge anything") << '\n';
  return failed == 0 ? 0 : 1;
}

void print_verdict_table(std::span<const judging::VerifierReport> reports, std::ostream& out) {
  out << '\n'
      << std::left << std::setw(36) << "verifier" << std::setw(14) << "kind" << std::setw(6)
      << "trees" << std::setw(9) << "samples" << std::setw(10) << "exact p" << std::setw(10)
      << "sat p" << std::setw(10) << "TV@99%" << std::setw(23) << "verdict" << std::setw(9)
      << "mean L" << std::setw(9) << "1+C_p" << std::setw(10) << "exact TV" << std::setw(9)
      << "power"
      << "caught by\n";
  out << std::string(177, '-') << '\n';
  for (const judging::VerifierReport& r : reports) {
    out << std::left << std::setw(36) << r.info.name << std::setw(14) << kind_name(r.info.kind)
        << std::setw(6) << r.trees.size() << std::setw(9) << r.samples_per_tree << std::setw(10)
        << scientific(r.decision.min_exactness_p_holm) << std::setw(10)
        << scientific(r.decision.min_saturation_p_holm) << std::setw(10) << worst_detectable_tv(r)
        << std::setw(23) << verdict_text(r.verdict) << std::setw(9) << fixed(r.mean_length, 4)
        << std::setw(9) << fixed(r.mean_ceiling, 4) << std::setw(10)
        << (r.enumerated ? scientific(r.max_exact_tv) : "-");
    if (r.info.kind == VerifierKind::mutant) {
      out << std::setw(9) << (r.enumerated ? fixed(r.predicted_power, 3) : "-") << r.caught_by;
    } else if (r.info.kind == VerifierKind::serial_mutant) {
      const bool judged = r.max_pair_tv > 0.0;
      out << std::setw(9) << (judged ? fixed(r.predicted_power, 3) : "-") << r.caught_by
          << (judged ? " (pair TV " + scientific(r.max_pair_tv) + ")" : "");
    } else {
      out << std::setw(9) << "-"
          << "-";
    }
    out << (r.as_expected ? "" : "   <-- UNEXPECTED") << '\n';
  }
  out << "exact p / sat p: smallest Holm-adjusted p of the verifier's exactness family (per tree: "
         "identity test, E[L] and\n"
         "acceptance above their ceilings) and saturation family (E[L] and acceptance shortfalls), "
         "each at half the verifier's\n"
         "alpha. TV@99%: the largest over its trees of the worst-direction guarantee (every law "
         "that far, tails included, is\n"
         "rejected with 99 % power at the tree's level), its tests of independence's included "
         "where they run; without\n"
         "enumeration a tree that cannot guarantee TV 0.05 is 'inconclusive'. A serial mutant's "
         "exact TV is one block's (0: its\n"
         "blocks have the canonical law); its power is its tests of pairs' at its lag, against its "
         "pairs' exact law (pair TV:\n"
         "the largest over trees of that law's TV from the product).\n";
}

}  // namespace tev::reports
