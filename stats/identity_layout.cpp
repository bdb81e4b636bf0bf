#include "stats/identity_layout.hpp"

#include <utility>

namespace tev::stats {

namespace {

// Cells expected fewer times than this are pooled, per bin, into one cell of the rare-cell
// statistic: alone, one collision there would add 2/(n·p_i), a jump that says nothing about their
// shares (the cut of Acharya, Daskalakis & Kamath); pooled, a law that moves mass into or out of
// them is seen. A move among them stays unseen: the worst-direction TV adds their mass.
constexpr double kMinRareExpected = 0.05;

}  // namespace

Layout layout_of(std::span<const double> probability, std::span<const std::int32_t> group_of_cell,
                 double samples) {
  Layout out{pool_cells(probability, group_of_cell, samples), {}, 0.0};
  std::vector<std::size_t> cells_in(out.bins.bin_probability.size(), 0);  // (bins) cell counts
  for (std::int32_t b : out.bins.bin_of_cell) {
    if (b >= 0) ++cells_in[static_cast<std::size_t>(b)];
  }
  std::vector<std::int64_t> shared_of(cells_in.size(), -1);  // (bins) index into shared, or −1
  for (std::size_t b = 0; b < cells_in.size(); ++b) {
    if (cells_in[b] < 2) continue;
    shared_of[b] = static_cast<std::int64_t>(out.shared.size());
    out.shared.push_back({});
    out.shared.back().cells.reserve(cells_in[b]);
  }
  for (std::size_t i = 0; i < probability.size(); ++i) {
    const std::int32_t b = out.bins.bin_of_cell[i];
    if (b < 0 || shared_of[static_cast<std::size_t>(b)] < 0) continue;
    SharedBin& s = out.shared[static_cast<std::size_t>(shared_of[static_cast<std::size_t>(b)])];
    if (samples * probability[i] < kMinRareExpected) {
      s.pooled.push_back(i);
      s.pooled_mass += probability[i];
    } else {
      s.cells.push_back(i);
    }
  }
  // A bin whose raw cells are all pooled has nothing to compare inside it: its mass is unseen.
  // Elsewhere only the pooled cells' own mass is (a move among them).
  std::vector<SharedBin> kept;
  for (SharedBin& s : out.shared) {
    for (std::size_t j = 0; j < s.statistic_cells(); ++j)
      s.cumulative.push_back(s.mass += s.cell_mass(probability, j));
    if (s.statistic_cells() >= 2) {
      out.shared_mass += s.mass;
      out.unseen_mass += s.pooled_mass;
      kept.push_back(std::move(s));
    } else {
      out.unseen_mass += s.mass;
    }
  }
  out.shared = std::move(kept);
  return out;
}

}  // namespace tev::stats
