// Writes a tiny random llama2.c checkpoint (GQA, unshared classifier) for the CLI tests.
#include <cstdlib>
#include <exception>
#include <iostream>

#include "core/philox.hpp"
#include "models/llama2c.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: write_tiny_checkpoint OUT.bin\n";
    return 2;
  }
  try {
    tev::models::write_llama2c(
        argv[1], tev::models::random_llama2c({32, 64, 4, 4, 2, 48, 128, false}, tev::kDefaultSeed));
  } catch (const std::exception& e) {
    std::cerr << e.what() << '\n';
    return 2;
  }
  return 0;
}
