#pragma once
// The library calls behind `tevsuite conformance emit | run` (`check` is judge_conformance_files,
// conformance/sample_router.hpp).
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "conformance/emit.hpp"
#include "conformance/generation_case.hpp"
#include "conformance/generation_judge.hpp"
#include "conformance/judge.hpp"
#include "conformance/model_case.hpp"
#include "conformance/model_judge.hpp"
#include "conformance/subprocess.hpp"
#include "montecarlo/ranks.hpp"

namespace tev::conformance {

// What the emitted cases can detect when `conformance check` judges all of them at the policy's
// default alpha.
struct EmitSummary {
  std::string what = "cases";     // "cases", "model cases" or "batch cases"
  std::string level_of = "case";  // the test chi_square_level is the level of
  std::string member = "case";    // what each detectable TV belongs to
  // what a TV that far is measured on
  std::string law =
      "its blocks' law, either half of its stream's, or the joint law of two blocks' bins up to " +
      std::to_string(stats::kSerialLags) + " apart against the product";
  std::size_t cases = 0;
  std::uint64_t samples = 0;      // per case
  judging::VerdictPolicy policy;  // the default policy the levels below come from
  double chi_square_level = 0.0;  // each case's identity-test level at that policy
  std::vector<double>
      detectable_tvs;  // sorted: each case's worst-direction TV detected with the policy's power
  std::size_t undetectable =
      0;  // cases that detect no contamination at that level (judged inconclusive)
};

// Writes the cases to out_path (when the context writes files; InputError when it cannot) after
// reading each one back; progress names every case.
EmitSummary emit_conformance_cases(const EmitConfig& config, const std::string& out_path,
                                   const montecarlo::RunContext& context, std::ostream& progress);
// The same for model cases (format_version 2), their TVs over p's H-token sequences.
EmitSummary emit_model_conformance_cases(const ModelEmitConfig& config, const std::string& out_path,
                                         const montecarlo::RunContext& context,
                                         std::ostream& progress);

// The same for batch cases (format_version 5, emit.batch requests each): the TVs of every request
// and every pair's independence test at the levels of one family.
EmitSummary emit_batch_conformance_cases(const EmitConfig& config, const std::string& out_path,
                                         const montecarlo::RunContext& context,
                                         std::ostream& progress);

// The same for generation cases (format_version 6), their TVs over the emitted sequences.
EmitSummary emit_generation_conformance_cases(const GenerationEmitConfig& config,
                                              const std::string& out_path,
                                              const montecarlo::RunContext& context,
                                              std::ostream& progress);

// `conformance run`: the cases of cases_path, or emitted from `emit` when it is empty, streamed to
// the verifier subprocess and judged.
ConformanceReport run_conformance_verifier(const std::string& cases_path, const EmitConfig& emit,
                                           const RunOptions& options, std::ostream& progress);
// The same with model cases: those of cases_path, or emitted from `emit` when it is empty.
ModelReport run_model_conformance_verifier(const std::string& cases_path,
                                           const ModelEmitConfig& emit, const RunOptions& options,
                                           std::ostream& progress);
// The same with batch cases: those of cases_path, or emitted from `emit` (emit.batch > 0).
BatchReport run_batch_conformance_verifier(const std::string& cases_path, const EmitConfig& emit,
                                           const RunOptions& options, std::ostream& progress);
// The same with generation cases: those of cases_path, or emitted from `emit`.
GenerationReport run_generation_conformance_verifier(const std::string& cases_path,
                                                     const GenerationEmitConfig& emit,
                                                     const RunOptions& options,
                                                     std::ostream& progress);

}  // namespace tev::conformance
