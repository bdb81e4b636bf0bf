#pragma once
// `tevsuite conformance check`'s reader: the cases file, then the samples file, each sample line
// routed to its case's judge by case_id, since samples may come in any order.
#include <cstdint>
#include <deque>
#include <iosfwd>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "conformance/case_io.hpp"
#include "conformance/judge.hpp"

namespace tev::conformance {

class SampleRouter {
 public:
  // Reads every case (the CaseReader refuses a case_id used twice and keeps them within its
  // held-cells limit): each stays alive until the judgement, with a judge whose completion stream
  // is keyed by completion_seed and the case's index.
  SampleRouter(CaseReader& cases, std::uint32_t completion_seed);
  SampleRouter(const SampleRouter&) = delete;
  SampleRouter& operator=(const SampleRouter&) = delete;

  // One sample line; `where` names it ("samples.jsonl:3"). Blank lines are skipped. A line that is
  // not a JSON object with a string "case_id" naming a case read above throws InputError; the rest
  // is the judge's (CaseJudge::add_line).
  void add_line(std::string_view line, const std::string& where);
  // Every line of a samples stream, each no longer than kMaxSampleLineBytes.
  void add_stream(std::istream& samples, const std::string& source);
  // The verdicts at family level alpha; InputError when a case lacks samples.
  ConformanceReport judge(double alpha) const;

 private:
  std::string cases_source_;
  std::deque<Case> cases_;  // a deque: the judges keep pointers to their cases
  std::vector<CaseJudge> judges_;
  std::map<std::string, std::size_t, std::less<>> index_;  // case_id → judge
};

// The cases file and the samples file judged together (InputError names file:line on bad input).
ConformanceReport judge_conformance_files(const std::string& cases_path, const std::string& samples_path, std::uint32_t completion_seed,
                                          double alpha);

}  // namespace tev::conformance
