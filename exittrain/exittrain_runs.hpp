#pragma once
// `tevsuite exittrain`: token-only vs prefix-weighted vs exit-guided drafter training from one warm
// start, compared by the exact mean 1 + C_p of the trees each trained drafter builds on held-out
// contexts; sim (a synthetic Markov target, a linear drafter) or live (the Sphinx trigram, a
// frequent-words drafter). How each seed's data is split and each drafter is built is decided here.
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/philox.hpp"
#include "exittrain/exittrain.hpp"
#include "montecarlo/ranks.hpp"

namespace tev::exittrain {

struct ExitTrainOptions {
  std::string mode =
      "sim";  // sim: synthetic target and linear drafter; live: the Sphinx trigram and a frequent-words drafter
  std::int32_t budget = 32;          // training budget B; evaluated at B/2, B, 2B
  std::int32_t steps = 1000;         // training steps per objective
  std::int32_t warmup_steps = 1000;  // shared token-only steps before the three runs split
  std::int32_t seeds = 5;
  std::uint32_t seed = kDefaultSeed;  // first seed; seed k is seed + k
  std::int32_t vocab = 64;   // sim: the synthetic target's V; live: the drafter's K frequent words
  std::int32_t horizon = 8;  // H: the drafter's block size and the trees' depth limit
  std::int32_t target_order = 2;
  double target_scale = 3.0;    // logit standard deviation per lag of the synthetic target
  std::int32_t lookback = 1;    // tokens the drafter sees
  std::int32_t embedding = 32;  // live: the drafter's embedding size D
  std::int32_t context_length =
      8;  // sim: context length; live: words per sampled sequence (after <s>)
  std::int32_t batch = 16;
  double learning_rate = 0.02;
  std::optional<double> lambda;  // default: B (see kLambdaRationale)
  std::int32_t test_contexts = 256;
  std::uint64_t tev_samples = 1000;  // TEV rounds per held-out tree
  double alpha = 0.01;               // family-wise level of the TEV-vs-ceiling check
  int threads = 1;
};

// Why λ defaults to B, fixed before any run: L_tok puts total weight 1 on a batch (1/(nH) per
// row term), while eq. 14's denominator Σ(|V_i| − 1) = nB leaves the tree term a total of
// mean(1 − w(r))/B. λ = B gives both terms the same order of total weight.
inline constexpr const char* kLambdaRationale =
    "fixed in advance at lambda = B, so the tree term's total weight per batch, mean(1 - w(r)), "
    "matches the token term's 1; not tuned";

// --mode live's defaults where the command line did not set them: sized so that the default run
// takes about 16 minutes on 2 cores, since every target row costs ~10 ms. The one list the help text and
// with_live_defaults both read.
struct LiveDefault {
  std::string_view flag;
  std::int32_t ExitTrainOptions::*member;
  std::int32_t value;
};
std::span<const LiveDefault> exittrain_live_defaults();
// options with every live default whose flag given(flag) denies.
ExitTrainOptions with_live_defaults(ExitTrainOptions options,
                                    const std::function<bool(std::string_view flag)>& given);

// The frequent-words drafter's embeddings and heads start as Gaussians of this sd, small enough
// for near-uniform rows, nonzero so both factors get gradients.
inline constexpr double kLiveInitScale = 0.1;

struct ExitTrainRuns {
  std::vector<ExitTrainSeedRun> runs;  // one per seed
  double lambda = 0.0;                 // the tree term's weight the runs used
  std::int32_t target_vocab = 0;       // the target's vocabulary (live: the trigram's words)
  TevAgreement agreement;  // TEV against 1 + C_p at options.alpha: the command's verdict
  double seconds = 0.0;
};

// Checks the options (std::invalid_argument naming the flag), then trains and evaluates every seed.
// TEV's Monte Carlo is split over context.ranks.
ExitTrainRuns run_exittrain(const ExitTrainOptions& options, const montecarlo::RunContext& context,
                            std::ostream& progress);

}  // namespace tev::exittrain
