// libFuzzer target: a samples file of batch rounds routed to a fixed batch case (the path of
// `tevsuite conformance check` on format_version 5): anything malformed — a short or long round,
// a request out of order or not in the batch, a bad token — must be an InputError, never a crash.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "conformance/sample_router.hpp"

namespace {
const char* kBatch =
    R"({"format_version": 5, "case_id": "k0", "samples": 2, "requests": [)"
    R"({"format_version": 1, "case_id": "a", "vocab": 4, "parents": [-1, 0, 0, 1], "tokens": [null, 0, 1, 2],)"
    R"( "probs": [[0.4, 0.3, 0.2, 0.1], [0.1, 0.2, 0.7, 0.0], {"tokens": [0], "probs": [0.25]}, [0.25, 0.25, 0.25, 0.25]]},)"
    R"({"format_version": 3, "case_id": "b", "vocab": 4, "parents": [-1, 0], "tokens": [null, 3], "sampling": {"top_k": 2},)"
    R"( "logits": [[1.0, 0.5, -1.0, 2.0], {"tokens": [0], "logits": [1.5], "fill": -2.0}]}]})"
    "\n";
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream cases(kBatch);
  std::istringstream samples(std::string(reinterpret_cast<const char*>(data), size));
  try {
    tev::conformance::BatchCaseReader reader(cases, "fuzz cases");
    tev::conformance::BatchSampleRouter router(reader, 1);
    router.add_stream(samples, "fuzz samples");
    router.judge(tev::judging::VerdictPolicy{});
  } catch (const tev::conformance::InputError&) {}
  return 0;
}
