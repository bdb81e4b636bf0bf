// The exact laws of the generation loops: plain generation's against a direct recursion written
// apart from the loops, every exact loop's equal to it on every default case, every planted fault
// caught.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <vector>

#include "core/compensated_sum.hpp"
#include "generation/check.hpp"
#include "generation/exact_law.hpp"

namespace tev::generation {
namespace {

// P(sequence) by recursion over plain generation's rows, the stop rules spelled out again.
void recurse(const GenerationCase& c, std::vector<Token>& output, double p, SequenceLaw& law) {
  const Request& r = c.request;
  std::vector<Token> context(r.prompt);
  context.insert(context.end(), output.begin(), output.end());
  const RowInputs in{output, static_cast<std::int32_t>(output.size()),
                     r.grammar ? r.grammar->state_after(output) : kUnconstrained};
  const std::vector<double> row = processed_row(r, c.models->target_logits(context), in);
  for (Token t = 0; t < static_cast<Token>(row.size()); ++t) {
    if (!(row[static_cast<std::size_t>(t)] > 0.0)) continue;
    output.push_back(t);
    const double q = p * row[static_cast<std::size_t>(t)];
    if (r.ends_generation(t) || static_cast<std::int32_t>(output.size()) == r.max_new_tokens) {
      law[output] += q;
    } else {
      recurse(c, output, q, law);
    }
    output.pop_back();
  }
}

TEST(GenerationExactLaw, PlainLoopMatchesADirectRecursion) {
  for (const GenerationCase& c : default_generation_cases()) {
    SequenceLaw direct;
    std::vector<Token> output;
    recurse(c, output, 1.0, direct);
    const ExactGeneration plain = enumerate_generation(c, plain_loop());
    EXPECT_LE(sequence_tv(plain.law, direct), 1e-14) << c.id;
    CompensatedSum total;
    for (const auto& [seq, p] : plain.law) total.add(p);
    EXPECT_NEAR(total.value(), 1.0, 1e-14) << c.id;
    EXPECT_NEAR(plain.mean_rounds, plain.mean_length, 1e-12) << c.id << ": one token a round";
  }
}

TEST(GenerationExactLaw, EveryPlainSequenceIsPossibleAndItsWhyNamesTheRule) {
  const auto cases = default_generation_cases();
  const GenerationCase& stops = cases.front();  // EOS 4, stop 3, min_tokens 2, max 4
  EXPECT_NE(
      why_impossible(stops.request, 5, std::vector<Token>{0, 3, 1}).find("goes on after the stop"),
      std::string::npos);
  EXPECT_NE(why_impossible(stops.request, 5, std::vector<Token>{4}).find("before min_tokens"),
            std::string::npos);
  EXPECT_NE(why_impossible(stops.request, 5, std::vector<Token>{0, 1, 2, 0, 1})
                .find("more than max_new_tokens"),
            std::string::npos);
  EXPECT_NE(why_impossible(stops.request, 5, std::vector<Token>{9}).find("outside the vocabulary"),
            std::string::npos);
}

TEST(GenerationExactLaw, ExactLoopsHavePlainGenerationsLawOnEveryCase) {
  for (const GenerationCase& c : default_generation_cases()) {
    const SequenceLaw reference = enumerate_generation(c, plain_loop()).law;
    for (const Loop& loop : generation_loops()) {
      if (!is_exact_loop(loop)) continue;
      const ExactGeneration exact = enumerate_generation(c, loop);
      EXPECT_LE(sequence_tv(reference, exact.law), 1e-12) << loop.name << " on " << c.id;
      if (loop.drafting != Drafting::none) {
        EXPECT_GT(exact.mean_length / exact.mean_rounds, 1.0) << loop.name << " on " << c.id;
      }
    }
  }
}

TEST(GenerationExactLaw, EveryPlantedFaultChangesTheLawOnSomeCase) {
  const auto cases = default_generation_cases();
  std::vector<SequenceLaw> references;
  for (const GenerationCase& c : cases)
    references.push_back(enumerate_generation(c, plain_loop()).law);
  for (const Loop& loop : generation_loops()) {
    if (is_exact_loop(loop)) continue;
    double worst = 0.0;
    for (std::size_t k = 0; k < cases.size(); ++k)
      worst = std::max(worst, sequence_tv(references[k], enumerate_generation(cases[k], loop).law));
    EXPECT_GT(worst, 1e-3) << loop.name;
  }
}

}  // namespace
}  // namespace tev::generation
