#include "reports/format.hpp"

#include <iomanip>
#include <sstream>

namespace tev {

std::string fixed(double x, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << x;
  return s.str();
}

std::string scientific(double x) {
  std::ostringstream s;
  s << std::scientific << std::setprecision(2) << x;
  return s.str();
}

}  // namespace tev
