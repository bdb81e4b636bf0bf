#include "apps/commands.hpp"

#include <algorithm>
#include <ostream>
#include <string>
#include <thread>

#include "gpu/gpu_engine.hpp"

namespace tev::apps {

int default_threads() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

bool gpu_unavailable(std::ostream& err) {
  const std::string why = gpu::unavailable_reason();
  if (why.empty()) return false;
  err << "tevsuite: --device gpu: no GPU can run here: " << why << '\n';
  return true;
}

}  // namespace tev::apps
