#include "conformance/commands.hpp"

#include <algorithm>
#include <fstream>
#include <optional>
#include <ostream>
#include <sstream>

#include "core/format.hpp"
#include "stats/goodness_of_fit.hpp"
#include "stats/iid_assumption.hpp"

namespace tev::conformance {

namespace {

// Writes the emitted lines (when the context writes files) and what each case's chi-square detects
// at the default policy. describe(line, k, level, power) reads line k back (every emitted case
// must) and returns its detectable TV at that level and power, and its progress line.
template <class Describe>
EmitSummary write_emitted(const std::vector<std::string>& lines, std::uint64_t samples,
                          bool with_tree, const std::string& out_path,
                          const montecarlo::RunContext& context, std::ostream& progress,
                          Describe describe) {
  std::ofstream file;
  if (context.writes_files) {
    file.open(out_path);
    if (!file) throw InputError("cannot write " + out_path);
  }
  EmitSummary summary;
  summary.cases = lines.size();
  summary.samples = samples;
  // Every case runs its tests of independence beside the identity test.
  summary.chi_square_level = summary.policy.identity_level(lines.size(), with_tree, true);
  for (std::size_t k = 0; k < lines.size(); ++k) {
    if (context.writes_files) file << lines[k] << '\n';
    const auto [tv, line] =
        describe(lines[k], k, summary.chi_square_level, summary.policy.required_power);
    if (tv) {
      summary.detectable_tvs.push_back(*tv);
    } else {
      ++summary.undetectable;
    }
    progress << "  " << line << '\n';
  }
  if (context.writes_files && !file) throw InputError("error writing " + out_path);
  std::sort(summary.detectable_tvs.begin(), summary.detectable_tvs.end());
  return summary;
}

// The cases of cases_path, or the emitted lines when it is empty, read by Reader.
template <class Reader, class Run>
auto read_cases_and(const std::string& cases_path, const std::vector<std::string>& emitted_lines,
                    Run run) {
  std::ifstream file;
  std::istringstream emitted;
  if (cases_path.empty()) {
    std::string text;
    for (const std::string& line : emitted_lines) text += line + '\n';
    emitted.str(text);
  } else {
    file.open(cases_path);
    if (!file) throw InputError("cannot read " + cases_path);
  }
  Reader reader(cases_path.empty() ? static_cast<std::istream&>(emitted) : file,
                cases_path.empty() ? "emitted cases" : cases_path);
  return run(reader);
}

}  // namespace

EmitSummary emit_conformance_cases(const EmitConfig& config, const std::string& out_path,
                                   const montecarlo::RunContext& context, std::ostream& progress) {
  const std::vector<std::string> lines = emit_configured(config);
  return write_emitted(lines, config.samples, true, out_path, context, progress,
                       [&](const std::string& line, std::size_t k, double, double) {
                         const Case c = parse_case(line, "emitted case " + std::to_string(k));
                         return std::pair{
                             stated_tv(c, judging::VerdictPolicy{}, lines.size(), k),
                             c.id + ": " + std::to_string(c.tree.size()) + " nodes, depth " +
                                 std::to_string(c.tree.max_depth()) +
                                 ", V = " + std::to_string(c.tree.vocab) + " - " + c.label};
                       });
}

EmitSummary emit_model_conformance_cases(const ModelEmitConfig& config, const std::string& out_path,
                                         const montecarlo::RunContext& context,
                                         std::ostream& progress) {
  const std::vector<std::string> lines = emit_configured(config);
  EmitSummary summary = write_emitted(
      lines, config.samples, false, out_path, context, progress,
      [&](const std::string& line, std::size_t k, double, double) {
        const ModelCase c = parse_model_case(line, "emitted case " + std::to_string(k));
        return std::pair{model_stated_tv(c, judging::VerdictPolicy{}, lines.size(), k),
                         c.id + ": V = " + std::to_string(c.pair.vocab()) +
                             ", D = " + std::to_string(c.depth) + ", hint " + c.drafting->label() +
                             " - " + c.label};
      });
  summary.what = "model cases";
  summary.law =
      "the law of the completed sequences, either half of its stream's, or the joint law of two "
      "sequences' bins up to " +
      std::to_string(stats::kSerialLags) + " apart against the product";
  return summary;
}

EmitSummary emit_batch_conformance_cases(const EmitConfig& config, const std::string& out_path,
                                         const montecarlo::RunContext& context,
                                         std::ostream& progress) {
  const std::vector<std::string> lines = emit_configured(config);
  // Every batch has config.batch requests and as many pairs as two of them make.
  const std::size_t family = lines.size() * static_cast<std::size_t>(config.batch) *
                             static_cast<std::size_t>(config.batch + 1) / 2;
  const judging::VerdictPolicy policy;
  EmitSummary summary = write_emitted(
      lines, config.samples, false, out_path, context, progress,
      [&](const std::string& line, std::size_t k, double, double) {
        const BatchCase b = parse_batch_case(line, "emitted batch " + std::to_string(k));
        std::optional<double> worst = 0.0;
        std::string text = b.id + ": " + std::to_string(b.requests.size()) + " requests (";
        const std::vector<stats::Binning> bins = request_pair_bins(b);
        // Members of the family in judge_batches' order: every request, then every pair; the index
        // only keys null simulations, so each request's here is its place among the requests.
        for (std::size_t i = 0; i < b.requests.size(); ++i) {
          const Case& r = b.requests[i];
          worst = stats::larger_tv(worst, stated_tv(r, policy, family, k * b.requests.size() + i));
          text += (i ? ", " : "") + r.id + " " + std::to_string(r.tree.size()) + " nodes";
          for (std::size_t j = i + 1; j < b.requests.size(); ++j) {
            const std::vector<std::int64_t> nothing(b.samples, stats::kNoCell);
            worst = stats::larger_tv(
                worst, judging::stated_tv(pair_evidence(b, bins, i, j, nothing, nothing, policy,
                                                        family, k * b.requests.size() + i)));
          }
        }
        return std::pair{worst, text + "), V = " + std::to_string(b.requests.front().tree.vocab) +
                                    ", the largest TV of its requests and pairs"};
      });
  summary.what = "batch cases";
  summary.level_of = "request or pair; a request's identity test " +
                     num(judging::VerdictPolicy::identity_share(true, true)) +
                     " of it, each of its " + std::to_string(stats::kIidTests) +
                     " tests of independence " + num(judging::VerdictPolicy::iid_test_share(true)) +
                     "; a pair's test within a round " +
                     num(judging::VerdictPolicy::identity_share(false, true)) + ", each of its " +
                     std::to_string(stats::kSerialTests) + " tests across rounds " +
                     num(judging::VerdictPolicy::iid_test_share(false));
  summary.member = "batch, at the largest TV over its requests and pairs,";
  summary.law =
      "a request's as a case's; for two requests, the joint law of their blocks' bins within a "
      "round, and up to " +
      std::to_string(stats::kSerialLags) + " rounds apart in either order, against the product";
  summary.chi_square_level = policy.chi_square_level(family);
  return summary;
}

EmitSummary emit_generation_conformance_cases(const GenerationEmitConfig& config,
                                              const std::string& out_path,
                                              const montecarlo::RunContext& context,
                                              std::ostream& progress) {
  const std::vector<std::string> lines = emit_generation_cases(config);
  const judging::VerdictPolicy policy;
  EmitSummary summary = write_emitted(
      lines, config.samples, false, out_path, context, progress,
      [&](const std::string& line, std::size_t k, double level, double power) {
        const GenerationCase c = parse_generation_case(line, "emitted case " + std::to_string(k));
        const generation::SequenceCells cells(
            generation::enumerate_generation(c.generation, generation::plain_loop()).law);
        // What its identity test and its tests of independence guarantee together.
        return std::pair{
            stats::larger_tv(
                judging::detectable_tv(cells.probability, cells.groups, c.samples, level, power),
                stats::iid_detectable_tv(cells.probability, cells.groups, c.samples,
                                         policy.iid_test_levels(lines.size(), k, false), power)),
            c.id + ": " + std::to_string(cells.sequences.size()) +
                " sequences under plain generation - " + c.label};
      });
  summary.what = "generation cases";
  summary.level_of = "request";
  summary.member = "request";
  summary.law =
      "the law of the emitted sequences, either half of its stream's, or the joint law of two "
      "generations' bins up to " +
      std::to_string(stats::kSerialLags) + " apart against the product";
  return summary;
}

ConformanceReport run_conformance_verifier(const std::string& cases_path, const EmitConfig& emit,
                                           const RunOptions& options, std::ostream& progress) {
  return read_cases_and<CaseReader>(
      cases_path, cases_path.empty() ? emit_configured(emit) : std::vector<std::string>{},
      [&](CaseReader& reader) { return run_verifier_command(reader, options, progress); });
}

ModelReport run_model_conformance_verifier(const std::string& cases_path,
                                           const ModelEmitConfig& emit, const RunOptions& options,
                                           std::ostream& progress) {
  return read_cases_and<ModelCaseReader>(
      cases_path, cases_path.empty() ? emit_configured(emit) : std::vector<std::string>{},
      [&](ModelCaseReader& reader) {
        return run_model_verifier_command(reader, options, progress);
      });
}

BatchReport run_batch_conformance_verifier(const std::string& cases_path, const EmitConfig& emit,
                                           const RunOptions& options, std::ostream& progress) {
  return read_cases_and<BatchCaseReader>(
      cases_path, cases_path.empty() ? emit_configured(emit) : std::vector<std::string>{},
      [&](BatchCaseReader& reader) {
        return run_batch_verifier_command(reader, options, progress);
      });
}

GenerationReport run_generation_conformance_verifier(const std::string& cases_path,
                                                     const GenerationEmitConfig& emit,
                                                     const RunOptions& options,
                                                     std::ostream& progress) {
  return read_cases_and<GenerationCaseReader>(
      cases_path, cases_path.empty() ? emit_generation_cases(emit) : std::vector<std::string>{},
      [&](GenerationCaseReader& reader) {
        return run_generation_verifier_command(reader, options, progress);
      });
}

}  // namespace tev::conformance
