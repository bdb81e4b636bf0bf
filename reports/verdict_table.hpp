#pragma once
// The verdict table `check` and `live` print, their progress lines, and the selftest's lines.
#include <iosfwd>
#include <span>
#include <vector>

#include "judging/selftest.hpp"
#include "judging/verdicts.hpp"

namespace tev::reports {

void print_verdict_table(std::span<const judging::VerifierReport> reports, std::ostream& out);
// "[k/n] name ... verdict (seconds s)" per verifier.
judging::VerifierProgress verifier_progress_lines(std::ostream& progress);
// Every result when verbose, else only failures; then a summary line. Returns 0 when all passed, 1 otherwise.
int print_selftest(std::span<const judging::KnownAnswer> answers, bool verbose, std::ostream& out);

}  // namespace tev::reports
