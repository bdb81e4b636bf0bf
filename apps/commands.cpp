#include "apps/commands.hpp"

#include <algorithm>
#include <ostream>
#include <string>
#include <thread>

#include "gpu/gpu_engine.hpp"

namespace tev::apps {

int default_threads() {
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

bool gpu_unavailable(std::ostream& err) {
  const std::string why = gpu::unavailable_reason();
  if (why.empty()) return false;
  err << "tevsuite: --device gpu: no GPU can run here: " << why << '\n';
  return true;
}

CLI::Validator open_unit_interval() {
  return CLI::Validator(
      [](const std::string& text) {
        double x = 0.0;
        return CLI::detail::lexical_cast(text, x) && x > 0.0 && x < 1.0
                   ? std::string()
                   : "must lie strictly between 0 and 1, not " + text;
      },
      "in (0, 1)");
}

}  // namespace tev::apps
