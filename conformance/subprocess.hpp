#pragma once
// `tevsuite conformance run`: stream cases to a verifier subprocess and judge what it prints.
#include <cstdint>
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <sys/types.h>
#include <vector>

#include "conformance/batch_judge.hpp"
#include "conformance/case_io.hpp"
#include "conformance/generation_judge.hpp"
#include "conformance/judge.hpp"
#include "conformance/model_judge.hpp"
#include "core/philox.hpp"

namespace tev::conformance {

// The verifier crashed, hung, exited early or printed something that is not a sample.
class VerifierFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A child process `/bin/sh -c command` with piped stdin and stdout (stderr passes through).
class VerifierProcess {
 public:
  explicit VerifierProcess(const std::string& command);
  ~VerifierProcess();
  VerifierProcess(const VerifierProcess&) = delete;
  VerifierProcess& operator=(const VerifierProcess&) = delete;

  // Writes all of data, reading whatever the child prints meanwhile (so neither side can block
  // the other on a full pipe). Throws VerifierFailure after timeout_seconds without progress.
  void send(const std::string& data, double timeout_seconds);
  // The next line the child prints, without its newline; throws VerifierFailure on a timeout
  // without output or when the child closes its output.
  std::string read_line(double timeout_seconds);
  // Closes the child's stdin and returns whatever it still prints before exiting.
  std::string finish(double timeout_seconds);
  // "exited with status 1", "killed by signal 11 (Segmentation fault)", or "still running".
  std::string status();

 private:
  bool pump(int poll_timeout_ms, bool want_write, const std::string& data, std::size_t& written);
  pid_t pid_ = -1;
  int to_child_ = -1;
  int from_child_ = -1;
  bool output_closed_ = false;
  int exit_status_ = -1;
  std::string buffer_;
};

struct RunOptions {
  std::string command;
  double timeout_seconds = 60.0;      // longest wait for the verifier's next line
  std::uint32_t seed = kDefaultSeed;  // completion stream
  judging::VerdictPolicy policy;  // α, the detectable TV and the power the verdicts are held to
};

// Reads the cases one at a time, sends each one's line and reads exactly its `samples` sample lines
// back before reading the next. The judge needs every case at the end, so each case's tree, rows
// and counts stay (the reader keeps them within kMaxHeldCells); its text and JSON do not.
ConformanceReport run_verifier_command(CaseReader& cases, const RunOptions& options,
                                       std::ostream& progress);
// The same for model cases: the verifier drafts and verifies each sample itself.
ModelReport run_model_verifier_command(ModelCaseReader& cases, const RunOptions& options,
                                       std::ostream& progress);
// The same for batch cases: `samples` round lines per batch, each one block per request.
BatchReport run_batch_verifier_command(BatchCaseReader& cases, const RunOptions& options,
                                       std::ostream& progress);
// The same for generation cases: `samples` generation lines per case, each a whole generation.
GenerationReport run_generation_verifier_command(GenerationCaseReader& cases,
                                                 const RunOptions& options, std::ostream& progress);

}  // namespace tev::conformance
