#pragma once
// Known-answer tests of the statistics core and the verdict policy, run by `tevsuite selftest` and
// at the start of `tevsuite check`, so that a user's own build proves itself (compiler, flags,
// Boost) before it judges anything.
#include <string>
#include <vector>

namespace tev::judging {

struct KnownAnswer {
  std::string name;
  bool passed = false;
  std::string detail;  // computed against expected
};

// One comparison: |computed − expected| ≤ tolerance (tolerance 0: bit equality).
KnownAnswer known_answer(std::string name, double computed, double expected, double tolerance);

std::vector<KnownAnswer> run_selftest();

}  // namespace tev::judging
