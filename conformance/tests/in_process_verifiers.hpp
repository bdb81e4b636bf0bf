#pragma once
// The smallest verifiers the API tests judge: accept nothing and draw the bonus from one row.
#include <span>

#include "conformance/in_process.hpp"

namespace tev::conformance::test_verifiers {

// A token of `row` by inverse CDF at u (the last token when rounding leaves u above the total).
inline std::int32_t draw_from(std::span<const double> row, double u) {
  double below = 0.0;
  for (std::size_t a = 0; a < row.size(); ++a) {
    below += row[a];
    if (u < below) return static_cast<std::int32_t>(a);
  }
  return static_cast<std::int32_t>(row.size()) - 1;
}

// Accept nothing, bonus from the root's full row (a drafted child's token is completed by the
// judge): exact, not saturated.
inline tevsuite::Block root_bonus(const tevsuite::TreeCase& c, tevsuite::Randomness& r) {
  return {{}, draw_from(c.row(0), r.uniform())};
}

}  // namespace tev::conformance::test_verifiers
