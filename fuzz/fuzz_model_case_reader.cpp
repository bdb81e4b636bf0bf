// libFuzzer target: the model-case reader must reject any malformed input with InputError, never
// crash, hang or accept a case whose rows are not laws. The input is a cases file, read as the
// commands read it: one case at a time, line by line (duplicate ids and the held-cells limit in reach).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "conformance/model_case.hpp"
#include "core/compensated_sum.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  // A small held-cells budget, so a second case can run past it at fuzzer-sized inputs.
  tev::conformance::ModelCaseReader reader(in, "fuzz", {.held_cells = 512});
  try {
    while (const auto c = reader.next()) {
      // What the reader accepts must hold a normalized p and q row for every prefix up to D.
      const tev::drafts::LanguagePair& pair = c->pair;
      if (pair.horizon() != c->depth + 1) __builtin_trap();
      for (std::size_t i = 0; i < pair.prefixes(); ++i) {
        const auto prefix = pair.prefix(i);
        for (const auto row : {pair.p(prefix), pair.q(prefix)}) {
          if (std::abs(tev::compensated_total(row) - 1.0) > 1e-9) __builtin_trap();
        }
      }
    }
  } catch (const tev::conformance::InputError&) {}
  return 0;
}
