#pragma once
// Small random trees with target rows for RapidCheck, shrinking by dropping whole subtrees.
#include <cstdint>
#include <ostream>
#include <rapidcheck.h>
#include <vector>

#include "core/draft_tree.hpp"
#include "core/target_rows.hpp"

namespace tev::properties {

struct SmallCase {
  std::int32_t vocab = 2;
  std::vector<NodeId> parents;  // (n) creation order, parents[i] < i, parents[0] = -1
  std::vector<Token> tokens;    // (n) distinct among siblings; tokens[0] unused
  std::vector<int> weights;  // (n, vocab) integer row weights 0..9, each row with a positive entry

  DraftTree tree() const;   // level order
  TargetRows rows() const;  // in the level order of tree()
};

// The case without node v and its descendants (v ≥ 1).
SmallCase drop_subtree(const SmallCase& c, NodeId v);

// Up to max_nodes nodes (root included) over 2..max_vocab tokens; integer weights give exact
// zeros (impossible blocks) and lopsided rows.
rc::Gen<SmallCase> small_cases(int max_nodes = 8, int max_vocab = 5);

void showValue(const SmallCase& c, std::ostream& os);

}  // namespace tev::properties

namespace rc {
template <>
struct Arbitrary<tev::properties::SmallCase> {
  static Gen<tev::properties::SmallCase> arbitrary() { return tev::properties::small_cases(); }
};
}  // namespace rc
