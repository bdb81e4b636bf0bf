#include "harness/models.hpp"

#include <stdexcept>

#include "harness/sphinx_model.hpp"

namespace tev {

std::vector<std::string> default_drafters(LiveFamily family) {
  if (family == LiveFamily::sphinx) return {"bigram", "interpolated"};
  return {"layers:half"};
}

namespace {

ModelSet load_sphinx(const ModelRequest& request) {
  auto file = std::make_shared<const SphinxFile>(request.model_path.empty() ? kSphinxModelPath : request.model_path);
  ModelSet set;
  set.target = std::make_shared<const SphinxModel>(file, SphinxView::trigram);
  set.end_token = file->sentence_end();
  for (const std::string& name : request.drafters.empty() ? default_drafters(LiveFamily::sphinx) : request.drafters) {
    if (name == "bigram") {
      set.drafters.push_back({name, std::make_shared<const SphinxModel>(file, SphinxView::bigram)});
    } else if (name == "interpolated") {
      set.drafters.push_back({name, std::make_shared<const SphinxModel>(file, SphinxView::interpolated)});
    } else {
      throw std::invalid_argument("unknown Sphinx drafter '" + name + "' (choose bigram or interpolated)");
    }
  }
  set.description = "CMU Sphinx US-English trigram (" + file->path() + "), " + std::to_string(file->vocab()) + " words";
  return set;
}

}  // namespace

ModelSet load_models(const ModelRequest& request) {
  switch (request.family) {
    case LiveFamily::sphinx: return load_sphinx(request);
    case LiveFamily::llama2c: break;
  }
  throw std::invalid_argument("llama2c models are not available in this build");
}

}  // namespace tev
