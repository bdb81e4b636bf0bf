#include "montecarlo/ranks.hpp"

#include <stdexcept>
#include <string>

namespace tev::montecarlo {

namespace {

template <typename T>
void sum_with(const Ranks& ranks, std::span<T> values) {
  if (ranks.size == 1) return;
  if (ranks.collective == nullptr)
    throw std::logic_error("Ranks::sum: " + std::to_string(ranks.size) +
                           " ranks but no collective to sum over them");
  ranks.collective->sum(values);
}

}  // namespace

std::pair<std::uint64_t, std::uint64_t> Ranks::slice(std::uint64_t first,
                                                     std::uint64_t total) const {
  const auto n = static_cast<std::uint64_t>(size), r = static_cast<std::uint64_t>(rank);
  const std::uint64_t begin = total * r / n, end = total * (r + 1) / n;
  return {first + begin, end - begin};
}

void Ranks::sum(std::span<std::uint64_t> values) const { sum_with(*this, values); }
void Ranks::sum(std::span<std::int64_t> values) const { sum_with(*this, values); }

}  // namespace tev::montecarlo
