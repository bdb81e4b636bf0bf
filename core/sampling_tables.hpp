#pragma once
// Host-side owner of the per-tree tables the fast kernels read; built once per tree, in double.
#include <vector>

#include "core/draft_tree.hpp"
#include "core/fast_verifiers.hpp"
#include "core/target_rows.hpp"
#include "core/verifiers.hpp"

namespace tev {

class TreeTables {
 public:
  // order: the child order sequential residual verification tests in.
  TreeTables(const DraftTree& tree, const TargetRows& rows, const ChildOrder& order);
  // The view points into this object's vectors: a copy would point into the original.
  TreeTables(const TreeTables&) = delete;
  TreeTables& operator=(const TreeTables&) = delete;
  TreeTables(TreeTables&&) = default;
  const TreeTablesView& view() const { return view_; }

 private:
  std::vector<std::int32_t> first_child_, child_count_, depth_, child_of_token_, walk_offset_,
      test_child_;
  std::vector<std::int32_t> exit_guide_, row_guide_, residual_guide_, final_residual_guide_;
  std::vector<double> exit_cum_, row_cum_, residual_cum_, walk_cum_, test_cum_, final_residual_cum_;
  TreeTablesView view_;
};

}  // namespace tev
