#pragma once
#include <span>
#include <vector>

#include "core/draft_tree.hpp"
#include "core/target_rows.hpp"

namespace tev {

// Copies p_v into out with v's drafted child tokens zeroed: the unnormalized residual row.
// Its total is ρ(v); at a leaf it is p_v itself.
void masked_row(const DraftTree& tree, const TargetRows& rows, NodeId v, std::span<double> out);

// The canonical exit law of a fixed tree (paper, Lemma 1 and eq. 6), computed level by level.
struct ExitLaw {
  std::vector<double> prefix;  // (N) P(v): probability that the target continuation reaches v
  std::vector<double>
      rho;  // (N) ρ(v): target mass at v not covered by v's children, summed directly
  std::vector<double> exit;        // (N) w(v) = P(v) ρ(v)
  double coverage = 0.0;           // C_p as Σ_{u ≠ root} P(u)
  double coverage_by_depth = 0.0;  // C_p as Σ_v w(v) depth(v)
  double length_variance = 0.0;    // Var L under the law: Σ w(v)(depth+1)² − (1 + C_p)²

  double ceiling() const { return 1.0 + coverage; }  // E[L] of a saturated verifier

  static ExitLaw compute(const DraftTree& tree, const TargetRows& rows);
};

// The law of the emitted length L = depth(exit) + 1 under the exit law.
struct LengthLaw {
  std::vector<double> lengths;  // (max depth + 1) the values L takes: 1, 2, ...
  std::vector<double> mass;     // (max depth + 1) P(L = lengths[d]): the exit mass of depth d
};
LengthLaw length_law(const DraftTree& tree, const ExitLaw& law);

// The joint law of (exit node, bonus token) of every saturated exact verifier, (N, V) row-major:
// cell (v, a) = w(v) p_v^res(a) = P(v) p_v(a) 1[a ∉ children of v]. Computed from the target
// rows only, never from a verifier.
std::vector<double> canonical_block_law(const DraftTree& tree, const TargetRows& rows,
                                        const ExitLaw& law);

// Total-variation distance between two laws on the same cells.
double total_variation(std::span<const double> p, std::span<const double> q);

}  // namespace tev
