// libFuzzer target: the generation-case reader must reject any malformed input with InputError,
// never crash, hang or accept a case whose request the generation layer refuses. The input is a
// cases file, read as the commands read it: one case at a time, line by line.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>

#include "conformance/generation_case.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  tev::conformance::GenerationCaseReader reader(in, "fuzz", {.held_cells = 1 << 12});
  try {
    while (const auto c = reader.next()) {
      // What the reader accepts is a valid request on its models' vocabulary.
      try {
        tev::generation::validate(c->generation.request, c->generation.models->vocab());
      } catch (const std::invalid_argument&) {
        __builtin_trap();
      }
    }
  } catch (const tev::conformance::InputError&) {}
  return 0;
}
