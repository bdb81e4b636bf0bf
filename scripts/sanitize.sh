#!/usr/bin/env bash
# The ctest suite under AddressSanitizer + UndefinedBehaviorSanitizer (any report fails it).
set -euo pipefail
cd "$(dirname "$0")/.."
# MPI off: Open MPI leaks at init/finalize by design, and this build checks our code. CUDA off:
# nvcc-compiled code is not instrumented, and the gpu tests would only skip here.
# Python off: an uninstrumented interpreter cannot load an instrumented module (the package's C++
# side is the public library, which the C API and GoogleTest tests run here).
# -g1: line tables are all a sanitizer report needs, and full debug info doubles the build.
cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
  -DTEV_SANITIZE=ON -DTEV_MPI=OFF -DTEV_CUDA=OFF -DTEV_PYTHON=OFF > /dev/null
cmake --build build-sanitize -j"$(nproc)"
# Every test runs except larger copies of code that runs here at a smaller size: the exact laws at
# B = 64 and 128 (B = 32 runs), the default check at 200,000 samples per tree (the same judging
# runs in the check, report and sampled-check tests at smaller budgets), the sampled check of
# mutant-residual-not-renormalized (its p-value sits near the level, so its Monte Carlo p-value
# draws millions of replicates; the same code runs for the 26 other sampled verifiers and in the
# null calibration), and the engine-shaped
# cases in process at the default budgets (230 to 310 s each here, enumerating the V = 50,000
# case; the same path runs in PublicCheck.EngineInputs* at V = 64, the readers in EngineCases.*,
# and the cases end to end in the conformance_engine_* tests), and the subprocess runs of the
# Python example's planted bugs (the bugs live in Python, which is not instrumented; the same
# cases, judges and subprocess runner run here in the example's passing runs: tail and serial bugs
# in conformance_example_verifier_passes, processing bugs in
# conformance_engine_example_verifier_passes, batch bugs in conformance_batch_example_verifier_passes;
# the tests of independence rejecting run in IidTests.* and BatchJudge.*).
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-sanitize --output-on-failure -j"$(nproc)" \
  -E '^(tevsuite_check_default|Budgets/LiveSizeLaws\..*/B(64|128)( .*)?|AllVerifiers/SampledCheck\.VerdictMatchesItsKind/mutant_residual_not_renormalized( .*)?|EngineCasesInProcess\..*|conformance_rejects_(tail|serial)_bug_.*|conformance_engine_rejects_.*|conformance_batch_rejects_(neighbour-rows|position-off-by-one|shared-uniforms|shared-bonus-uniform))$'

