#include "reports/results_writer.hpp"

#include <ostream>
#include <stdexcept>

namespace tev::reports {

ResultsWriter::ResultsWriter(std::string path, const montecarlo::RunContext& context)
    : path_(context.writes_files ? std::move(path) : std::string()) {
  if (path_.empty()) return;
  file_.open(path_);
  if (!file_) throw std::runtime_error("cannot write " + path_);
}

void ResultsWriter::write(const nlohmann::json& results, std::ostream& out, int indent) {
  if (!wanted()) return;
  file_ << results.dump(indent) << '\n';
  file_.flush();
  if (!file_) throw std::runtime_error("error writing " + path_);
  out << "wrote " << path_ << '\n';
}

}  // namespace tev::reports
