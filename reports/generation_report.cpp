#include "reports/generation_report.hpp"

#include <algorithm>
#include <iomanip>
#include <ostream>
#include <string>

#include "core/format.hpp"
#include "judging/verdicts.hpp"
#include "reports/optional_field.hpp"
#include "reports/verdict_json.hpp"

namespace tev::reports {

namespace {

using generation::CaseOutcome;
using generation::GenerationCase;
using generation::LoopOutcome;

using generation::generation_verdict_text;
using generation::request_text;
using generation::sequence_text;

double smallest_p(const LoopOutcome& l) {
  double p = 1.0;
  for (const CaseOutcome& c : l.cases) p = std::min(p, c.evidence.chi_square.p_value);
  return p;
}

double largest_power(const LoopOutcome& l) {
  double p = 0.0;
  for (const CaseOutcome& c : l.cases) p = std::max(p, c.evidence.predicted_power);
  return p;
}

std::optional<double> stated_tv_of(const LoopOutcome& l) {
  std::optional<double> tv = 0.0;
  for (const CaseOutcome& c : l.cases) tv = stats::larger_tv(tv, judging::stated_tv(c.evidence));
  return tv;
}

// ", the <name> requests only" when the check was restricted to one semantics.
std::string semantics_text(const generation::GenerationCheckOptions& options) {
  return options.semantics
             ? ", the " + std::string(generation::semantics_name(*options.semantics)) +
                   " requests only"
             : "";
}

std::string moved_text(const generation::LargestDifference& d) {
  return "P(" + sequence_text(d.sequence) + ") " + num(d.reference, 4) +
         " under plain generation, " + num(d.other, 4) + " here";
}

// A request's wall time over the loops: enumeration (the slowest loop's and all of them) and
// sampling.
struct RequestTime {
  double slowest = 0.0, enumeration = 0.0, sampling = 0.0;
  std::uint64_t generations = 0;
  double rate() const { return sampling > 0.0 ? static_cast<double>(generations) / sampling : 0.0; }
};

RequestTime request_time(const generation::GenerationCheckResult& result, std::size_t k) {
  RequestTime t;
  for (const LoopOutcome& l : result.loops) {
    const CaseOutcome& c = l.cases[k];
    t.slowest = std::max(t.slowest, c.enumeration_seconds);
    t.enumeration += c.enumeration_seconds;
    t.sampling += c.sampling_seconds;
    t.generations += c.evidence.samples + c.evidence.invalid;
  }
  return t;
}

}  // namespace

void print_generation_check(const generation::GenerationCheckOptions& options,
                            const generation::GenerationCheckResult& result, std::ostream& out) {
  out << "tevsuite " << (result.models.empty() ? "check" : "live")
      << " --generation: " << result.loops.size() << " generation loops on " << result.cases.size()
      << " requests, " << options.samples << " generations per loop and request, seed "
      << options.seed << ", alpha " << num(options.alpha) << " (" << num(result.policy.alpha)
      << " per loop)" << semantics_text(options) << "\n";
  if (!result.models.empty()) out << "Models: " << result.models << "\n";
  std::size_t id_width = 22;  // the synthetic ids' column; live's "drafter/request" are longer
  for (const GenerationCase& c : result.cases) id_width = std::max(id_width, c.id.size() + 2);
  for (std::size_t k = 0; k < result.cases.size(); ++k) {
    const GenerationCase& c = result.cases[k];
    out << "  " << std::left << std::setw(static_cast<int>(id_width)) << c.id
        << request_text(c.request) << "; " << result.references[k].law.size() << " sequences\n";
  }
  out << "\n"
      << std::left << std::setw(38) << "loop" << std::setw(14) << "verdict" << std::setw(11)
      << "TV enum" << std::setw(10) << "min p" << std::setw(8) << "power" << std::setw(9)
      << "TV@99%" << std::setw(15) << "tokens/round"
      << "as expected\n";
  for (const LoopOutcome& l : result.loops) {
    const std::optional<double> tv = stated_tv_of(l);
    double tokens = 0.0;
    for (const CaseOutcome& c : l.cases) tokens += c.exact_tokens_per_round;
    out << std::left << std::setw(38) << l.loop.name << std::setw(14)
        << generation_verdict_text(l.verdict.verdict) << std::setw(11) << scientific(l.max_exact_tv)
        << std::setw(10) << scientific(smallest_p(l)) << std::setw(8) << fixed(largest_power(l), 3)
        << std::setw(9) << (tv ? fixed(*tv, 4) : "none") << std::setw(15)
        << fixed(tokens / static_cast<double>(l.cases.size()), 3) << (l.as_expected ? "yes" : "NO")
        << "\n";
  }
  out << "TV enum: the largest exact TV over the requests between the loop's law of emitted "
         "sequences and plain generation's\n"
         "(enumerated); min p: the smallest identity-test p-value; power: the sampled test's "
         "chance to reject the loop's\n"
         "exact law; TV@99%: every law this far from plain generation's (and every dependence "
         "between consecutive\n"
         "generations the tests of independence state) is rejected with 99 % power; "
         "tokens/round: exact, averaged over the requests.\n";
  out << "\nPlanted faults, each on the request it moves most:\n";
  for (const LoopOutcome& l : result.loops) {
    if (generation::is_exact_loop(l.loop)) continue;
    out << "  " << l.loop.name << ": " << l.loop.description << ".\n    ";
    if (!l.exercised) {
      out << "not exercised by these requests: its law is plain generation's on each\n";
      continue;
    }
    const CaseOutcome& worst = l.cases[l.worst_case];
    out << result.cases[l.worst_case].id << ": TV " << num(l.max_exact_tv) << ", "
        << moved_text(worst.largest);
    if (!worst.first_impossible.empty()) out << "; first impossible: " << worst.first_impossible;
    out << "\n";
  }
  out << "\nTime per request (wall): exact enumeration of plain generation, the slowest loop and "
         "all loops; sampling rate\nover all loops\n";
  for (std::size_t k = 0; k < result.cases.size(); ++k) {
    const RequestTime t = request_time(result, k);
    out << "  " << std::left << std::setw(34) << result.cases[k].id << "plain "
        << fixed(result.reference_seconds[k], 3) << " s  slowest " << fixed(t.slowest, 3)
        << " s  all " << fixed(t.enumeration, 3) << " s  " << fixed(t.rate(), 0)
        << " generations/s\n";
  }
  std::size_t failed = 0;
  for (const LoopOutcome& l : result.loops) failed += l.as_expected ? 0 : 1;
  out << "\n"
      << (result.passed()         ? "PASS"
          : result.inconclusive() ? "INCONCLUSIVE"
                                  : "FAIL")
      << ": " << result.loops.size() - failed << " of " << result.loops.size()
      << " loops as expected (exact loops exact; every fault caught by enumeration, and by "
         "sampling wherever its power is >= 99 %"
      << (options.semantics ? "; a fault these requests do not exercise exact" : "") << ")";
  if (!result.passed() && result.inconclusive())
    out << "; the other " << failed
        << " exact by enumeration, their sampled tests short of the TV asked (more generations)";
  out << "\n";
}

nlohmann::json generation_check_json(const generation::GenerationCheckOptions& options,
                                     const generation::GenerationCheckResult& result) {
  nlohmann::json j = {
      {"format_version", 1},        {"kind", results_kind_name(ResultsKind::generation_check)},
      {"samples", options.samples}, {"seed", options.seed},
      {"alpha", options.alpha},     {"policy", policy_json(result.policy, result.cases.size())},
      {"passed", result.passed()},  {"exit_code", result.exit_code()}};
  if (options.semantics) j["semantics"] = generation::semantics_name(*options.semantics);
  if (!result.models.empty()) j["models"] = result.models;
  j["requests"] = nlohmann::json::array();
  for (std::size_t k = 0; k < result.cases.size(); ++k) {
    const RequestTime t = request_time(result, k);
    j["requests"].push_back({{"id", result.cases[k].id},
                             {"request", request_text(result.cases[k].request)},
                             {"sequences", result.references[k].law.size()},
                             {"mean_length", result.references[k].mean_length},
                             {"seconds",
                              {{"plain_enumeration", result.reference_seconds[k]},
                               {"slowest_loop_enumeration", t.slowest},
                               {"loop_enumeration", t.enumeration},
                               {"sampling", t.sampling},
                               {"generations_per_second", t.rate()}}}});
  }
  j["loops"] = nlohmann::json::array();
  for (const LoopOutcome& l : result.loops) {
    nlohmann::json loop = {{"name", std::string(l.loop.name)},
                           {"description", std::string(l.loop.description)},
                           {"exact_loop", generation::is_exact_loop(l.loop)},
                           {"verdict", generation_verdict_text(l.verdict.verdict)},
                           {"max_exact_tv", l.max_exact_tv},
                           {"worst_request", result.cases[l.worst_case].id},
                           {"caught_by_enumeration", l.caught_by_enumeration},
                           {"caught_by_sampling", l.caught_by_sampling},
                           {"exercised", l.exercised},
                           {"stated_tv", optional_json(stated_tv_of(l))},
                           {"as_expected", l.as_expected}};
    loop["requests"] = nlohmann::json::array();
    for (std::size_t k = 0; k < l.cases.size(); ++k) {
      const CaseOutcome& c = l.cases[k];
      const judging::TreeEvidence& ev = c.evidence;
      const judging::CaseVerdict& v = l.verdict.cases[k];
      nlohmann::json e = {{"request", result.cases[k].id},
                          {"generations", ev.samples + ev.invalid},
                          {"impossible", ev.invalid},
                          {"first_impossible", c.first_impossible},
                          {"identity_p", ev.chi_square.p_value},
                          {"identity_bins", ev.chi_square.bins},
                          {"exactness_p_holm", v.exactness_p_holm},
                          {"detectable_tv", optional_json(ev.detectable_tv)},
                          {"stated_tv", optional_json(judging::stated_tv(ev))},
                          {"iid_tests", iid_tests_json(ev.iid_tests)},
                          {"exact_tv", ev.exact_tv},
                          {"predicted_power", ev.predicted_power},
                          {"mean_tokens", ev.mean_length},
                          {"exact_tokens_per_round", c.exact_tokens_per_round},
                          {"tokens_per_round", c.tokens_per_round},
                          {"verdict", generation_verdict_text(v.verdict)},
                          {"moved_most",
                           {{"sequence", c.largest.sequence},
                            {"plain", c.largest.reference},
                            {"loop", c.largest.other}}}};
      loop["requests"].push_back(e);
    }
    j["loops"].push_back(loop);
  }
  return j;
}

Document generation_check_document(const nlohmann::json& results) {
  Document d;
  heading(d, "Generation-level exactness");
  paragraph(d, "Each loop's law of emitted sequences against plain generation's, per request: " +
                   std::to_string(results.at("samples").get<std::uint64_t>()) +
                   " generations per loop and request, seed " +
                   std::to_string(results.at("seed").get<std::uint32_t>()) +
                   (results.contains("semantics")
                        ? ", the " + results.at("semantics").get<std::string>() + " requests only"
                        : "") +
                   ".");
  if (const nlohmann::json* models = optional_field(results, "models"))
    paragraph(d, "Models (live --generation): " + models->get<std::string>() + ".");
  if (const nlohmann::json* code = optional_field(results, "exit_code")) {
    const int exit_code = code->get<int>();
    paragraph(d, std::string("Verdict: **") +
                     (exit_code == 0   ? "pass"
                      : exit_code == 4 ? "inconclusive"
                                       : "fail") +
                     "** (exit " + std::to_string(exit_code) + ")" +
                     (exit_code == 4
                          ? ": every loop as expected but loops exact by enumeration whose sampled "
                            "tests fall short of the TV asked (more generations)"
                          : "") +
                     ".");
  }
  Table requests{{"request", "parameters", "sequences"}, {}};
  for (const auto& r : results.at("requests"))
    requests.rows.push_back({r.at("id").get<std::string>(), r.at("request").get<std::string>(),
                             std::to_string(r.at("sequences").get<std::size_t>())});
  table(d, requests);
  Table loops{{"loop", "verdict", "exact TV", "worst request", "as expected", "cause"}, {}};
  for (const auto& l : results.at("loops"))
    loops.rows.push_back(
        {l.at("name").get<std::string>(), l.at("verdict").get<std::string>(),
         num(l.at("max_exact_tv").get<double>()), l.at("worst_request").get<std::string>(),
         l.at("as_expected").get<bool>() ? "yes" : "NO", l.at("description").get<std::string>()});
  table(d, loops);
  return d;
}

}  // namespace tev::reports
