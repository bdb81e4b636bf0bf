#include "core/format.hpp"

#include <cstdio>

namespace tev {

namespace {
std::string printf_double(const char* format, int precision, double x) {
  const int length = std::snprintf(nullptr, 0, format, precision, x);
  std::string out(static_cast<std::size_t>(length > 0 ? length : 0), '\0');
  std::snprintf(out.data(), out.size() + 1, format, precision, x);
  return out;
}
}  // namespace

std::string num(double x, int digits) { return printf_double("%.*g", digits, x); }
std::string fixed(double x, int decimals) { return printf_double("%.*f", decimals, x); }
std::string scientific(double x, int decimals) { return printf_double("%.*e", decimals, x); }

std::string right_aligned(std::string text, int width) {
  if (static_cast<int>(text.size()) < width)
    text.insert(0, static_cast<std::size_t>(width) - text.size(), ' ');
  return text;
}

}  // namespace tev
