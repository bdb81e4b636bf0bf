#!/usr/bin/env bash
# The build without sphinxbase (-DTEV_SPHINX=OFF): everything but the Sphinx trigram
# builds, the ctest suite of that configuration passes, and no program links sphinxbase.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-nosphinx -DCMAKE_BUILD_TYPE=Release -DTEV_SPHINX=OFF > /dev/null
cmake --build build-nosphinx -j"$(nproc)"
if ldd build-nosphinx/apps/tevsuite | grep -i sphinx; then
  echo "without-sphinx: tevsuite links sphinxbase although TEV_SPHINX=OFF" >&2
  exit 1
fi
# Every test runs but engine_example_against_installed_tevsuite (about 200 s), which installs the
# public library (tevsuite::check, tevsuite::gtest, their headers and CMake package) and builds and
# runs examples/engine against it: TEV_SPHINX changes nothing it installs (only models/ reads
# sphinxbase, and no library under tevsuite::check links it), so it is the main build's install,
# built from the same sources with the same flags, and the main build's suite runs the test.
ctest --test-dir build-nosphinx --output-on-failure -j"$(nproc)" -E '^engine_example_against_installed_tevsuite$'
