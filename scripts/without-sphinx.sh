#!/usr/bin/env bash
# The build without sphinxbase (-DTEV_SPHINX=OFF): everything but the Sphinx trigram
# builds, the whole ctest suite of that configuration passes, and no program links sphinxbase.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-nosphinx -DCMAKE_BUILD_TYPE=Release -DTEV_SPHINX=OFF > /dev/null
cmake --build build-nosphinx -j"$(nproc)"
if ldd build-nosphinx/apps/tevsuite | grep -i sphinx; then
  echo "without-sphinx: tevsuite links sphinxbase although TEV_SPHINX=OFF" >&2
  exit 1
fi
ctest --test-dir build-nosphinx --output-on-failure -j"$(nproc)"
