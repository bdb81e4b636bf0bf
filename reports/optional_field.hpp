#pragma once
// How a renderer reads a key that a results file may lack (written for some subjects only, or only
// by newer versions): through optional_field, which a KeyWatch sees. A key asked for that no real
// file of its kind holds is a renderer reading what no writer writes, silently leaving its part of
// the report out; the report_schema test renders every command's real JSON to find one.
#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace tev::reports {

// The object's value at `key`, or nullptr when it has none (or is not an object).
const nlohmann::json* optional_field(const nlohmann::json& object, const std::string& key);

// While one lives, every key optional_field is asked for on its thread, each with whether any
// object it was asked of held it.
class KeyWatch {
 public:
  KeyWatch();
  ~KeyWatch();
  KeyWatch(const KeyWatch&) = delete;
  KeyWatch& operator=(const KeyWatch&) = delete;
  const std::map<std::string, bool>& asked() const { return asked_; }

 private:
  friend const nlohmann::json* optional_field(const nlohmann::json&, const std::string&);
  std::map<std::string, bool> asked_;
  KeyWatch* outer_;
};

}  // namespace tev::reports
