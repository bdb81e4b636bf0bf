#pragma once
// Central differences, the reference that every hand-written backpropagation is tested against.
#include <cstddef>
#include <functional>
#include <span>
#include <vector>

namespace tev::exittrain {

// (f(x + h e_i) − f(x − h e_i)) / 2h for every coordinate i. f reads x, the parameters, which are
// moved in place one at a time and restored exactly.
inline std::vector<double> central_differences(std::span<double> x,
                                               const std::function<double()>& f, double h = 1e-6) {
  std::vector<double> gradient(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double saved = x[i];
    x[i] = saved + h;
    const double up = f();
    x[i] = saved - h;
    const double down = f();
    x[i] = saved;
    gradient[i] = (up - down) / (2.0 * h);
  }
  return gradient;
}

}  // namespace tev::exittrain
