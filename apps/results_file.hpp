#pragma once
// A command's --json output, opened before the run so that a bad path fails at once rather than
// after minutes of work.
#include <fstream>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>

namespace tev {

class ResultsFile {
 public:
  // An empty path asks for no file. Throws std::runtime_error when the path cannot be written.
  explicit ResultsFile(std::string path);
  bool wanted() const { return !path_.empty(); }
  // Writes the JSON, checks the write, and tells `out` where it went.
  void write(const nlohmann::json& results, std::ostream& out, int indent = 2);

 private:
  std::string path_;
  std::ofstream file_;
};

}  // namespace tev
