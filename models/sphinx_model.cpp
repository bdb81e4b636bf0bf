// The Sphinx views (trigram, bigram, interpolated) over a SphinxFile's scores: no sphinxbase here.
#include "models/sphinx_model.hpp"

#include <stdexcept>

namespace tev::models {

std::string view_name(SphinxView view) {
  switch (view) {
    case SphinxView::trigram:
      return "trigram";
    case SphinxView::bigram:
      return "bigram";
    case SphinxView::interpolated:
      return "interpolated";
  }
  return "unknown";
}

SphinxModel::SphinxModel(std::shared_ptr<const SphinxFile> file, SphinxView view,
                         std::size_t cache_rows)
    : file_(std::move(file)), view_(view), cache_rows_(cache_rows) {
  if (view_ == SphinxView::interpolated)
    unigram_ = std::make_shared<const std::vector<double>>(file_->scores(1, kNoToken, kNoToken));
}

std::string SphinxModel::name() const { return "sphinx-en-us-" + view_name(view_); }

std::vector<double> SphinxModel::compute_row(Token h2, Token h1) const {
  switch (view_) {
    case SphinxView::trigram:
      return file_->scores(3, h2, h1);
    case SphinxView::bigram:
      return file_->scores(2, h2, h1);
    case SphinxView::interpolated: {
      std::vector<double> row = file_->scores(2, h2, h1);
      for (std::size_t w = 0; w < row.size(); ++w) row[w] = 0.5 * row[w] + 0.5 * (*unigram_)[w];
      return row;
    }
  }
  throw std::logic_error("unknown Sphinx view");
}

std::vector<double> SphinxModel::next_row(std::span<const Token> context) const {
  if (context.empty())
    throw std::invalid_argument(name() + ": an empty context (start it with <s>)");
  for (Token t : context) {
    if (t < 0 || t >= vocab())
      throw std::invalid_argument(name() + ": context token " + std::to_string(t) +
                                  " outside the vocabulary");
  }
  // A one-word context is a sentence start: its missing earlier word is <s> as well.
  const Token h1 = context.back();
  const Token h2 = view_ == SphinxView::trigram && context.size() >= 2 ? context[context.size() - 2]
                                                                       : begin_token();
  const std::uint64_t key = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(h2)) << 32) |
                            static_cast<std::uint32_t>(h1);
  {
    const std::lock_guard lock(cache_mutex_);
    if (const auto it = cache_.find(key); it != cache_.end()) return *it->second;
  }
  auto row = std::make_shared<const std::vector<double>>(compute_row(h2, h1));
  const std::lock_guard lock(cache_mutex_);
  // A full cache starts over: histories rarely repeat far apart, so recency buys little.
  if (cache_.size() >= cache_rows_) cache_.clear();
  cache_.emplace(key, row);
  return *row;
}

}  // namespace tev::models
