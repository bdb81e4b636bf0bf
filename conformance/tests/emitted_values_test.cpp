// `conformance emit`'s lines and the in-process check's cases are one thing: every line emit
// writes reads back (parse_case, parse_model_case, parse_batch_case) as exactly the typed case the
// check builds from the same generator without the JSON (tree_case_values, model_case_values,
// batch_case_values), field for field and bit for bit, for every format the check uses: fixed-tree
// cases (1) and engine-shaped ones (3), model cases (2, 4), batches of requests (5, both kinds).
// The default configurations, the ones the check runs on (the sparse V = 50,000 case included).
#include <gtest/gtest.h>

#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "conformance/emit.hpp"

namespace tev::conformance {
namespace {

bool same(std::span<const double> a, std::span<const double> b) {
  return std::ranges::equal(a, b);  // bit for bit (no NaN in a case)
}

void expect_same_case(const Case& read, const Case& built) {
  SCOPED_TRACE(read.id);
  EXPECT_EQ(read.id, built.id);
  EXPECT_EQ(read.label, built.label);
  EXPECT_EQ(read.samples, built.samples);
  EXPECT_EQ(read.format_version, built.format_version);
  EXPECT_EQ(read.sampling, built.sampling);
  EXPECT_TRUE(same(read.logits, built.logits));
  EXPECT_EQ(read.tree.parent, built.tree.parent);
  EXPECT_EQ(read.tree.token, built.tree.token);
  EXPECT_EQ(read.tree.depth, built.tree.depth);
  EXPECT_EQ(read.tree.first_child, built.tree.first_child);
  EXPECT_EQ(read.tree.child_count, built.tree.child_count);
  EXPECT_EQ(read.tree.level_offset, built.tree.level_offset);
  EXPECT_EQ(read.tree.vocab, built.tree.vocab);
  EXPECT_EQ(read.rows.rows(), built.rows.rows());
  EXPECT_EQ(read.rows.vocab(), built.rows.vocab());
  EXPECT_TRUE(same(read.rows.data(), built.rows.data()));
  EXPECT_EQ(read.order, built.order);
}

// Every emitted line, read back by parse, is the built case at its index (expect_same).
template <class T, class Parse, class Same>
void expect_read_back_as_built(const std::vector<std::string>& lines, const std::vector<T>& built,
                               std::int32_t count, Parse&& parse, Same&& expect_same) {
  ASSERT_EQ(lines.size(), built.size());
  ASSERT_EQ(lines.size(), static_cast<std::size_t>(count));
  for (std::size_t k = 0; k < lines.size(); ++k)
    expect_same(parse(lines[k], "emitted line " + std::to_string(k), CaseLimits{}), built[k]);
}

void expect_same_tree_cases(const EmitConfig& config) {
  expect_read_back_as_built(emit_configured(config), tree_case_values(config), config.cases,
                            parse_case, expect_same_case);
}

TEST(EmittedValues, FixedTreeCasesReadBackAsBuilt) { expect_same_tree_cases({}); }

TEST(EmittedValues, EngineShapedCasesReadBackAsBuilt) {
  expect_same_tree_cases({.engine_inputs = true});
}

void expect_same_model_case(const ModelCase& read, const ModelCase& b) {
  SCOPED_TRACE(read.id);
  EXPECT_EQ(read.id, b.id);
  EXPECT_EQ(read.label, b.label);
  EXPECT_EQ(read.samples, b.samples);
  EXPECT_EQ(read.depth, b.depth);
  ASSERT_EQ(read.drafting.has_value(), b.drafting.has_value());
  if (read.drafting) {
    EXPECT_EQ(read.drafting->policy, b.drafting->policy);
    EXPECT_EQ(read.drafting->width, b.drafting->width);
    EXPECT_EQ(read.drafting->depth, b.drafting->depth);
  }
  EXPECT_EQ(read.format_version, b.format_version);
  EXPECT_EQ(read.target_sampling, b.target_sampling);
  EXPECT_EQ(read.drafter_sampling, b.drafter_sampling);
  EXPECT_TRUE(same(read.logits.p, b.logits.p));
  EXPECT_TRUE(same(read.logits.q, b.logits.q));
  ASSERT_EQ(read.pair.vocab(), b.pair.vocab());
  ASSERT_EQ(read.pair.horizon(), b.pair.horizon());
  ASSERT_EQ(read.pair.prefixes(), b.pair.prefixes());
  for (std::size_t i = 0; i < read.pair.prefixes(); ++i) {
    const std::vector<Token> prefix = read.pair.prefix(i);
    EXPECT_TRUE(same(read.pair.p(prefix), b.pair.p(prefix))) << "p, prefix " << i;
    EXPECT_TRUE(same(read.pair.q(prefix), b.pair.q(prefix))) << "q, prefix " << i;
  }
}

void expect_same_model_cases(const ModelEmitConfig& config) {
  expect_read_back_as_built(emit_configured(config), model_case_values(config), config.cases,
                            parse_model_case, expect_same_model_case);
}

TEST(EmittedValues, ModelCasesReadBackAsBuilt) { expect_same_model_cases({}); }

TEST(EmittedValues, EngineShapedModelCasesReadBackAsBuilt) {
  expect_same_model_cases({.engine_inputs = true});
}

void expect_same_batch(const BatchCase& read, const BatchCase& built) {
  SCOPED_TRACE(read.id);
  EXPECT_EQ(read.id, built.id);
  EXPECT_EQ(read.label, built.label);
  EXPECT_EQ(read.samples, built.samples);
  ASSERT_EQ(read.requests.size(), built.requests.size());
  for (std::size_t r = 0; r < read.requests.size(); ++r)
    expect_same_case(read.requests[r], built.requests[r]);
}

void expect_same_batches(const EmitConfig& config) {
  expect_read_back_as_built(emit_configured(config), batch_case_values(config), config.cases,
                            parse_batch_case, expect_same_batch);
}

TEST(EmittedValues, BatchesReadBackAsBuilt) {
  expect_same_batches({.cases = kDefaultBatches, .batch = 4});
}

TEST(EmittedValues, EngineShapedBatchesReadBackAsBuilt) {
  expect_same_batches({.cases = kDefaultBatches, .engine_inputs = true, .batch = 4});
}

}  // namespace
}  // namespace tev::conformance
