#pragma once
// The suite's one number formatter: every table, report and message prints numbers through these
// (printf semantics, so a number reads the same wherever it appears).
#include <string>

namespace tev {

// x to `digits` significant digits, fixed or exponent form, whichever is shorter ("%.*g"): 0.00038, 6.2e-05.
std::string num(double x, int digits = 3);
// x with `decimals` digits after the point ("%.*f"): 2.4901 at 4.
std::string fixed(double x, int decimals = 4);
// x in exponent form with `decimals` digits after the point ("%.*e"): 4.90e-03 at 2.
std::string scientific(double x, int decimals = 2);
// text padded on the left to `width` characters (a table column of numbers).
std::string right_aligned(std::string text, int width);

}  // namespace tev
