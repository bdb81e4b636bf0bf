// The requests of one semantics: the selection keeps exactly the default requests in it, in their
// order, and a fault its requests cannot show (a grammar fault where no request has a grammar) is
// found unexercised by enumeration, not judged a miss.
#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "generation/check.hpp"

namespace tev::generation {
namespace {

std::vector<std::string> ids(const std::vector<GenerationCase>& cases) {
  std::vector<std::string> out;
  for (const GenerationCase& c : cases) out.push_back(c.id);
  return out;
}

TEST(SemanticsSelection, KeepsTheDefaultRequestsInItInOrder) {
  const std::vector<GenerationCase> all = default_generation_cases();
  std::size_t selected = 0;
  for (Semantics s : kSemantics) {
    std::vector<std::string> expected;
    for (const GenerationCase& c : all)
      if (c.request.semantics == s) expected.push_back(c.id);
    EXPECT_FALSE(expected.empty()) << semantics_name(s);
    EXPECT_EQ(ids(default_generation_cases(s)), expected) << semantics_name(s);
    selected += expected.size();
  }
  EXPECT_EQ(selected, all.size());
}

TEST(SemanticsSelection, AnUnknownNameListsTheKnownOnes) {
  try {
    parse_semantics("sglang");
    FAIL() << "an unknown semantics was parsed";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "unknown semantics 'sglang': the known ones are vllm, hf, llama_cpp");
  }
  for (Semantics s : kSemantics) EXPECT_EQ(parse_semantics(semantics_name(s)), s);
}

// Whether a fault is exercised is the enumeration's finding (exact TV above the tolerance), so a
// few generations suffice. An unexercised fault is judged as an exact loop, so 200 generations,
// too few for any exact loop's sampled tests, leave the run inconclusive (exit 4), not failed.
TEST(SemanticsSelection, GrammarFaultsAreUnexercisedWithoutAGrammar) {
  std::ostringstream progress;
  const GenerationCheckResult result =
      run_generation_check({.samples = 200, .semantics = Semantics::llama_cpp}, progress);
  ASSERT_EQ(ids(result.cases), std::vector<std::string>{"penalties_llama_cpp"});
  for (const LoopOutcome& l : result.loops) {
    const bool grammar_fault = l.loop.fault == Fault::grammar_unconstrained_after_padding ||
                               l.loop.fault == Fault::grammar_not_advanced;
    if (!grammar_fault) continue;
    EXPECT_FALSE(l.exercised) << l.loop.name;
    EXPECT_TRUE(l.judged_exact) << l.loop.name;
    EXPECT_LE(l.max_exact_tv, result.policy.exact_tolerance) << l.loop.name;
  }
  EXPECT_FALSE(result.passed());
  EXPECT_TRUE(result.inconclusive());
  EXPECT_EQ(result.exit_code(), 4);
}

}  // namespace
}  // namespace tev::generation
