#pragma once
// Neumaier-compensated summation: rows of 151,936 probabilities lose ~1e-12 with a plain loop,
// and the exit law is checked against 1e-12.
#include <cmath>
#include <span>

namespace tev {

class CompensatedSum {
 public:
  void add(double x) {
    const double t = sum_ + x;
    if (std::abs(sum_) >= std::abs(x)) {
      carry_ += (sum_ - t) + x;
    } else {
      carry_ += (x - t) + sum_;
    }
    sum_ = t;
  }
  double value() const { return sum_ + carry_; }

 private:
  double sum_ = 0.0;
  double carry_ = 0.0;
};

inline double compensated_total(std::span<const double> values) {
  CompensatedSum s;
  for (double x : values) s.add(x);
  return s.value();
}

}  // namespace tev
