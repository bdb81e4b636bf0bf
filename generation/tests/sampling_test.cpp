// The generation sampler: identical for any thread count, every sample a generation the loop can
// emit.
#include <gtest/gtest.h>

#include "generation/check.hpp"

namespace tev::generation {
namespace {

TEST(GenerationSampling, SameStreamForAnyThreadCount) {
  const auto cases = default_generation_cases();
  const GenerationCase& c = cases[1];
  const SequenceCells cells(enumerate_generation(c, plain_loop()).law);
  const Loop& chain = generation_loops()[3];
  ASSERT_EQ(chain.name, "chain_rejection");
  const GenerationSamples one = sample_generations(c, chain, cells, 3000, 7, 0, 1);
  const GenerationSamples two = sample_generations(c, chain, cells, 3000, 7, 0, 2);
  EXPECT_EQ(one.stream, two.stream);
  EXPECT_EQ(one.tokens, two.tokens);
  EXPECT_EQ(one.rounds, two.rounds);
  EXPECT_EQ(one.impossible, 0u);
  EXPECT_GT(one.tokens, one.rounds) << "speculation emits more than a token a round";
}

TEST(GenerationSampling, AnImpossibleGenerationIsNamedInWords) {
  const auto cases = default_generation_cases();
  const GenerationCase& c = cases[0];  // stops: EOS and a stop token, min_tokens 2
  const SequenceCells cells(enumerate_generation(c, plain_loop()).law);
  for (const Loop& loop : generation_loops()) {
    if (loop.fault != Fault::eos_mid_block_emits_rest) continue;
    const GenerationSamples s = sample_generations(c, loop, cells, 3000, 7, 0, 2);
    ASSERT_GT(s.impossible, 0u);
    EXPECT_NE(s.first_impossible.find("goes on after the stop token"), std::string::npos)
        << s.first_impossible;
  }
}

}  // namespace
}  // namespace tev::generation
