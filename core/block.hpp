#pragma once
// What a verifier returns (device-safe).
#include <cstdint>

namespace tev {

using NodeId = std::int32_t;
using Token = std::int32_t;
inline constexpr NodeId kNoNode = -1;
inline constexpr Token kNoToken = -1;

// The emitted block is π(exit) ‖ bonus: depth(exit) accepted draft tokens, then one bonus token.
struct Block {
  NodeId exit = 0;
  Token bonus = kNoToken;
  bool operator==(const Block&) const = default;  // a member: nvcc 13 rejects defaulted friends
};

}  // namespace tev
