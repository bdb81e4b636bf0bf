#pragma once
// The suite's one softmax and log-sum-exp, in double precision. Wide float rows of the verifier
// stage have their own kernels (core/row_kernels.hpp); everything else normalizes logits here.
#include <span>

namespace tev {

// log Σ_a exp(z[a]), taken relative to the largest entry so nothing overflows; −∞ entries carry no
// mass. Throws std::invalid_argument on an empty span.
double log_sum_exp(std::span<const double> z);

// out[a] = exp((z[a] − max z) / temperature) / Σ_b exp((z[b] − max z) / temperature), the total
// summed compensated (Neumaier) so a long row's normalization does not drift. out may be z itself.
// With temperature 1 the division is exact, so softmax(log p) reproduces p's normalization.
void softmax(std::span<const double> z, std::span<double> out, double temperature = 1.0);

}  // namespace tev
