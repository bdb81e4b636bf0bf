#pragma once
// A standard uniform random bit generator over Philox, on the generation stream, so synthetic
// distributions and trees depend only on (seed, id, substream).
#include <array>
#include <cstdint>
#include <limits>

#include "core/philox.hpp"

namespace tev {

class PhiloxEngine {
 public:
  using result_type = std::uint32_t;
  PhiloxEngine(std::uint32_t seed, std::uint32_t id, std::uint64_t substream = 0)
      : site_{seed, Stream::generation, id, substream} {}
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }
  result_type operator()() {
    if (used_ == 4) {
      const auto block = philox_block(site_, next_block_++);
      for (int i = 0; i < 4; ++i) words_[i] = block[i];
      used_ = 0;
    }
    return words_[used_++];
  }
  // A uniform in (0, 1], for inverse-CDF style choices.
  double uniform() {
    const result_type hi = (*this)();
    return uniform_from(hi, (*this)());
  }

 private:
  DrawSite site_;
  std::uint32_t next_block_ = 0;
  std::array<result_type, 4> words_{};
  int used_ = 4;
};

}  // namespace tev
