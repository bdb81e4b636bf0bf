// Measures exact enumeration of sampled-drafts laws: seconds and branches per (V, D, k) for the
// slowest verifier families (a target-only verifier, which drafts the whole tree, and multi-draft
// rejection sampling, which drafts lazily). Run by hand: build/bench/sampled_enumeration_limits.
#include <chrono>
#include <cstdio>

#include "sim/sampled_law.hpp"

int main() {
  using namespace tev;
  std::printf("%3s %2s %2s %-34s %12s %10s %10s\n", "V", "D", "k", "case", "branches", "seconds", "TV");
  for (const auto [vocab, depth, width] : {std::array{4, 2, 2}, std::array{4, 3, 2}, std::array{4, 2, 3}, std::array{6, 2, 2},
                                           std::array{8, 2, 2}, std::array{4, 3, 3}, std::array{8, 3, 2}}) {
    const LanguagePair pair({{RowFamily::dirichlet, 1.0, 1.0}, vocab, 0.8, DrafterKind::perturbed, 7, depth + 1});
    for (const SampledCase c : {SampledCase{SampledVerifierId::rejection_with_replacement, {DraftPolicy::iid_children, width, depth}},
                                SampledCase{SampledVerifierId::rejection_without_replacement, {DraftPolicy::without_replacement, width, depth}},
                                SampledCase{SampledVerifierId::tree_exit, {DraftPolicy::iid_children, width, depth}}}) {
      const auto start = std::chrono::steady_clock::now();
      const SampledExactLaw law = enumerate_marginal(pair, c);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::printf("%3d %2d %2d %-34s %12llu %10.3f %10.1e\n", vocab, depth, width, c.label().c_str(),
                  static_cast<unsigned long long>(law.branches), seconds, law.tv);
      std::fflush(stdout);
    }
  }
}
