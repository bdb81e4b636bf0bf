#pragma once
// The target and drafters a live run uses, by name.
#include <memory>
#include <string>
#include <vector>

#include "models/language_model.hpp"

namespace tev::models {

enum class LiveFamily { sphinx, llama2c };

struct ModelRequest {
  LiveFamily family = LiveFamily::sphinx;
  std::string
      model_path;  // sphinx: the .lm.bin (empty: the Debian package's); llama2c: the checkpoint
  std::string tokenizer_path;         // llama2c: tokenizer.bin for printing text (optional)
  std::vector<std::string> drafters;  // empty: the family's defaults
};

struct NamedModel {
  std::string name;
  std::shared_ptr<const LanguageModel> model;
};

struct ModelSet {
  std::shared_ptr<const LanguageModel> target;
  std::vector<NamedModel> drafters;
  Token end_token = kNoToken;  // never drawn into a sampled context (</s>); kNoToken when none
  std::string description;     // one line on what was loaded
};

// Sphinx drafters: "bigram", "interpolated". llama2c drafters: "layers:K", the target's first K
// layers with its final norm and classifier (default K = half the layers, at least 1).
// Throws std::invalid_argument on an unknown drafter, std::runtime_error on an unreadable file.
ModelSet load_models(const ModelRequest& request);
std::vector<std::string> default_drafters(LiveFamily family);

}  // namespace tev::models
