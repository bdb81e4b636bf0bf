// Measures exact enumeration of sampled-drafts laws: seconds and branches per (V, D, k) for
// multi-draft rejection sampling (lazy drafting: only entered nodes are drawn) and for TEV, a
// target-only verifier that reads the whole tree, so every tree is drafted: (V^k)^(nodes drafted)
// trees, measured only where that stays below ~10^7. Run by hand: build/bench/sampled_enumeration_limits.
#include <array>
#include <chrono>
#include <cstdio>

#include "judging/sampled_law.hpp"

int main() {
  using namespace tev;
  std::printf("%3s %2s %2s %-34s %12s %10s %10s\n", "V", "D", "k", "case", "branches", "seconds",
              "TV");
  for (const auto [vocab, depth, width] :
       {std::array{4, 2, 2}, std::array{4, 2, 3}, std::array{6, 2, 2}, std::array{8, 2, 2},
        std::array{4, 3, 2}, std::array{4, 3, 3}, std::array{8, 3, 2}, std::array{4, 4, 2},
        std::array{16, 2, 2}, std::array{8, 3, 3}}) {
    const drafts::LanguagePair pair({{workloads::RowFamily::dirichlet, 1.0, 1.0},
                                     vocab,
                                     0.8,
                                     drafts::DrafterKind::perturbed,
                                     7,
                                     depth + 1});
    for (const drafts::SampledCase c :
         {drafts::SampledCase{drafts::SampledVerifierId::rejection_with_replacement,
                              {drafts::DraftPolicy::iid_children, width, depth}},
          drafts::SampledCase{drafts::SampledVerifierId::rejection_without_replacement,
                              {drafts::DraftPolicy::without_replacement, width, depth}},
          drafts::SampledCase{drafts::SampledVerifierId::tree_exit,
                              {drafts::DraftPolicy::iid_children, width, depth}}}) {
      const double trees = judging::max_realized_trees(vocab, c.drafting);
      if (c.verifier == drafts::SampledVerifierId::tree_exit && trees > 1e6) {
        std::printf("%3d %2d %2d %-34s  skipped: up to %.1e trees\n", vocab, depth, width,
                    c.label().c_str(), trees);
        continue;
      }
      const auto start = std::chrono::steady_clock::now();
      const judging::SampledExactLaw law = judging::enumerate_marginal(pair, c);
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::printf("%3d %2d %2d %-34s %12llu %10.3f %10.1e\n", vocab, depth, width,
                  c.label().c_str(), static_cast<unsigned long long>(law.branches), seconds,
                  law.tv);
      std::fflush(stdout);
    }
  }
}
