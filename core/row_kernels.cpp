// The row-kernel dispatcher: baseline code that picks one of the ISA copies of
// core/row_kernels_isa.cpp (core/CMakeLists.txt defines TEV_ROW_AVX2 / TEV_ROW_AVX512 when it
// builds those copies).
#include "core/row_kernels.hpp"

#include <cstdlib>
#include <stdexcept>
#include <string>

namespace tev {

namespace row_kernels_baseline {
extern const RowKernels kTable;
}
#ifdef TEV_ROW_AVX2
namespace row_kernels_avx2 {
extern const RowKernels kTable;
}
#endif
#ifdef TEV_ROW_AVX512
namespace row_kernels_avx512 {
extern const RowKernels kTable;
}
#endif

const RowKernels* row_kernels_for(RowIsa isa) {
  switch (isa) {
    case RowIsa::baseline:
      return &row_kernels_baseline::kTable;
    case RowIsa::avx2:
#ifdef TEV_ROW_AVX2
      // The copy is built with -mavx2 alone (no FMA: contraction is off), so AVX2 is all it needs.
      if (__builtin_cpu_supports("avx2")) return &row_kernels_avx2::kTable;
#endif
      return nullptr;
    case RowIsa::avx512:
#ifdef TEV_ROW_AVX512
      // Built with -mavx512f alone; libgcc's check includes the OS saving the zmm state.
      if (__builtin_cpu_supports("avx512f")) return &row_kernels_avx512::kTable;
#endif
      return nullptr;
  }
  return nullptr;
}

namespace {
const char* isa_name(RowIsa isa) {
  switch (isa) {
    case RowIsa::baseline:
      return "baseline";
    case RowIsa::avx2:
      return "avx2";
    case RowIsa::avx512:
      return "avx512";
  }
  return "";
}
}  // namespace

const RowKernels& select_row_kernels(const char* request) {
  if (request == nullptr || *request == '\0') {
    const RowKernels* widest = nullptr;
    for (RowIsa isa : kRowIsas) {
      if (const RowKernels* k = row_kernels_for(isa)) widest = k;
    }
    return *widest;  // the baseline copy always exists
  }
  const std::string name(request);
  for (RowIsa isa : kRowIsas) {
    if (name != isa_name(isa)) continue;
    if (const RowKernels* k = row_kernels_for(isa)) return *k;
    throw std::invalid_argument("TEV_ROW_KERNEL=" + name + ": this build or this CPU has no " +
                                name + " row kernels");
  }
  throw std::invalid_argument("TEV_ROW_KERNEL=" + name + ": expected baseline, avx2 or avx512");
}

const RowKernels& row_kernels() {
  static const RowKernels& chosen = select_row_kernels(std::getenv("TEV_ROW_KERNEL"));
  return chosen;
}

}  // namespace tev
