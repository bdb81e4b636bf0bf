// SphinxFile when tevsuite is built without sphinxbase (TEV_SPHINX=OFF): the Sphinx trigram cannot
// be read, and a run that asks for it says so and what to install; nothing else changes.
#include <stdexcept>

#include "models/sphinx_model.hpp"

namespace tev::models {

struct SphinxFile::Handles {};

SphinxFile::SphinxFile(std::string path) : path_(std::move(path)) {
  throw std::runtime_error(
      "the CMU Sphinx trigram (" + path_ +
      ") needs sphinxbase, and this tevsuite was built without it (TEV_SPHINX=OFF): install "
      "libsphinxbase-dev pocketsphinx-en-us pkg-config and configure again, or use --lm llama2c "
      "--model FILE");
}

SphinxFile::~SphinxFile() = default;

// The constructor always throws, so no SphinxFile exists to call these on.
Token SphinxFile::id(const std::string&) const {
  throw std::logic_error("SphinxFile without sphinxbase");
}
std::vector<double> SphinxFile::scores(int, Token, Token) const {
  throw std::logic_error("SphinxFile without sphinxbase");
}

}  // namespace tev::models
