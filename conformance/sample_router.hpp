#pragma once
// `tevsuite conformance check`'s reader: the cases file, then the samples file, each sample line
// routed to its case's judge by case_id, since samples may come in any order. One router for every
// case format: fixed trees (format_version 1, 3), model cases (2, 4), batches (5), whose sample
// lines are rounds, and generation cases (6), whose sample lines are generations.
#include <cstdint>
#include <deque>
#include <iosfwd>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "conformance/batch_judge.hpp"
#include "conformance/case_io.hpp"
#include "conformance/generation_judge.hpp"
#include "conformance/judge.hpp"
#include "conformance/model_case.hpp"
#include "conformance/model_judge.hpp"

namespace tev::conformance {

// A case format: its reader, its per-case judge, and the judgement over all cases.
struct FixedTreeCases {
  using Reader = CaseReader;
  using Judge = CaseJudge;
  using Report = ConformanceReport;
  static Report judge_all(const std::vector<Judge>& judges, const judging::VerdictPolicy& policy) {
    return judge(judges, policy);
  }
};
struct ModelCases {
  using Reader = ModelCaseReader;
  using Judge = ModelCaseJudge;
  using Report = ModelReport;
  static Report judge_all(const std::vector<Judge>& judges, const judging::VerdictPolicy& policy) {
    return judge_models(judges, policy);
  }
};
struct BatchCases {
  using Reader = BatchCaseReader;
  using Judge = BatchJudge;
  using Report = BatchReport;
  static Report judge_all(const std::vector<Judge>& judges, const judging::VerdictPolicy& policy) {
    return judge_batches(judges, policy);
  }
};

struct GenerationCases {
  using Reader = GenerationCaseReader;
  using Judge = GenerationCaseJudge;
  using Report = GenerationReport;
  static Report judge_all(const std::vector<Judge>& judges, const judging::VerdictPolicy& policy) {
    return judge_generations(judges, policy);
  }
};

// The case_id of a sample line, or nothing for a blank line; InputError (naming `where`) when the
// line is not a JSON object with a string "case_id".
std::optional<std::string> sample_case_id(std::string_view line, const std::string& where);

template <class Format>
class BasicSampleRouter {
 public:
  // Reads every case (the reader refuses a case_id used twice and keeps them within its
  // held-cells limit): each stays alive until the judgement, with a judge whose completion stream
  // is keyed by completion_seed and the case's index.
  BasicSampleRouter(typename Format::Reader& cases, std::uint32_t completion_seed)
      : cases_source_(cases.source()) {
    while (auto c = cases.next()) {
      cases_.push_back(std::move(*c));
      index_[cases_.back().id] = judges_.size();
      judges_.emplace_back(cases_.back(), completion_seed,
                           static_cast<std::uint32_t>(judges_.size()));
    }
  }
  BasicSampleRouter(const BasicSampleRouter&) = delete;
  BasicSampleRouter& operator=(const BasicSampleRouter&) = delete;

  // One sample line; `where` names it ("samples.jsonl:3"). Blank lines are skipped. A line that is
  // not a JSON object with a string "case_id" naming a case read above throws InputError; the rest
  // is the judge's (add_line).
  void add_line(std::string_view line, const std::string& where) {
    const std::optional<std::string> id = sample_case_id(line, where);
    if (!id) return;
    const auto it = index_.find(*id);
    if (it == index_.end())
      throw InputError(where + ": no case \"" + *id + "\" in " + cases_source_);
    judges_[it->second].add_line(line, where);
  }
  // Every line of a samples stream, each no longer than kMaxSampleLineBytes.
  void add_stream(std::istream& samples, const std::string& source) {
    std::string line;
    for (std::size_t k = 1;; ++k) {
      const std::string where = source + ":" + std::to_string(k);
      if (!read_bounded_line(samples, line, kMaxSampleLineBytes, where)) break;
      add_line(line, where);
    }
  }
  // The verdicts under the policy; InputError when a case lacks samples.
  typename Format::Report judge(const judging::VerdictPolicy& policy) const {
    return Format::judge_all(judges_, policy);
  }

 private:
  std::string cases_source_;
  std::deque<typename decltype(std::declval<typename Format::Reader&>().next())::value_type>
      cases_;  // a deque: the judges keep pointers to their cases
  std::vector<typename Format::Judge> judges_;
  std::map<std::string, std::size_t, std::less<>> index_;  // case_id → judge
};
using SampleRouter = BasicSampleRouter<FixedTreeCases>;
using ModelSampleRouter = BasicSampleRouter<ModelCases>;
using BatchSampleRouter = BasicSampleRouter<BatchCases>;
using GenerationSampleRouter = BasicSampleRouter<GenerationCases>;

// The cases file and the samples file judged together (InputError names file:line on bad input).
ConformanceReport judge_conformance_files(const std::string& cases_path,
                                          const std::string& samples_path,
                                          std::uint32_t completion_seed,
                                          const judging::VerdictPolicy& policy);
ModelReport judge_model_case_files(const std::string& cases_path, const std::string& samples_path,
                                   std::uint32_t completion_seed,
                                   const judging::VerdictPolicy& policy);
BatchReport judge_batch_case_files(const std::string& cases_path, const std::string& samples_path,
                                   std::uint32_t completion_seed,
                                   const judging::VerdictPolicy& policy);
// Generation cases: each case's answer lines in generation order (those of other cases may come
// between them).
GenerationReport judge_generation_case_files(const std::string& cases_path,
                                             const std::string& samples_path,
                                             const judging::VerdictPolicy& policy);

}  // namespace tev::conformance
