#include "models/models.hpp"

#include <algorithm>
#include <stdexcept>

#include "models/llama2c.hpp"
#include "models/sphinx_model.hpp"

namespace tev::models {

std::vector<std::string> default_drafters(LiveFamily family) {
  if (family == LiveFamily::sphinx) return {"bigram", "interpolated"};
  return {"layers:half"};
}

namespace {

ModelSet load_sphinx(const ModelRequest& request) {
  auto file = std::make_shared<const SphinxFile>(request.model_path.empty() ? kSphinxModelPath
                                                                            : request.model_path);
  ModelSet set;
  set.target = std::make_shared<const SphinxModel>(file, SphinxView::trigram);
  set.end_token = file->sentence_end();
  for (const std::string& name :
       request.drafters.empty() ? default_drafters(LiveFamily::sphinx) : request.drafters) {
    if (name == "bigram") {
      set.drafters.push_back({name, std::make_shared<const SphinxModel>(file, SphinxView::bigram)});
    } else if (name == "interpolated") {
      set.drafters.push_back(
          {name, std::make_shared<const SphinxModel>(file, SphinxView::interpolated)});
    } else {
      throw std::invalid_argument("unknown Sphinx drafter '" + name +
                                  "' (choose bigram or interpolated)");
    }
  }
  set.description = "CMU Sphinx US-English trigram (" + file->path() + "), " +
                    std::to_string(file->vocab()) + " words";
  return set;
}

// "layers:K" or "layers:half": how many of the target's layers a self-drafter runs.
std::int32_t drafter_layers(const std::string& name, std::int32_t total) {
  const std::string prefix = "layers:";
  if (name.rfind(prefix, 0) != 0)
    throw std::invalid_argument("unknown llama2c drafter '" + name +
                                "' (use layers:K or layers:half)");
  const std::string k = name.substr(prefix.size());
  if (k == "half") return std::max(1, total / 2);
  std::size_t used = 0;
  int layers = 0;
  try {
    layers = std::stoi(k, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != k.size() || layers < 1 || layers > total) {
    throw std::invalid_argument("drafter '" + name + "': K must be 1 to " + std::to_string(total) +
                                " (the checkpoint's layers)");
  }
  return layers;
}

ModelSet load_llama2c(const ModelRequest& request) {
  if (request.model_path.empty())
    throw std::invalid_argument("--lm llama2c needs --model PATH (a llama2.c checkpoint)");
  auto checkpoint = std::make_shared<const Llama2Checkpoint>(read_llama2c(request.model_path));
  const Llama2Config& c = checkpoint->config;
  const std::vector<std::string> texts =
      request.tokenizer_path.empty() ? std::vector<std::string>{}
                                     : read_llama2c_tokenizer(request.tokenizer_path, c.vocab_size);
  ModelSet set;
  set.target = std::make_shared<const Llama2Model>(checkpoint, c.n_layers, "llama2c", texts);
  set.end_token = c.vocab_size > 2 ? 2 : kNoToken;  // llama2.c's EOS
  for (const std::string& name :
       request.drafters.empty() ? default_drafters(LiveFamily::llama2c) : request.drafters) {
    const std::int32_t layers = drafter_layers(name, c.n_layers);
    set.drafters.push_back(
        {"layers:" + std::to_string(layers),
         std::make_shared<const Llama2Model>(
             checkpoint, layers, "llama2c-first-" + std::to_string(layers) + "-layers", texts)});
  }
  set.description = "llama2.c checkpoint " + request.model_path + " (dim " + std::to_string(c.dim) +
                    ", " + std::to_string(c.n_layers) + " layers, " + std::to_string(c.n_heads) +
                    "/" + std::to_string(c.n_kv_heads) + " heads, vocab " +
                    std::to_string(c.vocab_size) + ", seq_len " + std::to_string(c.seq_len) + ")";
  return set;
}

}  // namespace

ModelSet load_models(const ModelRequest& request) {
  switch (request.family) {
    case LiveFamily::sphinx:
      return load_sphinx(request);
    case LiveFamily::llama2c:
      return load_llama2c(request);
  }
  throw std::logic_error("unknown model family");
}

}  // namespace tev::models
