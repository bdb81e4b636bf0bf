#pragma once
// The Sphinx trigram, its bigram view and a context, loaded once per test program.
#include <memory>
#include <vector>

#include "models/sphinx_model.hpp"

namespace tev::models::testing_fixture {

struct Sphinx {
  std::shared_ptr<const SphinxFile> file = std::make_shared<const SphinxFile>();
  SphinxModel target{file, SphinxView::trigram};
  SphinxModel drafter{file, SphinxView::bigram};
  std::vector<Token> context{file->sentence_start(), file->id("i"), file->id("want")};
};

inline Sphinx& sphinx() {
  static Sphinx s;
  return s;
}

}  // namespace tev::models::testing_fixture
