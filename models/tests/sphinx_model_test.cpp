#include <gtest/gtest.h>

#include <sphinxbase/logmath.h>
#include <sphinxbase/ngram_model.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "core/compensated_sum.hpp"
#include "models/sphinx_model.hpp"
#include "workloads/synthetic.hpp"

namespace tev::models {
namespace {

std::shared_ptr<const SphinxFile> shared_file() {
  static const auto file = std::make_shared<const SphinxFile>();
  return file;
}

std::vector<Token> words(const SphinxFile& f, std::initializer_list<const char*> text) {
  std::vector<Token> out;
  for (const char* w : text) out.push_back(f.id(w));
  return out;
}

Token argmax(const std::vector<double>& row) {
  return static_cast<Token>(std::max_element(row.begin(), row.end()) - row.begin());
}

TEST(SphinxFile, ReadsTheFullVocabulary) {
  const SphinxFile& f = *shared_file();
  EXPECT_EQ(f.vocab(), 72547);  // the package's unigram count
  EXPECT_EQ(f.word(f.id("upon")), "upon");
  EXPECT_EQ(f.id("no-such-word-here"), kNoToken);
  EXPECT_THROW(SphinxFile("/nonexistent/model.lm.bin"), std::runtime_error);
}

// The rows must be the model's own probabilities: the string-keyed lookup (a different path
// through sphinxbase) gives the same fixed-point score for every word of the row.
TEST(SphinxModel, TrigramRowMatchesTheLibrarysStringLookup) {
  const auto file = shared_file();
  const SphinxModel target(file, SphinxView::trigram);
  const std::vector<Token> context = words(*file, {"<s>", "once", "upon"});
  const std::vector<double> row = target.next_row(context);
  logmath_t* lmath = logmath_init(1.0001, 0, 0);
  ngram_model_t* model = ngram_model_read(nullptr, file->path().c_str(), NGRAM_AUTO, lmath);
  ASSERT_NE(model, nullptr);
  for (const char* w : {"a", "the", "time", "</s>", "zebra"}) {
    const double expected = logmath_exp(lmath, ngram_score(model, w, "upon", "once", nullptr));
    EXPECT_DOUBLE_EQ(row[static_cast<std::size_t>(file->id(w))], expected) << w;
  }
  ngram_model_free(model);
  logmath_free(lmath);
}

TEST(SphinxModel, RowsAreNextWordLawsWithinTheModelsRounding) {
  const auto file = shared_file();
  const SphinxModel target(file, SphinxView::trigram);
  for (auto context : {words(*file, {"<s>", "once", "upon"}), words(*file, {"<s>", "i", "want"}),
                       words(*file, {"of", "the"})}) {
    const std::vector<double> row = target.next_row(context);
    EXPECT_LT(std::abs(compensated_total(row) - 1.0), 2e-3);
  }
  // Qualitative facts about English that a misread model would not reproduce.
  const std::vector<double> once_upon = target.next_row(words(*file, {"<s>", "once", "upon"}));
  EXPECT_EQ(argmax(once_upon), file->id("a"));
  EXPECT_GT(once_upon[static_cast<std::size_t>(file->id("a"))], 0.9);
  EXPECT_EQ(argmax(target.next_row(words(*file, {"<s>", "i", "want"}))), file->id("to"));
  double entropy = 0.0;
  for (double p : target.next_row(words(*file, {"of", "the"})))
    entropy -= p > 0.0 ? p * std::log(p) : 0.0;
  EXPECT_GT(entropy, 6.0);  // many nouns can follow "of the"
  EXPECT_LT(entropy, 9.0);
}

TEST(SphinxModel, ViewsAreDifferentModels) {
  const auto file = shared_file();
  const SphinxModel trigram(file, SphinxView::trigram), bigram(file, SphinxView::bigram),
      interpolated(file, SphinxView::interpolated);
  const std::vector<Token> context = words(*file, {"<s>", "once", "upon"});
  const std::vector<double> p = trigram.next_row(context), q = bigram.next_row(context),
                            r = interpolated.next_row(context);
  const double kl_bigram = workloads::kl_divergence(p, q),
               kl_interpolated = workloads::kl_divergence(p, r);
  EXPECT_GT(kl_bigram, 0.01);
  EXPECT_GT(kl_interpolated,
            kl_bigram);  // mixing in the unigram moves further from the trigram here
  // The bigram view reads only the last word.
  EXPECT_EQ(bigram.next_row(words(*file, {"<s>", "upon"})), q);
  EXPECT_THROW(trigram.next_row(std::vector<Token>{}), std::invalid_argument);
  EXPECT_THROW(trigram.next_row(std::vector<Token>{-3}), std::invalid_argument);
}

}  // namespace
}  // namespace tev::models
