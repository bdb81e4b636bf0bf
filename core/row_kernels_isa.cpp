// One ISA copy of the row kernels (core/row_kernels.hpp). core/CMakeLists.txt compiles this file
// once per ISA level with that level's flags and TEV_ROW_ISA set to its name; the copies differ
// only in the width of the vectors that hold the same 16-lane computation.
//
// This file must stay free of templates and inline functions with external linkage (no standard
// headers beyond types): the linker keeps one copy of such a function for the whole program, and
// if it kept the one built here with AVX-512, baseline callers would die with SIGILL on an
// AVX2-only machine. Everything but the exported table sits in an anonymous namespace;
// core/tests/isa_purity.py checks the built library and program.
#include <cstdint>
// Only the compiler's intrinsics (always-inline, never emitted out of line) for what GNU vectors
// cannot say in one instruction: the unsigned 32 × 32 → 64 product of each 64-bit lane's low
// half, and MAXPS/MINPS (a select compiles to a compare and a blend).
#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "core/row_kernels.hpp"

#ifndef TEV_ROW_ISA
#error "TEV_ROW_ISA names the ISA copy (baseline, avx2, avx512); set by core/CMakeLists.txt"
#endif
#define TEV_CONCAT_INNER(a, b) a##b
#define TEV_CONCAT(a, b) TEV_CONCAT_INNER(a, b)
#define TEV_ISA_NAMESPACE TEV_CONCAT(row_kernels_, TEV_ROW_ISA)
#define TEV_STRING_INNER(a) #a
#define TEV_STRING(a) TEV_STRING_INNER(a)

namespace tev::TEV_ISA_NAMESPACE {

namespace {

// The 16 lanes every copy computes (lane j takes elements i ≡ j mod 16), held as kParts native
// vectors of kWidth floats: 4 SSE registers, 2 AVX2 registers or 1 AVX-512 register. (A single
// 64-byte GNU vector is not lowered well below AVX-512: GCC scalarizes its selects.)
constexpr std::size_t kLanes = 16;
#if defined(__AVX512F__)
#define TEV_VECTOR_BYTES 64
#elif defined(__AVX2__)
#define TEV_VECTOR_BYTES 32
#else
#define TEV_VECTOR_BYTES 16
#endif
typedef float VF __attribute__((vector_size(TEV_VECTOR_BYTES)));
typedef std::int32_t VI __attribute__((vector_size(TEV_VECTOR_BYTES)));
typedef std::uint32_t VW
    __attribute__((vector_size(TEV_VECTOR_BYTES)));  // bit arithmetic that may wrap
constexpr std::size_t kWidth = TEV_VECTOR_BYTES / sizeof(float);
constexpr std::size_t kParts = kLanes / kWidth;

#define TEV_ALWAYS_INLINE inline __attribute__((always_inline))

TEV_ALWAYS_INLINE VF splat(float x) { return VF{} + x; }
TEV_ALWAYS_INLINE VF load(const float* p) {
  VF v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}
TEV_ALWAYS_INLINE VI bits(VF x) {
  VI i;
  __builtin_memcpy(&i, &x, sizeof i);
  return i;
}
TEV_ALWAYS_INLINE VF from_bits(VI i) {
  VF x;
  __builtin_memcpy(&x, &i, sizeof x);
  return x;
}
// The last n < 16 values of a row as a full block of 16, the other lanes `fill`.
TEV_ALWAYS_INLINE void load_tail(const float* p, std::size_t n, float fill, float* block) {
  for (std::size_t j = 0; j < kLanes; ++j) block[j] = j < n ? p[j] : fill;
}

// Constants of the exponential (see the header for its accuracy).
constexpr float kLog2e = 1.44269504088896341f;
constexpr float kLn2Hi = 0.693359375f;  // 9 significant bits: k · kLn2Hi is exact for |k| ≤ 256
constexpr float kLn2Lo = -2.12194440e-4f;    // ln 2 − kLn2Hi
constexpr float kRoundMagic = 12582912.0f;   // 1.5 · 2^23: adding it rounds to an integer
constexpr float kUnderflow = -87.33654022f;  // the least float whose e^x is a normal float
constexpr float kOverflow = 88.72283173f;    // the greatest float whose e^x is finite

// a > b ? a : b and a < b ? a : b, lane by lane, as the x86 MAXPS/MINPS instructions define them
// (b when either is NaN): one instruction each, where below AVX-512 the GNU-vector select costs a
// compare and a blend. (With AVX-512 the select is a masked move, and GCC 12's _mm512_max_ps
// warns about its own undefined operand.)
TEV_ALWAYS_INLINE VF lane_max(VF a, VF b) {
#if defined(__AVX2__) && !defined(__AVX512F__)
  return (VF)_mm256_max_ps((__m256)a, (__m256)b);
#elif defined(__SSE2__) && !defined(__AVX512F__)
  return (VF)_mm_max_ps((__m128)a, (__m128)b);
#else
  return a > b ? a : b;
#endif
}
TEV_ALWAYS_INLINE VF lane_min(VF a, VF b) {
#if defined(__AVX2__) && !defined(__AVX512F__)
  return (VF)_mm256_min_ps((__m256)a, (__m256)b);
#elif defined(__SSE2__) && !defined(__AVX512F__)
  return (VF)_mm_min_ps((__m128)a, (__m128)b);
#else
  return a < b ? a : b;
#endif
}

// e^x in every lane. Only IEEE add, sub, mul, compare, min/max and integer operations (no FMA:
// the build forbids contraction), so every ISA copy rounds identically.
TEV_ALWAYS_INLINE VF exp_lanes(VF x) {
  // Clamp first so k stays in [−126, 128]; a NaN lane computes garbage, replaced at the end.
  const VF c = lane_min(splat(kOverflow), lane_max(splat(kUnderflow), x));
  // k = round(c / ln 2) from the low bits of c·log2e + 1.5·2^23 (round to nearest even).
  const VF shifted = c * kLog2e + kRoundMagic;
  const VW k = (VW)bits(shifted) - (VW)bits(splat(kRoundMagic));
  const VF kf = shifted - kRoundMagic;
  const VF r = (c - kf * kLn2Hi) - kf * kLn2Lo;
  // e^r on |r| ≤ ln2/2: Cephes expf's polynomial 1 + r + r²·p(r), p of degree 5 evaluated by
  // Estrin's scheme (three independent pairs, then r² and r⁴): the chain of dependent operations
  // is half of Horner's, which is what bounds a row (the out-of-order window cannot hold enough
  // Horner chains). Accuracy as documented in the header, re-measured over every float.
  const VF r2 = r * r;
  const VF r4 = r2 * r2;
  const VF p01 = r * 1.6666665459e-1f + 5.0000001201e-1f;
  const VF p23 = r * 8.3334519073e-3f + 4.1665795894e-2f;
  const VF p45 = r * 1.9875691500e-4f + 1.3981999507e-3f;
  const VF p = (p01 + p23 * r2) + p45 * r4;
  const VF y = (p * r2 + r) + 1.0f;
  // y · 2^k by adding k to y's exponent field, exact wherever the product is a normal float:
  // on the clamped range it always is. (c ≥ kUnderflow makes r > 0 when k = −126, so y ≥ 1;
  // c ≤ kOverflow makes r < 0 when k = 128, so y < 1.) Same bits as multiplying by 2^k.
  // Unsigned, because a NaN lane's garbage k may wrap (signed overflow would be undefined).
  const VF scaled = from_bits((VI)((VW)bits(y) + (k << 23)));
  const VF low = x < splat(kUnderflow) ? splat(0.0f) : scaled;
  // Above kOverflow x·inf is +inf, and for a NaN lane it is NaN: one select for both.
  return !(x <= splat(kOverflow)) ? x * __builtin_inff() : low;
}

float row_max(const float* x, std::size_t n) {
  VF m[kParts];
  for (VF& part : m) part = splat(-__builtin_inff());
  // Selects, not std::max: NaN compares false and is skipped.
  auto take = [&](const float* block) {
    for (std::size_t p = 0; p < kParts; ++p) {
      const VF v = load(block + p * kWidth);
      m[p] = v > m[p] ? v : m[p];
    }
  };
  std::size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) take(x + i);
  float tail[kLanes];
  load_tail(x + i, n - i, -__builtin_inff(), tail);
  take(tail);
  float best = -__builtin_inff();
  for (std::size_t j = 0; j < kLanes; ++j)
    best = m[j / kWidth][j % kWidth] > best ? m[j / kWidth][j % kWidth] : best;
  return best;
}

// The exponentials of one row, summed in 16 float lanes; stored to out when `store`. It also asks
// for the cache line at ahead + i, for i < ahead_n, as it computes x + i (16 floats, one line per
// step): the blocked pass fetches its next block while this one computes, instead of waiting.
TEV_ALWAYS_INLINE double exp_pass(const float* x, std::size_t n, float shift, float scale,
                                  float* out, bool store, const float* ahead = nullptr,
                                  std::size_t ahead_n = 0) {
  VF acc[kParts];
  for (VF& part : acc) part = splat(0.0f);
  std::size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    if (i < ahead_n) __builtin_prefetch(ahead + i);
    for (std::size_t p = 0; p < kParts; ++p) {
      const VF e = exp_lanes((load(x + i + p * kWidth) - shift) * scale);
      if (store) __builtin_memcpy(out + i + p * kWidth, &e, sizeof e);
      acc[p] += e;
    }
  }
  const std::size_t rest = n - i;
  if (rest > 0) {
    float tail[kLanes];
    load_tail(x + i, rest, 0.0f, tail);
    for (std::size_t p = 0; p < kParts; ++p) {
      VF e = exp_lanes((load(tail + p * kWidth) - shift) * scale);
      for (std::size_t w = 0; w < kWidth; ++w) {
        if (p * kWidth + w >= rest) e[w] = 0.0f;  // padding adds exactly nothing
      }
      __builtin_memcpy(tail + p * kWidth, &e, sizeof e);
      acc[p] += e;
    }
    if (store) __builtin_memcpy(out + i, tail, rest * sizeof(float));
  }
  // The lanes in double, lane 0 first: the fixed order every copy shares.
  double total = 0.0;
  for (std::size_t j = 0; j < kLanes; ++j)
    total += static_cast<double>(acc[j / kWidth][j % kWidth]);
  return total;
}

double exp_store_sum(const float* x, std::size_t n, float shift, float scale, float* out) {
  return exp_pass(x, n, shift, scale, out, true);
}
double exp_sum(const float* x, std::size_t n, float shift, float scale) {
  return exp_pass(x, n, shift, scale, nullptr, false);
}

// One memory pass over the row, block by block: each block's maximum from the freshly loaded
// (L1-resident) block, then its exponentials relative to that maximum. Returns the row maximum
// m and, when the outputs are given, per block b its maximum, its factor e^{(m_b − m)·scale}
// and its sum relative to m (the block's own sum times the factor, in double).
float blocked_pass(const float* x, std::size_t n, float scale, float* block_max,
                   float* block_factor, double* block_sum, double* total) {
  const std::size_t blocks = (n + kRowBlock - 1) / kRowBlock;
  float top = -__builtin_inff();
  // Running sums relative to `top`, for the floor (no outputs): rescaled when `top` rises.
  double running = 0.0;
  for (std::size_t b = 0; b < blocks; ++b) {
    const std::size_t begin = b * kRowBlock, len = n - begin < kRowBlock ? n - begin : kRowBlock;
    const float m = row_max(x + begin, len);
    // A block of −inf (masked tokens) adds nothing; exp(−inf − (−inf)) would be NaN.
    const std::size_t next = begin + len, next_len = n - next < kRowBlock
                                                         ? n - next
                                                         : kRowBlock;  // 0 after the last block
    const double s = m == -__builtin_inff()
                         ? 0.0
                         : exp_pass(x + begin, len, m, scale, nullptr, false, x + next, next_len);
    if (block_max != nullptr) {
      block_max[b] = m;
      block_sum[b] = s;
    } else if (m > top && top != -__builtin_inff()) {
      running = running * static_cast<double>(exp_lanes(splat((top - m) * scale))[0]) + s;
    } else if (m > top) {
      running = s;
    } else if (s > 0.0) {
      running += s * static_cast<double>(exp_lanes(splat((m - top) * scale))[0]);
    }
    top = m > top ? m : top;
  }
  if (block_max == nullptr) {
    *total = running;
    return top;
  }
  // The factors, 16 blocks at a time through the same exponential; then the sums relative to top.
  double sum = 0.0;
  for (std::size_t b = 0; b < blocks; b += kLanes) {
    float block[kLanes];
    load_tail(block_max + b, blocks - b < kLanes ? blocks - b : kLanes, top, block);
    for (std::size_t p = 0; p < kParts; ++p) {
      const VF f = top == -__builtin_inff() ? splat(0.0f)
                                            : exp_lanes((load(block + p * kWidth) - top) * scale);
      __builtin_memcpy(block + p * kWidth, &f, sizeof f);
    }
    for (std::size_t j = 0; j < kLanes && b + j < blocks; ++j) {
      block_factor[b + j] = block[j];
      block_sum[b + j] *= static_cast<double>(block[j]);
      sum += block_sum[b + j];
    }
  }
  *total = sum;
  return top;
}

float row_blocks(const float* x, std::size_t n, float scale, float* block_max, float* block_factor,
                 double* block_sum, double* total) {
  return blocked_pass(x, n, scale, block_max, block_factor, block_sum, total);
}
double row_logsumexp(const float* x, std::size_t n, float scale) {
  double total = 0.0;
  const float top = blocked_pass(x, n, scale, nullptr, nullptr, nullptr, &total);
  return static_cast<double>(top) * static_cast<double>(scale) + __builtin_log(total);
}

// Philox4x32-10 (Random123's constants and round), kBatchLanes blocks at a time in 64-bit lanes that
// hold 32-bit words, so one unsigned 32 × 32 → 64 multiply per lane gives both halves. Integer
// operations only: every copy returns exactly Random123's blocks.
typedef std::uint64_t VU __attribute__((vector_size(TEV_VECTOR_BYTES)));
constexpr std::size_t kU64Width = TEV_VECTOR_BYTES / sizeof(std::uint64_t);
constexpr std::size_t kBatchLanes = 8;
constexpr std::size_t kU64Parts = kBatchLanes / kU64Width;

// The low 32 bits of each lane of a times those of b, as full 64-bit products.
TEV_ALWAYS_INLINE VU mul_low32(VU a, VU b) {
#if defined(__AVX512F__)
  return (VU)_mm512_mul_epu32((__m512i)a, (__m512i)b);
#elif defined(__AVX2__)
  return (VU)_mm256_mul_epu32((__m256i)a, (__m256i)b);
#elif defined(__SSE2__)
  return (VU)_mm_mul_epu32((__m128i)a, (__m128i)b);
#else
  const VU low = VU{} + 0xffffffffu;
  return (a & low) * (b & low);
#endif
}

// g++ 12 reports the zero-initialized counter vectors below as maybe uninitialized once they
// are inlined into the AVX-512 multiply: a false positive, silenced for this function alone.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
void philox_blocks(std::uint32_t key0, std::uint32_t key1, std::uint32_t word2, std::uint32_t word3,
                   std::uint64_t first, std::size_t count, std::uint32_t* out) {
  const VU low = VU{} + 0xffffffffu;
  for (std::size_t base = 0; base < count; base += kBatchLanes) {
    VU c0[kU64Parts] = {}, c1[kU64Parts] = {}, c2[kU64Parts] = {}, c3[kU64Parts] = {};
    for (std::size_t p = 0; p < kU64Parts; ++p) {
      for (std::size_t w = 0; w < kU64Width; ++w) {
        const std::uint64_t counter = first + base + p * kU64Width + w;
        c0[p][w] = counter & 0xffffffffu;
        c1[p][w] = counter >> 32;
      }
      c2[p] = VU{} + word2;
      c3[p] = VU{} + word3;
    }
    std::uint32_t k0 = key0, k1 = key1;
    for (int round = 0; round < 10; ++round) {
      for (std::size_t p = 0; p < kU64Parts; ++p) {
        const VU p0 = mul_low32(c0[p], VU{} + 0xD2511F53u),
                 p1 = mul_low32(c2[p], VU{} + 0xCD9E8D57u);
        const VU n0 = (p1 >> 32) ^ c1[p] ^ k0, n2 = (p0 >> 32) ^ c3[p] ^ k1;
        c1[p] = p1 & low;
        c3[p] = p0 & low;
        c0[p] = n0;
        c2[p] = n2;
      }
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    for (std::size_t p = 0; p < kU64Parts; ++p) {
      for (std::size_t w = 0; w < kU64Width; ++w) {
        const std::size_t i = base + p * kU64Width + w;
        if (i >= count) break;
        out[4 * i] = static_cast<std::uint32_t>(c0[p][w]);
        out[4 * i + 1] = static_cast<std::uint32_t>(c1[p][w]);
        out[4 * i + 2] = static_cast<std::uint32_t>(c2[p][w]);
        out[4 * i + 3] = static_cast<std::uint32_t>(c3[p][w]);
      }
    }
  }
}
#pragma GCC diagnostic pop

}  // namespace

extern const RowKernels kTable;
const RowKernels kTable = {
    TEV_STRING(TEV_ROW_ISA), row_max,      exp_store_sum, exp_sum, row_blocks,
    row_logsumexp,           philox_blocks};

}  // namespace tev::TEV_ISA_NAMESPACE
