// libFuzzer target: the conformance case reader must reject any malformed input with InputError,
// never crash, hang or accept an invalid tree. The input is a cases file, read as the commands read
// it: one case at a time, line by line (so duplicate ids and the held-cells limit are in reach).
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "conformance/case_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  // A small held-cells budget, so a second case can run past it at fuzzer-sized inputs.
  tev::conformance::CaseReader reader(in, "fuzz", {.held_cells = 64});
  try {
    while (const auto c = reader.next()) {
      // What the reader accepts must be a valid tree with normalized rows.
      if (c->tree.validate().has_value()) __builtin_trap();
    }
  } catch (const tev::conformance::InputError&) {}
  return 0;
}
