// Thread hooks: the innermost alive on a thread is called, it can pass the call on to the one it
// hides, and the outer one is back once the inner one is gone.
#include "core/interrupt.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tev {
namespace {

TEST(ThreadHook, TheInnermostIsCalledAndMayPassTheCallOn) {
  std::vector<std::string> calls;
  const LongStepNotices outer([&](std::string_view step, std::uint64_t done, std::uint64_t) {
    calls.push_back("outer " + std::string(step) + " " + std::to_string(done));
  });
  {
    const LongStepNotices silent(
        [&](std::string_view, std::uint64_t, std::uint64_t) { calls.push_back("silent"); });
    note_long_step("a", 1, 9);
  }
  {
    std::optional<LongStepNotices> observer;
    observer.emplace([&](std::string_view step, std::uint64_t done, std::uint64_t most) {
      calls.push_back("observer");
      observer->call_outer(step, done, most);
    });
    note_long_step("b", 2, 9);
  }
  note_long_step("c", 3, 9);
  EXPECT_EQ(calls, (std::vector<std::string>{"silent", "observer", "outer b 2", "outer c 3"}));
}

}  // namespace
}  // namespace tev
