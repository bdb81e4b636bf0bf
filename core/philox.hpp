#pragma once
// Counter-based randomness (device-safe: no Eigen, no std containers).
// Key = (seed, stream); counter = (sample index low, sample index high, draw index, tree/round id).
// A sample's outcome depends only on these, so it is the same for any thread count, any
// partitioning of the samples, and on CPU and GPU.
#include <Random123/philox.h>

#include <tevsuite/defaults.h>

#include <cstdint>

#include "core/device.hpp"
#include "core/philox.hpp"

namespace tev {

// Streams keep the verifier's own draws apart from everything else the suite draws; every use is
// registered in core/random_streams.hpp.
enum class Stream : std::uint32_t {
  verifier = 1,      // draws a verifier makes to produce its block
  completion = 2,    // target tokens drawn after an in-tree bonus (completion)
  generation = 3,    // everything else: one tag per use
  drafting = 4,      // draft tokens a drafting policy samples from q (sampled-drafts mode)
  composition = 5,   // verifiers round after round in the composition check (round, sequence)
  sampled_live = 6,  // live --drafts sampled: drafting and verification on live sampled trees
  null_simulation =
      7,  // Monte Carlo p-values: replicates of a test's null law (test id, replicate)
  generation_runs = 8,  // whole generations of the generation check (loop and case, generation)
};

// The seed every command, experiment and library check starts from unless told otherwise.
inline constexpr std::uint32_t kDefaultSeed = TEV_DEFAULT_SEED;

struct DrawSite {
  std::uint32_t seed = 0;
  Stream stream = Stream::verifier;
  std::uint32_t tree = 0;    // tree or round id
  std::uint64_t sample = 0;  // sample index
};

TEV_HD inline r123::Philox4x32::ctr_type philox_block(const DrawSite& site, std::uint32_t draw) {
  r123::Philox4x32 rng;
  const r123::Philox4x32::ctr_type ctr = {{static_cast<std::uint32_t>(site.sample),
                                           static_cast<std::uint32_t>(site.sample >> 32), draw,
                                           site.tree}};
  const r123::Philox4x32::key_type key = {{site.seed, static_cast<std::uint32_t>(site.stream)}};
  return rng(ctr, key);
}

// A uniform in (0, 1] with 53 random bits: ((bits + 1) / 2^53). Never 0, so u·total > 0 and a
// zero-weight category can never be chosen; 1 is possible and picks the last positive weight.
TEV_HD inline double uniform_from(std::uint32_t hi, std::uint32_t lo) {
  const std::uint64_t bits = ((static_cast<std::uint64_t>(hi) << 32) | lo) >> 11;
  return static_cast<double>(bits + 1) * 0x1.0p-53;
}

TEV_HD inline double uniform(const DrawSite& site, std::uint32_t draw) {
  const auto block = philox_block(site, draw);
  return uniform_from(block[0], block[1]);
}

// How a sample's uniforms sit in its Philox blocks. one_per_block: uniform i is words 0–1 of block
// i (the chooser path, the logit verifiers and every registered use). two_per_block: uniform i is
// words 2·(i mod 2) and 2·(i mod 2) + 1 of block ⌊i / 2⌋, so every word of a block is used — the
// fast Monte Carlo path (core/fast_verifiers.hpp, CPU and GPU), whose chooser-path twin in the
// sample-by-sample test draws the same way.
enum class DrawLayout : std::uint8_t { one_per_block, two_per_block };

// Consecutive uniforms of one sample: draw index 0, 1, 2, ...
class DrawCounter {
 public:
  TEV_HD explicit DrawCounter(const DrawSite& site, DrawLayout layout = DrawLayout::one_per_block)
      : site_(site), layout_(layout) {}
  // two_per_block with block 0 already computed (the engine computes block 0 of several samples
  // at once, so their Philox rounds overlap).
  TEV_HD DrawCounter(const DrawSite& site, const r123::Philox4x32::ctr_type& block0)
      : site_(site), layout_(DrawLayout::two_per_block), block_(block0), held_(0) {}
  TEV_HD double next() { return at(draw_++); }
  // The uniform of a given draw index, for draws made out of order (in parallel).
  TEV_HD double at(std::uint32_t draw) const {
    if (layout_ == DrawLayout::one_per_block) return uniform(site_, draw);
    if (held_ != draw / 2) {
      block_ = philox_block(site_, draw / 2);
      held_ = draw / 2;
    }
    const std::uint32_t w = 2 * (draw % 2);
    return uniform_from(block_[w], block_[w + 1]);
  }
  TEV_HD std::uint32_t draws() const { return draw_; }
  TEV_HD DrawLayout layout() const { return layout_; }

 private:
  DrawSite site_;
  DrawLayout layout_;
  std::uint32_t draw_ = 0;
  mutable r123::Philox4x32::ctr_type block_ = {{0, 0, 0, 0}};  // the two_per_block block held
  mutable std::uint32_t held_ = ~std::uint32_t{0};             // its index (none yet)
};

}  // namespace tev
