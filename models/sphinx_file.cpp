// SphinxFile through sphinxbase (built when TEV_SPHINX is on; models/no_sphinx.cpp otherwise).
#include "models/sphinx_model.hpp"

#include <sphinxbase/err.h>
#include <sphinxbase/logmath.h>
#include <sphinxbase/ngram_model.h>

#include <oneapi/tbb/enumerable_thread_specific.h>

#include <stdexcept>

namespace tev::models {

namespace {
// The log base pocketsphinx itself decodes with; scores are integers in this base.
constexpr double kLogBase = 1.0001;
}  // namespace

struct SphinxFile::Handle {
  logmath_t* logmath = nullptr;
  ngram_model_t* model = nullptr;

  explicit Handle(const std::string& path) {
    logmath = logmath_init(kLogBase, 0, 0);
    model = ngram_model_read(nullptr, path.c_str(), NGRAM_AUTO, logmath);
    if (model == nullptr) {
      logmath_free(logmath);
      throw std::runtime_error("cannot read an n-gram model from " + path +
                               " (Debian: apt-get install pocketsphinx-en-us)");
    }
  }
  ~Handle() {
    ngram_model_free(model);
    logmath_free(logmath);
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
};

struct SphinxFile::Handles {
  oneapi::tbb::enumerable_thread_specific<std::unique_ptr<Handle>> per_thread;
};

SphinxFile::SphinxFile(std::string path)
    : path_(std::move(path)), handles_(std::make_unique<Handles>()) {
  err_set_logfp(nullptr);  // sphinxbase logs every load to stderr otherwise
  const Handle& h = handle();
  if (ngram_model_get_size(h.model) != 3)
    throw std::runtime_error(path_ + " is not a trigram model");
  const auto v = static_cast<Token>(ngram_model_get_counts(h.model)[0]);
  words_.reserve(static_cast<std::size_t>(v));
  for (Token w = 0; w < v; ++w) {
    words_.emplace_back(ngram_word(h.model, w));
    ids_.emplace(words_.back(), w);
  }
  start_ = id("<s>");
  end_ = id("</s>");
  if (start_ == kNoToken || end_ == kNoToken)
    throw std::runtime_error(path_ + " has no <s> or </s> word");
}

SphinxFile::~SphinxFile() = default;

SphinxFile::Handle& SphinxFile::handle() const {
  std::unique_ptr<Handle>& h = handles_->per_thread.local();
  if (!h) h = std::make_unique<Handle>(path_);
  return *h;
}

Token SphinxFile::id(const std::string& word) const {
  const auto it = ids_.find(word);
  return it == ids_.end() ? kNoToken : it->second;
}

std::vector<double> SphinxFile::scores(int order, Token h2, Token h1) const {
  if (order < 1 || order > 3) throw std::invalid_argument("n-gram order must be 1, 2 or 3");
  Handle& h = handle();
  std::vector<double> row(words_.size());
  for (Token w = 0; w < vocab(); ++w) {
    std::int32_t used = 0;
    const std::int32_t score = order == 3   ? ngram_tg_score(h.model, w, h1, h2, &used)
                               : order == 2 ? ngram_bg_score(h.model, w, h1, &used)
                                            : ngram_ng_score(h.model, w, nullptr, 0, &used);
    row[static_cast<std::size_t>(w)] = logmath_exp(h.logmath, score);
  }
  return row;
}

}  // namespace tev::models
