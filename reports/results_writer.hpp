#pragma once
// The one writer of a command's --json results. Opened before the run, so a bad path fails at
// once rather than after minutes of work, and only on the process that writes files (under mpirun
// every rank computes the same results; rank 0 writes them).
#include <fstream>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>

#include "montecarlo/ranks.hpp"

namespace tev::reports {

class ResultsWriter {
 public:
  // An empty path, or a context that does not write files, asks for no file. Throws
  // std::runtime_error when the path cannot be written.
  ResultsWriter(std::string path, const montecarlo::RunContext& context);
  bool wanted() const { return !path_.empty(); }
  // Writes the JSON, checks the write, and tells `out` where it went.
  void write(const nlohmann::json& results, std::ostream& out, int indent = 2);

 private:
  std::string path_;
  std::ofstream file_;
};

}  // namespace tev::reports
