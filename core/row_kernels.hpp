#pragma once
// Wide-vector kernels over one row of float32 logits (V = 151,936 for a Qwen-sized vocabulary):
// the row maximum and exp((x − shift) · scale) with its sum, the blocked one-pass log-sum-exp —
// and, through the same per-ISA copies, batched Philox blocks for the Monte Carlo engine. They are the only code in the suite
// built for ISAs beyond baseline x86-64: core/row_kernels_isa.cpp is compiled once per ISA level
// (baseline; AVX2; AVX-512F on x86-64) into its own namespace, and row_kernels() picks the widest
// copy the running CPU supports. Every copy computes the same IEEE operations in the same order
// (16 lanes, fixed combination), so all copies return bit-identical results.
//
// The exponential: Cody–Waite reduction x = k·ln2 + r, |r| ≤ ln2/2, a degree-7 polynomial for
// e^r (Cephes expf's coefficients, Estrin's evaluation order) and 2^k added to its exponent bits,
// about 37 vector instructions per 8 lanes. Measured against the correctly rounded
// (float)std::exp((double)x) over every float in [−87.33654022, 88.72283173] (the floats whose
// e^x is a finite normal float, all 2.24e9 of them): at most 1 ulp, 0.807 % of results not
// correctly rounded, the same in every copy (and the same figures as Horner's order, which
// differs from this one in 0.03 % of the results). Below that range it returns 0 where std::exp
// gives a subnormal (absolute error < 1.2e-38), above it +inf; NaN stays NaN.
//
// Override the choice with TEV_ROW_KERNEL=baseline|avx2|avx512 (tests and benchmarks compare
// the copies); asking for a copy this build or CPU lacks is an error.
#include <cstddef>
#include <cstdint>

namespace tev {

// One ISA copy of the kernels. Plain function pointers: no template crosses the ISA boundary.
struct RowKernels {
  const char* name;  // "baseline", "avx2" or "avx512"
  // max of x[0..n) (n ≥ 1); NaN entries are skipped.
  float (*max)(const float* x, std::size_t n);
  // out[i] = exp((x[i] − shift) · scale) for i < n, returning Σ out[i]: float sums in 16 lanes
  // (lane j takes i ≡ j mod 16 in order), then the lanes added in double, lane 0 first.
  double (*exp_store_sum)(const float* x, std::size_t n, float shift, float scale, float* out);
  // The same sum without storing the exponentials (half the memory traffic).
  double (*exp_sum)(const float* x, std::size_t n, float shift, float scale);
  // One memory pass over the row in blocks of kRowBlock: per block b its maximum m_b (block_max),
  // its sum s_b = exp_sum(block, m_b, scale) and, once the row maximum m is known, the factor
  // f_b = e^{(m_b − m)·scale} (the same exponential, 16 blocks at a time; 0 for a block of −inf)
  // and block_sum[b] = s_b · f_b in double. Returns m; *total = Σ_b block_sum[b] in block order.
  // Outputs hold ceil(n / kRowBlock) entries.
  float (*blocks)(const float* x, std::size_t n, float scale, float* block_max, float* block_factor,
                  double* block_sum, double* total);
  // The row floor: log Σ e^{x·scale} in the same single blocked pass, keeping only a running
  // sum (rescaled when the maximum rises). `bench verifier` times every verifier against it.
  double (*logsumexp)(const float* x, std::size_t n, float scale);
  // Philox4x32-10 blocks for key (key0, key1) and counters (c, c >> 32, word2, word3) with
  // c = first + i, i < count: out[4i .. 4i + 3] = philox_block's words, several blocks per vector
  // (the Monte Carlo engine's batched draws; the same integers in every copy).
  void (*philox_blocks)(std::uint32_t key0, std::uint32_t key1, std::uint32_t word2,
                        std::uint32_t word3, std::uint64_t first, std::size_t count,
                        std::uint32_t* out);
};

// The block of the blocked pass: 4 KB of floats, resident in L1 between a block's maximum and its
// exponentials; its float lanes sum 64 terms each.
inline constexpr std::size_t kRowBlock = 1024;

enum class RowIsa { baseline, avx2, avx512 };
inline constexpr RowIsa kRowIsas[] = {RowIsa::baseline, RowIsa::avx2, RowIsa::avx512};

// The copy for `isa`, or nullptr when this build has none or the running CPU cannot run it.
const RowKernels* row_kernels_for(RowIsa isa);

// The copy named by `request` ("baseline", "avx2", "avx512"), or the widest available one when
// request is null or empty. Throws std::invalid_argument for an unknown or unavailable name.
const RowKernels& select_row_kernels(const char* request);

// The copy the program uses: select_row_kernels(getenv("TEV_ROW_KERNEL")), chosen once.
const RowKernels& row_kernels();

}  // namespace tev
