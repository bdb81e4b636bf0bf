// gpu/device_api.hpp for a build without a CUDA compiler: no GPU can run, and the message says why.
#include <stdexcept>

#include "gpu/device_api.hpp"

namespace tev::gpu {

namespace {
constexpr const char* kNoCuda =
    "this tevsuite was built without CUDA (no nvcc found at configure time, or TEV_CUDA=OFF)";
}

std::string unavailable_reason() { return kNoCuda; }

DeviceTally tally_on_device(FastPath, const std::vector<TallyTree>&, std::uint32_t, std::uint64_t,
                            std::uint64_t, bool) {
  throw std::runtime_error(kNoCuda);
}

StageTimings time_verifier_stage(const StageTree&, const float*, double, std::int32_t) {
  throw std::runtime_error(kNoCuda);
}

}  // namespace tev::gpu
