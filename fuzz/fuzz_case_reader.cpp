// libFuzzer target: the conformance case reader must reject any malformed line with InputError,
// never crash, hang or accept an invalid tree.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "conformance/case_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view line(reinterpret_cast<const char*>(data), size);
  try {
    const tev::conformance::Case c = tev::conformance::parse_case(line, "fuzz");
    // What the reader accepts must be a valid tree with normalized rows.
    if (c.tree.validate().has_value()) __builtin_trap();
  } catch (const tev::conformance::InputError&) {
  }
  return 0;
}
