// libFuzzer target: sample lines against a fixed case; anything malformed must be an InputError
// or a counted impossible event, never a crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "conformance/case_io.hpp"
#include "conformance/judge.hpp"

namespace {
const tev::conformance::Case& fixed_case() {
  static const tev::conformance::Case c = tev::conformance::parse_case(
      R"({"format_version": 1, "case_id": "c0", "vocab": 4, "parents": [-1, 0, 0, 1], "tokens": [null, 0, 1, 2],
          "probs": [[0.4, 0.3, 0.2, 0.1], [0.1, 0.2, 0.7, 0.0], {"tokens": [0], "probs": [0.25]}, [0.25, 0.25, 0.25, 0.25]],
          "samples": 1})",
      "fuzz case");
  return c;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  tev::conformance::CaseJudge judge(fixed_case(), 1, 0);
  try {
    judge.add_line(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
  } catch (const tev::conformance::InputError&) {}
  return 0;
}
