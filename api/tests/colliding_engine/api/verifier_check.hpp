#pragma once
// The engine's own verifier, in a file named as tevsuite's former internal header.
#include "core/block.hpp"

namespace tev {
// Accept nothing; the bonus from the root row by inverse CDF at u.
inline Block verify_root(const double* row, int vocab, double u) {
  double below = 0.0;
  for (int a = 0; a < vocab; ++a) {
    below += row[a];
    if (u < below) return {{a}};
  }
  return {{vocab - 1}};
}
}  // namespace tev
