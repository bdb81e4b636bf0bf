#!/usr/bin/env bash
# The whole ctest suite under AddressSanitizer + UndefinedBehaviorSanitizer (any report fails it).
set -euo pipefail
cd "$(dirname "$0")/.."
# MPI off: Open MPI leaks at init/finalize by design, and this build checks our code. CUDA off:
# nvcc-compiled code is not instrumented, and the gpu tests would only skip here.
cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTEV_SANITIZE=ON -DTEV_MPI=OFF -DTEV_CUDA=OFF > /dev/null
cmake --build build-sanitize -j"$(nproc)"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-sanitize --output-on-failure -j"$(nproc)"
