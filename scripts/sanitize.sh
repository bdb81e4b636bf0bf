#!/usr/bin/env bash
# The ctest suite under AddressSanitizer + UndefinedBehaviorSanitizer (any report fails it): the
# tests whose code the sanitizers can find faults in, each path at the smallest size the suite
# runs it; the long statistical runs of the same code are the Release build's.
set -euo pipefail
cd "$(dirname "$0")/.."
# MPI off: Open MPI leaks at init/finalize by design, and this build checks our code. CUDA off:
# nvcc-compiled code is not instrumented, and the gpu tests would only skip here.
# Python off: an uninstrumented interpreter cannot load an instrumented module (the package's C++
# side is the public library, which the C API and GoogleTest tests run here).
# -O1 -g1: -O1 is the level the sanitizers are documented for and compiles in about three quarters
# of -O2's CPU time (the sanitizer build is this project's longest); line tables are all a
# sanitizer report needs, and full debug info doubles the build.
# A unity build, as every build (the cold build in about 10 minutes on 2 cores). Google Benchmark's
# programs are run by hand, never by ctest: not built here.
cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
  -DTEV_SANITIZE=ON -DTEV_MPI=OFF -DTEV_CUDA=OFF -DTEV_PYTHON=OFF -DCMAKE_DISABLE_FIND_PACKAGE_benchmark=ON > /dev/null
cmake --build build-sanitize -j"$(nproc)"
# Left out, each with where its code runs here at a smaller size (or why the sanitizers have
# nothing to find in it), the main build running every one of them:
excluded=(
  # Sources only, the same in every build: the layout and the documents.
  'source_format' 'docs_agree_with_sources' 'docs_check_catches_upward_includes'
  # The compiler's output, not the code's behaviour: the Release binaries are the ones users run.
  'row_kernels_isa_purity'
  # Larger copies: the exact laws at B = 64 and 128 (B = 32 runs); the default check at 200,000
  # samples per tree, and the sampled check of every verifier at that budget (label statistical;
  # every verifier's sampling and judging run here in report_renders_check and the check tests of
  # judging_tests, at smaller budgets), its Float32 limit and the sampled-drafts decisions on the
  # default pairing (their code runs in the sampled_drafts_tests that stay and report_renders_sampled).
  'tevsuite_check_default' 'Budgets/LiveSizeLaws\..*/B(64|128)( .*)?'
  'AllVerifiers/SampledCheck\..*' 'SampledCheckLimits\..*' 'SampledStatistical\..*'
  # The identity test's power at its stated TV by 100 replicates (a statistical claim): the test's
  # code runs here in every other IdentityTest.* and in every judged check.
  'IdentityTest\.StatedWorstDirectionTvIsMetByTheFlatAlternative'
  # theorem1 --quick runs here once, in report_json_theorem1 (its JSON rendered by report_schema):
  # Theorem1Quick.* run the same reproduction in process, once per test, and tevsuite_theorem1_quick
  # once more, with the byte-for-byte comparisons of its report rendered again from the JSON.
  'Theorem1Quick\..*' 'tevsuite_theorem1_quick' 'tevsuite_report_from_json' 'tevsuite_report_renders_the_same_.*'
  # live --drafts sampled runs here once, in report_json_live_sampled (its JSON rendered by
  # report_schema): live_sampled_drafts_smoke is the same command, report_renders_live_sampled
  # renders its JSON, SampledLive.SmallRunIsTheSameForAnyThreadCount runs the same code twice at a
  # smaller size to compare thread counts.
  'live_sampled_drafts_smoke' 'report_renders_live_sampled' 'SampledLive\.SmallRunIsTheSameForAnyThreadCount'
  # check --drafts sampled at 20,000 samples: the same command runs in report_renders_sampled at 5,000.
  'tevsuite_check_sampled_drafts'
  # check --generation's whole catalog (three engines' semantics): report_json_generation runs the
  # same command on HF's, the others' processors and loops run in generation_tests (processors,
  # selection at llama.cpp's) and in the conformance_generation_* runs.
  'tevsuite_check_generation'
  # live --generation on the Sphinx trigram (its laws enumerated over the trigram's vocabulary:
  # 42 s in Release, many minutes here): the same model pair and generation check run here on
  # the llama2.c checkpoint (live_generation_llama2c, live_generation_inconclusive), the
  # trigram's rows in live_sphinx_smoke and report_renders_live.
  'live_generation_sphinx'
  # bench power: rates measured for a fixed time and the suite's slowest simulated p-value
  # (1.4 million null replicates); sampling, detectable TVs and simulated p-values run in the checks.
  'bench_power_prints_its_time_split'
  # The engine-shaped cases in process at the default budgets (230 to 310 s each here, enumerating
  # the V = 50,000 case): the same path runs in PublicCheck.EngineInputs* at V = 64, the readers in
  # EngineCases.*, the cases end to end in the conformance_engine_* tests that stay; the tail bugs
  # at an engine's vocabulary (planted in the test's verifiers) through the path that
  # TailBugsAtEngineVocab.CorrectTevIsExact runs.
  'EngineCasesInProcess\..*' 'TailBugsAtEngineVocab\.EveryTailBugIsNotExact'
  # The subprocess runs of the Python examples' planted bugs: the bugs live in Python, which is not
  # instrumented; the same cases, judges and subprocess runner run here in the examples' passing
  # runs (conformance_*example_verifier_passes, conformance_*_check_files), the failing verdict's
  # report in report_renders_conformance and report_renders_conformance_model, the tests of
  # independence rejecting in IidTests.* and BatchJudge.*, a generation engine's failing verdict in
  # conformance_generation_rejects_eos_mid_block_emits_rest. The crash, hang, garbage and
  # bad-answer runs stay: their handling is C++.
  'conformance_rejects_(tail|serial)_bug_.*' 'conformance_rejects_full-row-bonus_verifier' 'conformance_engine_rejects_.*'
  'conformance_batch_rejects_(neighbour-rows|position-off-by-one|shared-uniforms|shared-bonus-uniform|slot-rotated)'
  'conformance_model_rejects_(residual-not-renormalized|no-min|bonus-from-p|shared-uniform)_verifier'
  'conformance_engine_model_rejects_.*'
  'conformance_generation_rejects_(penalties_ignored_on_verified_rows|min_tokens_not_in_verifier)'
)
pattern="^($(IFS='|'; echo "${excluded[*]}"))$"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-sanitize --output-on-failure -j"$(nproc)" -E "$pattern"
