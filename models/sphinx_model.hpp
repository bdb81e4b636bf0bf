#pragma once
// The CMU Sphinx US-English trigram model (Debian pocketsphinx-en-us), read through sphinxbase.
// One file gives several real, different models: the trigram target and drafters from its
// bigram and unigram views.
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/language_model.hpp"

namespace tev::models {

inline constexpr const char* kSphinxModelPath = "/usr/share/pocketsphinx/model/en-us/en-us.lm.bin";

// The loaded model file: its vocabulary and raw n-gram scores. sphinxbase's lookups keep internal
// caches, so each thread gets its own handle (a load is ~50 ms and ~40 MB).
class SphinxFile {
 public:
  // Throws std::runtime_error naming the path when it cannot be read as an n-gram model.
  explicit SphinxFile(std::string path = kSphinxModelPath);
  ~SphinxFile();
  SphinxFile(const SphinxFile&) = delete;
  SphinxFile& operator=(const SphinxFile&) = delete;

  const std::string& path() const { return path_; }
  std::int32_t vocab() const { return static_cast<std::int32_t>(words_.size()); }
  const std::string& word(Token t) const { return words_.at(static_cast<std::size_t>(t)); }
  // The word's id, or kNoToken when it is not in the vocabulary.
  Token id(const std::string& word) const;
  Token sentence_start() const { return start_; }
  Token sentence_end() const { return end_; }

  // (V) p(w | h2 h1) for every w, as the model's fixed-point scores give it (sums to 1 only
  // within ~1e-3). order 3 conditions on both words, 2 on h1 alone, 1 on nothing.
  std::vector<double> scores(int order, Token h2, Token h1) const;

 private:
  struct Handle;
  Handle& handle() const;

  std::string path_;
  std::vector<std::string> words_;
  std::unordered_map<std::string, Token> ids_;
  Token start_ = kNoToken, end_ = kNoToken;
  struct Handles;
  std::unique_ptr<Handles> handles_;
};

enum class SphinxView {
  trigram,       // p(w | last two words): the target
  bigram,        // p(w | last word): a drafter
  interpolated,  // ½ bigram + ½ unigram: a weaker drafter
};
std::string view_name(SphinxView view);

// One view of the file as a LanguageModel, with rows cached by the history the view reads.
class SphinxModel : public LanguageModel {
 public:
  SphinxModel(std::shared_ptr<const SphinxFile> file, SphinxView view,
              std::size_t cache_rows = 256);
  std::string name() const override;
  std::int32_t vocab() const override { return file_->vocab(); }
  std::string token_text(Token t) const override { return file_->word(t); }
  Token begin_token() const override { return file_->sentence_start(); }
  std::vector<double> next_row(std::span<const Token> context) const override;
  const SphinxFile& file() const { return *file_; }

 private:
  std::vector<double> compute_row(Token h2, Token h1) const;

  std::shared_ptr<const SphinxFile> file_;
  SphinxView view_;
  std::size_t cache_rows_;
  mutable std::mutex cache_mutex_;
  mutable std::unordered_map<std::uint64_t, std::shared_ptr<const std::vector<double>>>
      cache_;                                           // key: (h2, h1)
  std::shared_ptr<const std::vector<double>> unigram_;  // interpolated view only
};

}  // namespace tev::models
