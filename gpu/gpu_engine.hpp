#pragma once
// The GPU as a Monte Carlo engine and a verifier stage, in the suite's own types. Every call but
// unavailable_reason() throws when no GPU can run (see gpu::unavailable_reason for why).
#include <cstdint>
#include <span>
#include <vector>

#include "core/verifier_catalog.hpp"
#include "gpu/device_api.hpp"
#include "core/logit_verifiers.hpp"
#include "montecarlo/monte_carlo.hpp"
#include "workloads/suite.hpp"

namespace tev::gpu {

// One launch over a batch of trees for a verifier with a fast path: counts[i] equals the CPU
// engine's run_monte_carlo(id, cases[i].tree, cases[i].rows, plan) with tree_id plan.tree_id + i,
// bit for bit (plan.threads and plan.fast_path do not apply). Under mpirun each rank samples its
// slice and the counts are summed over ranks, as on the CPU. kernel_seconds, when given,
// receives the sampling kernel's time.
std::vector<montecarlo::BlockCounts> monte_carlo_batch(VerifierId id,
                                                       std::span<const workloads::CheckCase> cases,
                                                       const montecarlo::MonteCarloPlan& plan,
                                                       double* kernel_seconds = nullptr);

// The engine behind `--device gpu`: a verifier with a fast path runs on the GPU, any other on
// the CPU engine (the GPU has kernels only for the fast paths).
montecarlo::BlockCounts run_monte_carlo(VerifierId id, const DraftTree& tree,
                                        const TargetRows& rows,
                                        const montecarlo::MonteCarloPlan& plan);

// TEV and eager predraw on the GPU over the given logit rows (see time_verifier_stage).
StageTimings time_verifier_stage(const DraftTree& tree, const LogitRows& logits,
                                 std::int32_t calls);

}  // namespace tev::gpu
