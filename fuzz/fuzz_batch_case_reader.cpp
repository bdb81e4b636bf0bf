// libFuzzer target: the batch case reader (format_version 5) must reject any malformed input with
// InputError, never crash, hang or accept an invalid request tree or a batch of two vocabularies.
// The input is a cases file, read as the commands read it: one batch at a time, line by line.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "conformance/batch_case.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  // A small held-cells budget, so a second batch can run past it at fuzzer-sized inputs.
  tev::conformance::BatchCaseReader reader(in, "fuzz", {.held_cells = 256});
  try {
    while (const auto b = reader.next()) {
      if (b->requests.empty() ||
          b->requests.size() > static_cast<std::size_t>(tev::conformance::kMaxBatchRequests))
        __builtin_trap();
      for (const tev::conformance::Case& r : b->requests) {
        if (r.tree.validate().has_value() || r.tree.vocab != b->requests.front().tree.vocab ||
            r.samples != b->samples)
          __builtin_trap();
      }
    }
  } catch (const tev::conformance::InputError&) {}
  return 0;
}
