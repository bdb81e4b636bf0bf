#include "reports/optional_field.hpp"

namespace tev::reports {

namespace {
thread_local KeyWatch* watching = nullptr;  // the innermost KeyWatch of this thread
}  // namespace

KeyWatch::KeyWatch() : outer_(watching) { watching = this; }

KeyWatch::~KeyWatch() { watching = outer_; }

const nlohmann::json* optional_field(const nlohmann::json& object, const std::string& key) {
  const nlohmann::json* found = nullptr;
  if (object.is_object()) {
    const auto it = object.find(key);
    if (it != object.end()) found = &*it;
  }
  if (watching != nullptr) watching->asked_[key] |= found != nullptr;
  return found;
}

}  // namespace tev::reports
