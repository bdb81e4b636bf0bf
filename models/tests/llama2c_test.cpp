#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <random>

#include "models/llama2c.hpp"
#include "models/tests/scratch_dir.hpp"

namespace tev::models {
namespace {

// Tiny shapes: multi-head (kv heads = heads) and grouped-query (2 query heads per kv head).
Llama2Config mha() { return {16, 40, 2, 4, 4, 37, 64, true}; }
Llama2Config gqa() { return {16, 40, 3, 4, 2, 37, 64, false}; }

// A random tree of `budget` nodes under the root with distinct sibling tokens.
DraftTree random_tree(std::int32_t budget, std::int32_t vocab, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<NodeId> parents = {kNoNode};
  std::vector<Token> tokens = {kNoToken};
  for (NodeId i = 1; i <= budget; ++i) {
    const auto p = static_cast<NodeId>(rng() % static_cast<std::uint32_t>(i));
    Token t;
    bool taken;
    do {
      t = static_cast<Token>(rng() % static_cast<std::uint32_t>(vocab));
      taken = false;
      for (NodeId j = 1; j < i; ++j) taken = taken || (parents[j] == p && tokens[j] == t);
    } while (taken);
    parents.push_back(p);
    tokens.push_back(t);
  }
  return tree_from_parents(parents, tokens, vocab).tree;
}

class TreeAttention : public testing::TestWithParam<Llama2Config> {};

// The tree pass must give every node the logits a plain left-to-right forward over context ‖ π(v)
// gives, for a model written to a checkpoint file and read back.
TEST_P(TreeAttention, EveryNodeMatchesTheSequentialForward) {
  const Llama2Config config = GetParam();
  const ScratchDir scratch;
  const std::string path = scratch.file("tiny.bin");
  write_llama2c(path, random_llama2c(config, 7));
  const auto checkpoint = std::make_shared<const Llama2Checkpoint>(read_llama2c(path));
  EXPECT_EQ(checkpoint->config.shared_classifier, config.shared_classifier);
  const Llama2Model model(checkpoint, config.n_layers, "tiny");
  const std::vector<Token> context = {1, 5, 17, 3, 29};
  const DraftTree tree = random_tree(12, config.vocab_size, 11);
  ASSERT_GE(tree.max_depth(), 3);
  const Eigen::MatrixXf tree_logits = model.tree_logits(context, tree);
  float worst = 0.0f;
  for (NodeId v = 0; v < tree.size(); ++v) {
    const Eigen::MatrixXf sequential = model.sequential_logits(context_with_path(context, tree, v));
    worst = std::max(
        worst, (tree_logits.row(v) - sequential.row(sequential.rows() - 1)).cwiseAbs().maxCoeff());
  }
  EXPECT_LE(worst, 1e-4f);
  // The logits are not trivially equal: nodes differ from one another.
  EXPECT_GT((tree_logits.row(1) - tree_logits.row(2)).cwiseAbs().maxCoeff(), 1e-2f);
  // next_row is the softmax of the same forward (float32 logits within 1e-4, so each probability
  // within a relative 1e-4 of the tree pass's).
  const std::vector<double> row = model.next_row(context);
  const std::vector<double> rows = model.tree_rows(context, tree);
  for (std::size_t a = 0; a < row.size(); ++a) EXPECT_NEAR(row[a], rows[a], 2e-4 * rows[a]);
}

INSTANTIATE_TEST_SUITE_P(Shapes, TreeAttention, testing::Values(mha(), gqa()),
                         [](const auto& info) {
                           return info.param.n_kv_heads == info.param.n_heads ? "MHA" : "GQA";
                         });

TEST(Llama2Checkpoint, RoundTripsThroughAFile) {
  const Llama2Checkpoint original = random_llama2c(gqa(), 3);
  const ScratchDir scratch;
  const std::string path = scratch.file("roundtrip.bin");
  write_llama2c(path, original);
  const Llama2Checkpoint read = read_llama2c(path);
  EXPECT_EQ(read.weights, original.weights);
  EXPECT_EQ(read.config.vocab_size, 37);
  EXPECT_FALSE(read.config.shared_classifier);
}

TEST(Llama2Checkpoint, RefusesATruncatedFile) {
  const ScratchDir scratch;
  const std::string path = scratch.file("truncated.bin");
  write_llama2c(path, random_llama2c(mha(), 3));
  std::filesystem::resize_file(path, std::filesystem::file_size(path) - 4);
  try {
    read_llama2c(path);
    FAIL() << "a truncated checkpoint was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
  }
}

TEST(Llama2Checkpoint, RefusesAHeaderThatIsNotATransformer) {
  const ScratchDir scratch;
  const std::string path = scratch.file("bad-header.bin");
  const std::int32_t header[7] = {16, 40, 2, 3, 3, 37, 64};  // 3 heads do not divide dim 16
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(header), sizeof header);
  EXPECT_THROW(read_llama2c(path), std::runtime_error);
  const std::int32_t text[7] = {0x6c6c6548, 0x6f77206f, 0x0a646c72, 0, 0, 0, 0};  // "Hello world\n"
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(text), sizeof text);
  EXPECT_THROW(read_llama2c(path), std::runtime_error);
  EXPECT_THROW(read_llama2c(scratch.file("missing.bin")), std::runtime_error);
}

TEST(Llama2Model, RefusesContextsBeyondItsWindowAndFewerLayersMakeADifferentModel) {
  const auto checkpoint = std::make_shared<const Llama2Checkpoint>(random_llama2c(mha(), 5));
  const Llama2Model full(checkpoint, 2, "full"), draft(checkpoint, 1, "draft");
  EXPECT_THROW(full.next_row(std::vector<Token>(65, 1)), std::invalid_argument);
  EXPECT_THROW(full.next_row(std::vector<Token>{}), std::invalid_argument);
  EXPECT_THROW(Llama2Model(checkpoint, 3, "too deep"), std::invalid_argument);
  const std::vector<Token> context = {1, 2, 3};
  const std::vector<double> p = full.next_row(context), q = draft.next_row(context);
  double tv = 0.0;
  for (std::size_t a = 0; a < p.size(); ++a) tv += 0.5 * std::abs(p[a] - q[a]);
  EXPECT_GT(tv, 0.01);
}

}  // namespace
}  // namespace tev::models
