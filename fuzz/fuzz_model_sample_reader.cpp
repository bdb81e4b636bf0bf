// libFuzzer target: sample lines (with or without a diagnostic tree) against a fixed model case;
// anything malformed must be an InputError or a counted impossible event, never a crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "conformance/model_judge.hpp"

namespace {
// V = 3, D = 2: q never drafts token 2 at the root, p forbids token 1 after [0].
const tev::conformance::ModelCase& fixed_case() {
  static const tev::conformance::ModelCase c = [] {
    std::string rows;
    for (const char* prefix : {"[]", "[0]", "[1]", "[2]", "[0,0]", "[0,1]", "[0,2]", "[1,0]",
                               "[1,1]", "[1,2]", "[2,0]", "[2,1]", "[2,2]"}) {
      const bool root = std::string_view(prefix) == "[]",
                 after0 = std::string_view(prefix) == "[0]";
      rows += std::string(rows.empty() ? "" : ",") + "{\"prefix\":" + prefix +
              ",\"p\":" + (after0 ? "[0.5,0,0.5]" : "[0.2,0.3,0.5]") +
              ",\"q\":" + (root ? "[0.6,0.4,0]" : "[0.3,0.3,0.4]") + "}";
    }
    return tev::conformance::parse_model_case(
        R"({"format_version": 2, "case_id": "m0", "vocab": 3, "depth": 2, "samples": 1, "rows": [)" +
            rows + "]}",
        "fuzz case");
  }();
  return c;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  tev::conformance::ModelCaseJudge judge(fixed_case(), 1, 0);
  try {
    judge.add_line(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
  } catch (const tev::conformance::InputError&) {}
  return 0;
}
