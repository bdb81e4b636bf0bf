#pragma once
// A standard uniform random bit generator over Philox: the words of one draw site's blocks, so a
// registered use's numbers depend only on (seed, use, id).
#include <array>
#include <cstdint>
#include <limits>

#include "core/philox.hpp"
#include "core/random_streams.hpp"

namespace tev {

class PhiloxEngine {
 public:
  using result_type = std::uint32_t;
  PhiloxEngine(std::uint32_t seed, const RandomUse& use, std::uint32_t id = 0)
      : site_(use.site(seed, id)) {}
  // Any site: for test programs, which pick their own.
  explicit PhiloxEngine(const DrawSite& site) : site_(site) {}
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
