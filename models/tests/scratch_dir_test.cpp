#include "models/tests/scratch_dir.hpp"

#include <gtest/gtest.h>

#include <fstream>

namespace tev::models {
namespace {

// Each test's folder is new and its own, and it goes away with what was written in it.
TEST(ScratchDir, IsUniqueAndRemovedWithItsContents) {
  std::filesystem::path kept;
  {
    const ScratchDir a, b;
    EXPECT_NE(a.path(), b.path());
    EXPECT_TRUE(std::filesystem::is_directory(a.path()));
    EXPECT_TRUE(std::filesystem::is_empty(a.path()));
    std::ofstream(a.file("x.bin")) << "data";
    EXPECT_TRUE(std::filesystem::exists(a.file("x.bin")));
    EXPECT_FALSE(std::filesystem::exists(b.file("x.bin")));
    kept = a.path();
  }
  EXPECT_FALSE(std::filesystem::exists(kept));
}

}  // namespace
}  // namespace tev::models
