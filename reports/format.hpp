#pragma once
// Numbers in the commands' tables (moved unchanged from apps/verdicts.cpp).
#include <string>

namespace tev {

std::string fixed(double x, int digits);
std::string scientific(double x);

}  // namespace tev
