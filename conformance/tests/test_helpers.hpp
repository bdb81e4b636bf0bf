#pragma once
// Helpers the conformance tests share: the message of a refused input, and tables a verifier
// builds once per case and reads from several threads.
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "conformance/case_io.hpp"

namespace tev::conformance::test_helpers {

// The InputError f throws, as text ("" when it throws none).
inline std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// Per-case tables, built by build(case) on a case's first call; safe from several threads (the
// in-process check calls a verifier concurrently). Copies share the tables.
template <class Tables>
class PerCase {
 public:
  template <class Build>
  const Tables& get(std::string_view id, Build&& build) const {
    const std::lock_guard guard(*lock_);
    auto it = tables_->find(id);
    if (it == tables_->end()) it = tables_->emplace(std::string(id), build()).first;
    return it->second;
  }

 private:
  std::shared_ptr<std::mutex> lock_ = std::make_shared<std::mutex>();
  std::shared_ptr<std::map<std::string, Tables, std::less<>>> tables_ =
      std::make_shared<std::map<std::string, Tables, std::less<>>>();
};

}  // namespace tev::conformance::test_helpers
