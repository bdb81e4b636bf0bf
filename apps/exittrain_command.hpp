#pragma once
// `tevsuite exittrain`: token-only vs prefix-weighted vs exit-guided drafter training, compared by
// the exact mean 1 + C_p of the trees each trained drafter builds on held-out contexts.
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "reports/render.hpp"

namespace tev {

struct ExitTrainOptions {
  std::string mode = "sim";        // sim: synthetic target and linear drafter; live: the Sphinx trigram and a frequent-words drafter
  std::int32_t budget = 32;        // training budget B; evaluated at B/2, B, 2B
  std::int32_t steps = 1000;       // training steps per objective
  std::int32_t warmup_steps = 1000; // shared token-only steps before the three runs split
  std::int32_t seeds = 5;
  std::uint32_t seed = 20261130;   // first seed; seed k is seed + k
  std::int32_t vocab = 64;         // sim: the synthetic target's V; live: the drafter's K frequent words
  std::int32_t horizon = 8;        // H: the drafter's block size and the trees' depth limit
  std::int32_t target_order = 2;
  double target_scale = 3.0;       // logit standard deviation per lag of the synthetic target
  std::int32_t lookback = 1;       // tokens the drafter sees
  std::int32_t embedding = 32;     // live: the drafter's embedding size D
  std::int32_t context_length = 8; // sim: context length; live: words per sampled sequence (after <s>)
  std::int32_t batch = 16;
  double learning_rate = 0.02;
  std::optional<double> lambda;    // default: B (see lambda_rationale)
  std::int32_t test_contexts = 256;
  std::uint64_t tev_samples = 1000;  // TEV rounds per held-out tree
  double alpha = 0.01;             // family-wise level of the TEV-vs-ceiling check
  int threads = 1;
  std::string json_path;
  std::string out_dir;             // when set, report.md / report.html / results.json go here
};

// --mode live's defaults where the command line did not set them (given(flag) tells): sized so
// that the default run fits 15 minutes on 2 cores, since every target row costs ~10 ms.
ExitTrainOptions with_live_defaults(ExitTrainOptions options, const std::function<bool(std::string_view flag)>& given);

// Returns 0 when TEV's mean L agrees with 1 + C_p in every cell, 1 otherwise.
int run_exittrain(const ExitTrainOptions& options, std::ostream& out, std::ostream& progress);

// `tevsuite report` for an exittrain results.json.
int finish_exittrain_report(const nlohmann::json& results, const RenderOptions& render, std::ostream& out);

}  // namespace tev
