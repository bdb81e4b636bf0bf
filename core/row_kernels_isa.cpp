// One ISA copy of the row kernels (core/row_kernels.hpp). core/CMakeLists.txt compiles this file
// once per ISA level with that level's flags and TEV_ROW_ISA set to its name; the copies differ
// only in the instructions the compiler picks for the same 16-lane GNU vector code.
//
// This file must stay free of templates and inline functions with external linkage (no standard
// headers beyond types): the linker keeps one copy of such a function for the whole program, and
// if it kept the one built here with AVX-512, baseline callers would die with SIGILL on an
// AVX2-only machine. Everything but the exported table sits in an anonymous namespace;
// core/tests/isa_purity.py checks the built library and program.
#include <cstdint>

#include "core/row_kernels.hpp"

#ifndef TEV_ROW_ISA
#error "TEV_ROW_ISA names the ISA copy (baseline, avx2, avx512); set by core/CMakeLists.txt"
#endif
#define TEV_CONCAT_INNER(a, b) a##b
#define TEV_CONCAT(a, b) TEV_CONCAT_INNER(a, b)
#define TEV_STRING_INNER(a) #a
#define TEV_STRING(a) TEV_STRING_INNER(a)

namespace tev::TEV_CONCAT(row_kernels_, TEV_ROW_ISA) {

namespace {

// 16 lanes whatever the ISA: 4 SSE registers, 2 AVX2 registers or 1 AVX-512 register.
typedef float F16 __attribute__((vector_size(64)));
typedef std::int32_t I16 __attribute__((vector_size(64)));
constexpr std::size_t kLanes = 16;

#define TEV_ALWAYS_INLINE inline __attribute__((always_inline))

TEV_ALWAYS_INLINE F16 splat(float x) { return F16{} + x; }
TEV_ALWAYS_INLINE I16 splat_int(std::int32_t x) { return I16{} + x; }
TEV_ALWAYS_INLINE F16 load(const float* p) {
  F16 v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}
// The first n < 16 values of p, the other lanes `fill`.
TEV_ALWAYS_INLINE F16 load_part(const float* p, std::size_t n, float fill) {
  F16 v = splat(fill);
  for (std::size_t j = 0; j < n; ++j) v[j] = p[j];
  return v;
}
TEV_ALWAYS_INLINE I16 bits(F16 x) {
  I16 i;
  __builtin_memcpy(&i, &x, sizeof i);
  return i;
}
TEV_ALWAYS_INLINE F16 from_bits(I16 i) {
  F16 x;
  __builtin_memcpy(&x, &i, sizeof x);
  return x;
}

// Constants of the exponential (see the header for its accuracy).
constexpr float kLog2e = 1.44269504088896341f;
constexpr float kLn2Hi = 0.693359375f;       // 9 significant bits: k · kLn2Hi is exact for |k| ≤ 256
constexpr float kLn2Lo = -2.12194440e-4f;    // ln 2 − kLn2Hi
constexpr float kRoundMagic = 12582912.0f;   // 1.5 · 2^23: adding it rounds to an integer
constexpr float kUnderflow = -87.33654022f;  // the least float whose e^x is a normal float
constexpr float kOverflow = 88.72283173f;    // the greatest float whose e^x is finite

// e^x in every lane. Only IEEE add, sub, mul, compare and bit operations (no FMA: the build
// forbids contraction), so every ISA copy rounds identically.
TEV_ALWAYS_INLINE F16 exp16(F16 x) {
  // Clamp first so k stays in the int range; NaN compares false and becomes kUnderflow here.
  F16 c = x > splat(kUnderflow) ? x : splat(kUnderflow);
  c = c < splat(kOverflow) ? c : splat(kOverflow);
  // k = round(c / ln 2) from the low bits of c·log2e + 1.5·2^23 (round to nearest even).
  const F16 shifted = c * kLog2e + kRoundMagic;
  I16 k = bits(shifted) - bits(splat(kRoundMagic));
  const F16 kf = shifted - kRoundMagic;
  const F16 r = (c - kf * kLn2Hi) - kf * kLn2Lo;
  // e^r on |r| ≤ ln2/2 (Cephes expf polynomial).
  F16 p = splat(1.9875691500e-4f);
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  F16 y = (p * (r * r) + r) + 1.0f;
  // 2^k from the exponent bits. k = 128 (c close to kOverflow) has no float exponent: use
  // 2^127 and double y, which is exact.
  const I16 top = k > 127;
  y = top ? y + y : y;
  k = top ? k - 1 : k;
  y = y * from_bits((k + 127) << 23);
  y = x < splat(kUnderflow) ? splat(0.0f) : y;
  y = x > splat(kOverflow) ? splat(__builtin_inff()) : y;
  return x != x ? x : y;
}

// Lanes added in double, lane 0 first: the fixed order every copy shares.
TEV_ALWAYS_INLINE double lane_total(F16 acc) {
  double total = 0.0;
  for (std::size_t j = 0; j < kLanes; ++j) total += static_cast<double>(acc[j]);
  return total;
}

float row_max(const float* x, std::size_t n) {
  F16 m = splat(-__builtin_inff());
  std::size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    const F16 v = load(x + i);
    m = v > m ? v : m;
  }
  const F16 v = load_part(x + i, n - i, -__builtin_inff());
  m = v > m ? v : m;
  float best = m[0];
  for (std::size_t j = 1; j < kLanes; ++j) best = m[j] > best ? m[j] : best;
  return best;
}

// The exponentials of one row, summed in 16 float lanes; stored to out when `store`.
TEV_ALWAYS_INLINE double exp_pass(const float* x, std::size_t n, float shift, float scale, float* out, bool store) {
  F16 acc = splat(0.0f);
  std::size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    const F16 e = exp16((load(x + i) - shift) * scale);
    if (store) __builtin_memcpy(out + i, &e, sizeof e);
    acc += e;
  }
  const std::size_t rest = n - i;
  if (rest > 0) {
    F16 e = exp16((load_part(x + i, rest, 0.0f) - shift) * scale);
    for (std::size_t j = rest; j < kLanes; ++j) e[j] = 0.0f;  // padding adds exactly nothing
    if (store) {
      for (std::size_t j = 0; j < rest; ++j) out[i + j] = e[j];
    }
    acc += e;
  }
  return lane_total(acc);
}

double exp_store_sum(const float* x, std::size_t n, float shift, float scale, float* out) { return exp_pass(x, n, shift, scale, out, true); }
double exp_sum(const float* x, std::size_t n, float shift, float scale) { return exp_pass(x, n, shift, scale, nullptr, false); }

}  // namespace

extern const RowKernels kTable;
const RowKernels kTable = {TEV_STRING(TEV_ROW_ISA), row_max, exp_store_sum, exp_sum};

}  // namespace tev::TEV_CONCAT(row_kernels_, TEV_ROW_ISA)
