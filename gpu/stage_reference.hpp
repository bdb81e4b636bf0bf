#pragma once
// Judges verifier-stage blocks (the GPU's) against core/logit_verifiers on the same draws, with a
// double-precision reference built from the same float32 logits to tell a rounding tie from a
// wrong answer. Plain host code: the CPU half of the GPU test, testable without a GPU.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/block.hpp"
#include "core/draft_tree.hpp"
#include "core/logit_verifiers.hpp"

namespace tev::gpu {

enum class StageVerifier { tev, predraw_eager };

// Relative rounding bounds on a row's cumulative masses, against the reference's exact-in-double
// e_a = exp(x_a) of the same float32 x_a = (l_a − max) · (1/T) (every implementation rounds x_a
// alike: no FMA contraction). Masses are positive, so a bound per term bounds every partial sum.
// GPU: CUDA's expf is within 2 ulp, and one ulp of a float is at most 2^−23 of it; sums in double.
inline constexpr double kGpuRowError = 2.0 / (1 << 23);
// CPU: Eigen's float exp (a few ulp: 4 · 2^−23 allowed) and float32 sums over blocks of 1,024
// tokens, whose worst case is (1024 − 1) · 2^−24 ≈ 6.1e-5 of the block (core/logit_verifiers' RowExps).
inline constexpr double kCpuRowError = (1024.0 + 8.0) / (1 << 24);

// core/logit_verifiers' blocks for calls [0, calls), call i drawing at stage_draw_site(i):
// tev_from_logits or predraw_eager_from_logits.
std::vector<Block> cpu_stage_blocks(StageVerifier verifier, const DraftTree& tree,
                                    const LogitRows& logits, std::int32_t calls, int threads = 1);

struct StageAgreement {
  std::int32_t calls = 0;
  std::int32_t identical = 0;  // blocks equal to the CPU's
  std::int32_t ties =
      0;  // blocks that differ from the CPU's, both within rounding of the reference
  std::vector<std::string> failures;  // every call whose block no rounding explains, in words
};

// Call i's block from `device` must be the reference answer for its draws up to device_error
// (each draw's uniform within device_error · mass of its token's cumulative interval; the exit
// within (2 · max depth + 2) · device_error of the total, since P and ρ compound one row ratio
// per level). Where it differs from cpu[i], the CPU's block must be one too, up to kCpuRowError:
// a disagreement is allowed only where a uniform falls that close to a boundary between the two
// answers. Saturation follows: a bonus that is a drafted child's token is never an answer.
StageAgreement compare_stage_blocks(StageVerifier verifier, const DraftTree& tree,
                                    const LogitRows& logits, std::span<const Block> device,
                                    std::span<const Block> cpu, double device_error = kGpuRowError);

}  // namespace tev::gpu
