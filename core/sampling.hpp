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

// Indexed search (Chen and Asau's guide table) over the same cumulative table: guide[k] is the
// first i with cum[i] ≥ (k / K)·cum[n − 1], for K = buckets, a power of two (so k / K and u·K are
// exact). For u in bucket k the answer lies at or after guide[k] (multiplying by the total is
// monotone under rounding), and a forward scan finds exactly pick_cumulative's index, in O(1)
// expected steps instead of log2(n) unpredictable branches.
TEV_HD inline void build_guide(const double* cum, std::int32_t n, std::int32_t buckets,
                               std::int32_t* guide) {
  std::int32_t i = 0;
  for (std::int32_t k = 0; k < buckets; ++k) {
    const double threshold = (static_cast<double>(k) / buckets) * cum[n - 1];
    while (i < n - 1 && cum[i] < threshold) ++i;
    guide[k] = i;
  }
}

TEV_HD inline std::int32_t pick_guided(const double* cum, std::int32_t n, const std::int32_t* guide,
                                       std::int32_t buckets, double u) {
  const double target = u * cum[n - 1];
  std::int32_t k = static_cast<std::int32_t>(u * buckets);
  if (k >= buckets) k = buckets - 1;  // u = 1
  std::int32_t i = guide[k];
  while (cum[i] < target) ++i;
  return i;
}

// Guide size for a table of n entries: the next power of two ≥ 8n, at most 1024. With 8 buckets
// per entry at most one bucket in 8 holds a boundary, so the forward scan of most draws takes no
// step at all and its loop branch is predictable (the answer does not depend on the size).
TEV_HD inline std::int32_t guide_buckets(std::int32_t n) {
  std::int32_t k = 1;
  while (k < 8 * n && k < 1024) k *= 2;
  return k;
}

}  // namespace tev
