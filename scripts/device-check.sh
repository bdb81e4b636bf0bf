#!/usr/bin/env bash
# GPU checks in two steps, because the device machine has CUDA's driver but no Debian -dev
# libraries and installs nothing:
#   scripts/device-check.sh prepare   (here) builds build-device/ for sm_90 without -march=native
#                                     and packs the programs with the shared libraries they load
#                                     from this machine into build-device/bundle/
#   scripts/device-check.sh           (on the device machine, with build-device/bundle carried)
#                                     runs the gpu tests (the ctest label gpu: the gpu_tests
#                                     program, run directly since ctest's files hold this
#                                     machine's paths), the CPU/GPU bit-identity test on >= 10^7
#                                     samples per verifier, and the GPU benchmarks; prints a summary.
set -euo pipefail
cd "$(dirname "$0")/.."
bundle=build-device/bundle

if [[ "${1:-}" == prepare ]]; then
  cmake -S . -B build-device -DCMAKE_BUILD_TYPE=Release -DTEV_NATIVE=OFF -DTEV_MPI=OFF -DCMAKE_CUDA_ARCHITECTURES=90 > /dev/null
  cmake --build build-device -j2 --target tevsuite gpu_tests
  rm -rf "$bundle" && mkdir -p "$bundle/lib"
  cp build-device/apps/tevsuite build-device/gpu/tests/gpu_tests "$bundle/"
  # Every library the programs load except the C library itself and the CUDA driver, which the
  # device machine has (and must match its kernel).
  ldd "$bundle/tevsuite" "$bundle/gpu_tests" | awk '/=> \// {print $3}' | sort -u |
    grep -Ev '/(libc|libm|libpthread|libdl|librt|ld-linux[^/]*|libcuda)\.so' | xargs -r cp -L -t "$bundle/lib"
  echo "packed $(ls "$bundle/lib" | wc -l) libraries; carry $bundle ($(du -sh "$bundle" | cut -f1))"
  exit 0
fi

[[ -x "$bundle/tevsuite" ]] || { echo "no $bundle: run 'scripts/device-check.sh prepare' on the build machine and carry it" >&2; exit 2; }
# Prefer the machine's own libraries (they match its glibc) and add only the packed ones it lacks;
# if the programs still do not start, use every packed library.
only_missing=$(mktemp -d)
for lib in "$bundle"/lib/*; do
  ldconfig -p | grep -qF "$(basename "$lib") " || ln -s "$PWD/$lib" "$only_missing/"
done
for dir in "$only_missing" "$PWD/$bundle/lib"; do
  if LD_LIBRARY_PATH="$dir" "$bundle/tevsuite" --help > /dev/null 2>&1 && LD_LIBRARY_PATH="$dir" "$bundle/gpu_tests" --gtest_list_tests > /dev/null 2>&1; then
    export LD_LIBRARY_PATH="$dir"
    break
  fi
done
[[ -n "${LD_LIBRARY_PATH:-}" ]] || { echo "the packed programs do not start here:" >&2; LD_LIBRARY_PATH="$PWD/$bundle/lib" ldd "$bundle/tevsuite" >&2; exit 2; }
echo "libraries: $LD_LIBRARY_PATH ($(ls "$LD_LIBRARY_PATH" | tr '\n' ' '))"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
summary=()
step() {  # step NAME COMMAND...: run it, remember PASS/FAIL and its time
  local name=$1 start=$SECONDS
  shift
  echo "=== $name"
  if "$@"; then summary+=("PASS  $name ($((SECONDS - start)) s)"); else summary+=("FAIL  $name ($((SECONDS - start)) s)"); fi
}
log=$(mktemp)
gpu_tests() {  # gpu_tests SAMPLES_PER_TREE [gtest options]: here a skipped GPU test fails, the device is the point
  TEV_GPU_SAMPLES=$1 "$bundle/gpu_tests" "${@:2}" 2>&1 | tee "$log"
  [[ ${PIPESTATUS[0]} -eq 0 ]] && ! grep -q '^\[  SKIPPED \]' "$log"
}
step "gpu tests (ctest label gpu)" gpu_tests 200000
step "CPU/GPU bit identity, 8 trees x 1,250,000 samples = 10^7 per verifier" gpu_tests 1250000 --gtest_filter='*BitForBit*'
step "check --device gpu" "$bundle/tevsuite" check --device gpu
step "bench montecarlo --device gpu" "$bundle/tevsuite" bench --device gpu montecarlo --samples 33554432
step "bench verifier --device gpu" "$bundle/tevsuite" bench --device gpu verifier
echo
echo "=== summary"
printf '%s\n' "${summary[@]}"
! printf '%s\n' "${summary[@]}" | grep -q '^FAIL'
