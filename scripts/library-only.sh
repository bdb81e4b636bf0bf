#!/usr/bin/env bash
# The library-only build (-DTEV_LIBRARY_ONLY=ON): the public library (tevsuite::check,
# tevsuite::gtest, the Python package) and the layers under it configure without CLI11, MPI, CUDA
# or sphinxbase, build, and pass that configuration's whole ctest suite; no program is built.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-library -DCMAKE_BUILD_TYPE=Release -DTEV_LIBRARY_ONLY=ON > /dev/null
if grep -E "^(CLI11_DIR|MPI_CXX_COMPILER|CMAKE_CUDA_COMPILER|SPHINXBASE_FOUND)[:=]" build-library/CMakeCache.txt; then
  echo "library-only: the configuration searched for a program-only dependency" >&2
  exit 1
fi
cmake --build build-library -j"$(nproc)"
if [ -e build-library/apps/tevsuite ]; then
  echo "library-only: the tevsuite program was built" >&2
  exit 1
fi
ctest --test-dir build-library --output-on-failure -j"$(nproc)"
