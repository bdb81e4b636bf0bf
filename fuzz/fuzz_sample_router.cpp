// libFuzzer target: a samples file routed to the cases of a fixed cases file (the path of
// `tevsuite conformance check`); anything malformed must be an InputError, never a crash.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "conformance/case_io.hpp"
#include "conformance/sample_router.hpp"

namespace {
const char* kCases =
    R"({"format_version": 1, "case_id": "c0", "vocab": 4, "parents": [-1, 0, 0, 1], "tokens": [null, 0, 1, 2],)"
    R"( "probs": [[0.4, 0.3, 0.2, 0.1], [0.1, 0.2, 0.7, 0.0], {"tokens": [0], "probs": [0.25]}, [0.25, 0.25, 0.25, 0.25]], "samples": 2})"
    "\n"
    R"({"format_version": 1, "case_id": "c1", "vocab": 2, "parents": [-1], "tokens": [null], "probs": [[0.5, 0.5]], "samples": 1})"
    "\n";
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream cases(kCases);
  std::istringstream samples(std::string(reinterpret_cast<const char*>(data), size));
  try {
    tev::conformance::CaseReader reader(cases, "fuzz cases");
    tev::conformance::SampleRouter router(reader, 1);
    router.add_stream(samples, "fuzz samples");
    router.judge(tev::judging::VerdictPolicy{});
  } catch (const tev::conformance::InputError&) {}
  return 0;
}
