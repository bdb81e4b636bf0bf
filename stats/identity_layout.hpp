#pragma once
// The layout of the identity test (stats/law_identity.hpp) over its cells, which the test
// (law_identity.cpp) and its power (identity_power.cpp) share: pool_cells' bins and, inside each
// bin of several cells, the rare-cell statistic's cells.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "stats/goodness_of_fit.hpp"

namespace tev::stats {

// A bin of several cells: the rare-cell statistic's unit.
// The statistic's cells: each raw cell expected ≥ kMinRareExpected times, then (when there are
// any) one pooled cell of the others.
struct SharedBin {
  std::vector<std::size_t> cells;   // raw cells of their own, in cell order
  std::vector<std::size_t> pooled;  // raw cells expected fewer times, counted as one cell
  double pooled_mass = 0.0;         // their reference mass
  std::vector<double> cumulative;   // (k) running sums of the statistic's cells' reference masses
  double mass = 0.0;                // p_b

  std::size_t statistic_cells() const { return cells.size() + (pooled.empty() ? 0 : 1); }
  // The reference mass of the statistic's cell j (the pooled cell last).
  double cell_mass(std::span<const double> probability, std::size_t j) const {
    return j < cells.size() ? probability[cells[j]] : pooled_mass;
  }
  // The samples in the statistic's cell j.
  std::uint64_t cell_count(std::span<const std::uint64_t> counts, std::size_t j) const {
    if (j < cells.size()) return counts[cells[j]];
    std::uint64_t total = 0;
    for (std::size_t i : pooled) total += counts[i];
    return total;
  }
};

struct Layout {
  Binning bins;
  std::vector<SharedBin> shared;  // the bins of several raw cells whose statistic has ≥ 2 cells
  double shared_mass = 0.0;       // Σ p_b over shared bins
  double unseen_mass =
      0.0;  // the pooled cells' mass, and the mass of bins whose raw cells are all pooled
};

Layout layout_of(std::span<const double> probability, std::span<const std::int32_t> group_of_cell,
                 double samples);

// The statistics the test runs on a layout: the χ² alone, or with the rare-cell statistic.
inline int tests_in(const Layout& layout) { return layout.shared.empty() ? 1 : 2; }

// P(Z > z) for a standard normal Z.
inline double normal_upper(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

}  // namespace tev::stats
