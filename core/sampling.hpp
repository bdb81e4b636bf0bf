#pragma once
// Categorical decisions as comparisons of a uniform against a cumulative table (device-safe).
#include <cstdint>

#include "core/device.hpp"

namespace tev {

// Running (left-to-right) cumulative sums of n weights into cum. The chooser path and the
// per-tree tables both call this, so their tables agree bit for bit.
TEV_HD inline void cumulate(const double* weights, std::int32_t n, double* cum) {
  double acc = 0.0;
  for (std::int32_t i = 0; i < n; ++i) {
    acc += weights[i];
    cum[i] = acc;
  }
}

// The first index i with cum[i] ≥ u · cum[n − 1], for u ∈ (0, 1] and nondecreasing cum with a
// positive total. Because the target is at most the total itself (u ≤ 1), rounding can never run
// past the end; because u > 0, an entry equal to its predecessor (zero weight) is never chosen.
TEV_HD inline std::int32_t pick_cumulative(const double* cum, std::int32_t n, double u) {
  const double target = u * cum[n - 1];
  std::int32_t lo = 0;
  std::int32_t hi = n - 1;
  while (lo < hi) {
    const std::int32_t mid = lo + (hi - lo) / 2;
    if (cum[mid] >= target) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

}  // namespace tev
