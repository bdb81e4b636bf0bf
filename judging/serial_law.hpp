#pragma once
// The law of a serial mutant's pairs (core/fast_verifiers.hpp, SerialReplay). Each of its blocks
// has TEV's law, so the enumeration of one block says "exact": what is wrong is how samples i and
// i + lag depend on each other at phase 0 (i mod 2·lag < lag), whose exits come from one uniform u
// (or from u and 1 − u). Given the two exits, the rest of each block is drawn on its own with
// TEV's law given its exit, c(a | e) = p(a)/w(e) over the exit's cells, so the pair's joint law of
// cells is J(e1, e2)·c(a | e1)·c(b | e2), and its TV from the product p⊗p equals the TV of the
// exits' pair law J from w⊗w (each c sums to 1 over its exit's cells).
#include <cstdint>
#include <span>
#include <vector>

#include "core/draft_tree.hpp"
#include "core/fast_verifiers.hpp"
#include "core/target_rows.hpp"

namespace tev::judging {

// (N, N) J(e1, e2): P(the replayed sample exits at e1 and the replaying one at e2), with the exit
// law cut into consecutive intervals of (0, 1] in node order, as the exit table is.
std::vector<double> replayed_exit_pairs(std::span<const double> exit, bool mirrored);
// TV of such a pair law (N, N) from w⊗w (w normalized): the TV of the pair's cells from p⊗p.
double exit_pairs_tv(std::span<const double> joint, std::span<const double> exit);

struct SerialPairLaw {
  double tv = 0.0;               // exact TV of the replaying pairs' joint law of cells from p⊗p
  double predicted_power = 0.0;  // of the test of independence at (lag, phase 0), given that law
};

// The pair law of a serial mutant on one tree, and the chance that its test of pairs at the
// replay's lag and phase 0 rejects it, at `level`, in a stream of `samples` samples (binned as the
// tests of independence bin it).
SerialPairLaw serial_pair_law(const DraftTree& tree, const TargetRows& rows, SerialReplay replay,
                              std::uint64_t samples, double level);

}  // namespace tev::judging
