#pragma once
// `tevsuite conformance emit`: cases that cover the shapes and rows where verifiers go wrong.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "conformance/batch_case.hpp"
#include "conformance/case_io.hpp"
#include "conformance/model_case.hpp"
#include "conformance/parameter_binds.hpp"
#include "core/draft_tree.hpp"
#include "core/philox.hpp"
#include "core/sampling_params.hpp"

namespace tev::conformance {

struct EmitConfig {
  std::int32_t cases = 8;
  std::uint32_t seed = kDefaultSeed;
  std::int32_t vocab = 16;   // V of the small-vocabulary cases (≥ 4: a star needs 4 children)
  std::int32_t budget = 12;  // draft nodes per tree (a deep chain uses at least 6)
  std::uint64_t samples = 100000;    // per case: a stdlib Python TEV answers all 8 in ~10 s
  std::int32_t large_vocab = 50000;  // V of the sparse-row case
  // The sparse-row case draws this many times `samples`: a worst-direction guarantee of TV 0.05
  // over its 50,000-token tails needs about 250,000 samples (~100,000 for the small-V cases).
  std::uint64_t large_vocab_sample_factor = 4;
  bool engine_inputs = false;  // emit_engine_cases (format 3) instead of emit_cases
  std::int32_t batch =
      0;  // requests per batch case (format 5, emit_batch_cases); 0: cases one by one
};

// One JSON line per case, cycling through: random tree; DDTree-built; deep chain (depth ≥ 6);
// star with ≥ 4 children; complete 4-ary tree (every leaf at the maximum depth); near-deterministic
// rows (drafted children hold all but 1e-10 of each internal row); a large vocabulary with sparse
// rows; DDTree with near one-hot Dirichlet(0.05) rows.
std::vector<std::string> emit_cases(const EmitConfig& config);

struct ModelEmitConfig {
  std::int32_t cases = 8;  // they cycle through the 8 recipes of emit_model_cases
  // per case: the fewest round count at which every case's tests of independence guarantee TV
  // 0.05 is about 37,000
  std::uint64_t samples = 40000;
  bool engine_inputs = false;  // emit_engine_model_cases (format 4) instead of emit_model_cases
};

// Model cases (format_version 2) over V = 4 with drafting depth D = 2, one JSON line each, covering
// every drafting policy of drafts/drafting.hpp as the case's hint (chain; k independent chains merged;
// k i.i.d. children; k without replacement; deterministic top-k) and every drafter kind of
// drafts/language_pair.hpp (perturbed target; a drafter that drafts tokens the target forbids; one
// that misses target mass). The pairs' rows are fixed (not seeded by the command line), so the
// instances where each planted bug is visible stay where they were measured.
std::vector<std::string> emit_model_cases(const ModelEmitConfig& config);

// Engine-shaped cases (format_version 3): float32 logit rows and sampling parameters, cycling
// through: temperature, top-k and top-p on the full row intersected (SGLang's order); greedy at a
// temperature below kGreedyTemperature on a star; top-p between a node's drafted children with
// top-k (SGLang's order); greedy (temperature 0) with every filter set; min-p applied after top-p
// (Hugging Face's order); greedy on a deep chain; all four filters at once (SGLang's order); a
// large vocabulary with sparse logit rows whose 49,987-token tail min-p removes. Trees are drawn until
// the parameters a recipe names bind (binds; in the default cases every one does, elsewhere the
// tree where the most do is kept) with every threshold at least kMinFilterMargin from
// the values it cuts between, so float32 engines keep the same tokens. Rows are raw logits as an
// engine sees them: each case's log-probabilities times a scale s in [1, 2), each row shifted so
// that its largest logit is ±[10, 30) (drawn from the seed), the temperature multiplied by s (a
// greedy one kept): the processed rows are those of the log-probabilities, up to float32 rounding.
std::vector<std::string> emit_engine_cases(const EmitConfig& config);

// Engine-shaped model cases (format_version 4) over V = 4, D = 2: float32 logits for p and q and
// different sampling parameters for the target and the drafter (temperature, top-k, top-p, min-p,
// greedy target, a drafter whose filters the target does not share), across the drafting hints.
std::vector<std::string> emit_engine_model_cases(const ModelEmitConfig& config);

// The smallest distance a case writer leaves between a filter's threshold and what it cuts.
inline constexpr double kMinFilterMargin = 1e-3;

// How many batches `emit --batch` writes unless told.
inline constexpr std::int32_t kDefaultBatches = 2;

// Batch cases (format_version 5): config.cases batches of config.batch requests each, `samples`
// rounds. The requests are the small-vocabulary cases of emit_cases (emit_engine_cases with
// engine_inputs) in order, the large-vocabulary kind left out (a batch is one model, one V), so
// each batch holds different trees, lengths and, engine-shaped, sampling parameters. Batch k's id
// is "k<k>"; its requests keep their case ids.
std::vector<std::string> emit_batch_cases(const EmitConfig& config);

// The cases a config asks for (engine_inputs picks the engine-shaped ones, batch batches of them).
inline std::vector<std::string> emit_configured(const EmitConfig& config) {
  if (config.batch > 0) return emit_batch_cases(config);
  return config.engine_inputs ? emit_engine_cases(config) : emit_cases(config);
}
inline std::vector<std::string> emit_configured(const ModelEmitConfig& config) {
  return config.engine_inputs ? emit_engine_model_cases(config) : emit_model_cases(config);
}

// The cases emit_configured's lines read back as (parse_case, parse_model_case, parse_batch_case
// of each line, in order), built directly: the in-process check's cases, without the JSON.
// tree_case_values gives the fixed-tree cases (config.batch is not read).
std::vector<Case> tree_case_values(const EmitConfig& config);
std::vector<ModelCase> model_case_values(const ModelEmitConfig& config);
std::vector<BatchCase> batch_case_values(const EmitConfig& config);

}  // namespace tev::conformance
