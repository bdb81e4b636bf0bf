#include "apps/results_file.hpp"

#include <ostream>
#include <stdexcept>

namespace tev {

ResultsFile::ResultsFile(std::string path) : path_(std::move(path)) {
  if (path_.empty()) return;
  file_.open(path_);
  if (!file_) throw std::runtime_error("cannot write " + path_);
}

void ResultsFile::write(const nlohmann::json& results, std::ostream& out, int indent) {
  if (!wanted()) return;
  file_ << results.dump(indent) << '\n';
  file_.flush();
  if (!file_) throw std::runtime_error("error writing " + path_);
  out << "Wrote " << path_ << '\n';
}

}  // namespace tev
