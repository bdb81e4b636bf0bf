#pragma once
// A folder of one test's own, so that tests (and two suites run at once) never share a file: made
// by mkdtemp under testing::TempDir() (TEST_TMPDIR, else /tmp), removed with its contents at the end.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace tev::models {

class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern =
        (std::filesystem::path(testing::TempDir()) / "tevsuite-test-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr)
      throw std::runtime_error("cannot make a folder " + pattern + ": " + std::strerror(errno));
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;  // a destructor must not throw; a leftover folder is harmless
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace tev::models
