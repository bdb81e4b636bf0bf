#pragma once
// The engine's own block type, in a file named as one of tevsuite's internal headers.
#include <cstdint>
#include <vector>

namespace tev {
struct Block {
  std::vector<std::int32_t> tokens;  // accepted tokens, then the bonus
};
}  // namespace tev
