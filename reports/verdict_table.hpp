#pragma once
// The verdict table `check` and `live` print, their progress lines, and the selftest's lines.
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <span>
#include <string_view>
#include <vector>

#include "judging/selftest.hpp"
#include "judging/verdicts.hpp"

namespace tev::reports {

void print_verdict_table(std::span<const judging::VerifierReport> reports, std::ostream& out);
// "[k/n] name ... verdict (seconds s)" per verifier.
judging::VerifierProgress verifier_progress_lines(std::ostream& progress);
// A long step (core/interrupt.hpp's note_long_step) on the line in progress: once it has run
// kLongStepShownAfter seconds, " step (at most M): d..." and then " d..." every kLongStepEvery
// seconds. `seconds` is a monotonic clock (the steady clock's, by default).
inline constexpr double kLongStepShownAfter = 2.0, kLongStepEvery = 5.0;
std::function<void(std::string_view, std::uint64_t, std::uint64_t)> long_step_progress(
    std::ostream& progress, std::function<double()> seconds = {});
// Every result when verbose, else only failures; then a summary line. Returns 0 when all passed, 1 otherwise.
int print_selftest(std::span<const judging::KnownAnswer> answers, bool verbose, std::ostream& out);

}  // namespace tev::reports
