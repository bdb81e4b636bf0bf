#!/usr/bin/env bash
# The library-only build (-DTEV_LIBRARY_ONLY=ON): the public library (tevsuite::check,
# tevsuite::gtest, the Python package) and the layers under it configure without CLI11, MPI, CUDA
# or sphinxbase, build with their tests, install without any program, and an engine's project
# finds the installed package; no program is built.
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
# What this configuration changes is what it leaves out: every object its targets link is compiled
# as in the main build (the one source that differs, montecarlo/process_group.cpp without MPI, is
# linked by the program alone), every link line is the main build's, and no source reads
# TEV_LIBRARY_ONLY. So its tests would run the main build's code again, and the main build's suite
# runs them: the layers' gtest programs, the public API's, the Python package's pytest suites
# (here without the program's --version to compare) and engine_example_against_installed_tevsuite
# (about 200 s), which builds examples/engine against the same library, headers and package files.
# What differs is the install tree, without the program and its figure script: it must hold no
# program, and examples/engine must configure against it alone (find_package(tevsuite) checks that
# every file of tevsuite::check and tevsuite::gtest is there); python_package_installed imports the
# package from it in a fresh venv.
prefix=build-library/installed
rm -rf "$prefix" build-library/engine-configure
cmake --install build-library --prefix "$prefix" > /dev/null
if [ -e "$prefix/bin" ] || [ -e "$prefix/share/tevsuite" ]; then
  echo "library-only: the install holds a program's files: $(ls -d "$prefix"/bin "$prefix"/share/tevsuite 2> /dev/null)" >&2
  exit 1
fi
cmake -S examples/engine -B build-library/engine-configure -DCMAKE_PREFIX_PATH="$PWD/$prefix" > /dev/null
ctest --test-dir build-library --output-on-failure -j"$(nproc)" -R '^python_package_installed$'
