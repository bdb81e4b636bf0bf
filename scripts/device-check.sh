#!/usr/bin/env bash
# GPU checks in two steps, for a GPU host that has CUDA's driver but not the Debian -dev libraries
# the build needs:
#   scripts/device-check.sh prepare   (on the build host) builds build-device/ for sm_90 and packs
#                                     the programs with the shared libraries they load into
#                                     build-device/bundle/
#   scripts/device-check.sh           (on the GPU host, from a copy of the source tree holding
#                                     build-device/bundle) runs the gpu tests (the ctest label gpu:
#                                     the gpu_tests program, run directly since ctest's files hold
#                                     the build host's paths), the CPU/GPU bit-identity test on
#                                     >= 10^7 samples per verifier, and the GPU benchmarks; prints a
#                                     summary and leaves the log and the benchmarks' JSON in $OUT
#                                     (a temporary folder when OUT is not set).
set -euo pipefail
cd "$(dirname "$0")/.."
bundle=build-device/bundle

if [[ "${1:-}" == prepare ]]; then
  # TEV_SPHINX_STATIC: sphinxbase linked statically keeps its BLAS/LAPACK/gfortran tail and
  # libsphinxad (PulseAudio, X11) out of the bundle; the GPU checks load no language model.
  cmake -S . -B build-device -DCMAKE_BUILD_TYPE=Release -DTEV_MPI=OFF -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DTEV_SPHINX_STATIC=ON > /dev/null
  cmake --build build-device -j2 --target tevsuite gpu_tests
  rm -rf "$bundle" && mkdir -p "$bundle/lib"
  cp build-device/apps/tevsuite build-device/gpu/tests/gpu_tests "$bundle/"
  # Every library the programs load except the C library itself and the CUDA driver, which the
  # GPU host has (and must match its kernel).
  ldd "$bundle/tevsuite" "$bundle/gpu_tests" | awk '/=> \// {print $3}' | sort -u |
    grep -Ev '/(libc|libm|libpthread|libdl|librt|ld-linux[^/]*|libcuda)\.so' | xargs -r cp -L -t "$bundle/lib"
  # The newest glibc symbol version anything packed asks for: the GPU host needs at least that.
  objdump -T "$bundle/tevsuite" "$bundle/gpu_tests" "$bundle"/lib/* | grep -o 'GLIBC_[0-9][0-9.]*' | sort -uV | tail -n 1 > "$bundle/glibc-needed"
  echo "packed $(ls "$bundle/lib" | wc -l) libraries ($(ls "$bundle/lib" | tr '\n' ' ')); needs $(cat "$bundle/glibc-needed")"
  echo "copy $bundle ($(du -sh "$bundle" | cut -f1)) to the GPU host"
  exit 0
fi

[[ -x "$bundle/tevsuite" ]] || { echo "no $bundle: run 'scripts/device-check.sh prepare' on the build host and copy it here" >&2; exit 2; }
out_dir=${OUT:-$(mktemp -d)}
{  # everything it prints also goes to $out_dir/device-check.log
needed=$(cat "$bundle/glibc-needed" 2> /dev/null || echo "an unknown glibc")
have=GLIBC_$(getconf GNU_LIBC_VERSION 2> /dev/null | cut -d' ' -f2 || true)
echo "glibc: $have here, the bundle needs $needed"
printf '%s\n' "$needed" "$have" | sort -V -C || echo "warning: this glibc is older than the packed libraries need; they will not load" >&2

# The machine's own libraries first (they match its glibc): pack in only what it lacks. One
# ldconfig run into a file, since grep -q on its pipe would stop it with SIGPIPE and, under
# pipefail, make a present library look missing.
libraries=$(mktemp)
{ ldconfig -p 2> /dev/null || /sbin/ldconfig -p 2> /dev/null || true; } > "$libraries"
only_missing=$(mktemp -d)
for lib in "$bundle"/lib/*; do
  grep -qF "$(basename "$lib") " "$libraries" || ln -s "$PWD/$lib" "$only_missing/"
done
# A probe that really initializes CUDA (a gpu test's set-up asks the driver for its devices; it
# skips, saying why, when that fails), with the packed folder before the machine's own
# LD_LIBRARY_PATH, which may be how it finds libcuda.so.1. If the programs do not start or CUDA
# does not answer, try every packed library.
probe_log=$(mktemp)
probe() {
  local path="$1${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  LD_LIBRARY_PATH="$path" "$bundle/tevsuite" --help > "$probe_log" 2>&1 &&
    LD_LIBRARY_PATH="$path" "$bundle/gpu_tests" --gtest_filter=Gpu.EngineRunsVerifiersWithoutKernelsOnTheCpu > "$probe_log" 2>&1 &&
    ! grep -q '^\[  SKIPPED \]' "$probe_log"
}
chosen=
for dir in "$only_missing" "$PWD/$bundle/lib"; do
  if probe "$dir"; then
    chosen=$dir
    break
  fi
done
if [[ -z "$chosen" ]]; then
  echo "the packed programs do not start or CUDA does not initialize here; the last probe said:" >&2
  cat "$probe_log" >&2
  echo "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}; libcuda in the ldconfig cache: $(grep -c 'libcuda\.so' "$libraries" || true)" >&2
  LD_LIBRARY_PATH="$PWD/$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ldd "$bundle/tevsuite" >&2
  exit 2
fi
export LD_LIBRARY_PATH="$chosen${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
echo "libraries: $LD_LIBRARY_PATH (packed ones used: $(ls "$chosen" | tr '\n' ' '))"
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
step "bench montecarlo --device gpu" "$bundle/tevsuite" bench --device gpu montecarlo --samples 33554432 --json "$out_dir/bench-montecarlo-gpu.json"
# The same tree on this machine's CPU at 1 and 2 threads, for the GPU's ratio to a 2-core CPU.
step "bench montecarlo (CPU, 1 and 2 threads)" "$bundle/tevsuite" bench montecarlo --samples 33554432 --json "$out_dir/bench-montecarlo-cpu.json"
step "bench verifier --device gpu" "$bundle/tevsuite" bench --device gpu verifier --json "$out_dir/bench-verifier-gpu.json"
echo
echo "=== summary"
printf '%s\n' "${summary[@]}"
! printf '%s\n' "${summary[@]}" | grep -q '^FAIL'
} 2>&1 | tee "$out_dir/device-check.log"
exit "${PIPESTATUS[0]}"
