#!/usr/bin/env bash
# The Python package as an engine team gets it: builds the wheel (python3 -m build --wheel
# --no-isolation), installs it into a fresh venv (--system-site-packages, for Debian's numpy,
# pytest and torch) and, from a directory outside the source tree, runs the package's version,
# pytest-plugin and exact_law tests and the torch example on the quick budget. The whole package
# suite runs against the build tree under ctest (python_package_tests).
# usage: scripts/python-wheel.sh [WORK_DIR]   (default build-wheel: the CMake build, kept so that a
# second run is incremental, with dist/, venv/ and tests/ inside; CMAKE_CXX_COMPILER_LAUNCHER=ccache
# makes a fresh one cheap, reusing build/'s objects when WORK_DIR is one level down as build/ is)
set -euo pipefail
source=$(cd "$(dirname "$0")/.." && pwd)
work=$(mkdir -p "${1:-$source/build-wheel}" && cd "${1:-$source/build-wheel}" && pwd)
python=${PYTHON:-/usr/bin/python3}
version=$(sed -nE 's/^project\(tevsuite VERSION ([0-9]+\.[0-9]+\.[0-9]+).*/\1/p' "$source/CMakeLists.txt")
rm -rf "$work/dist" "$work/venv" "$work/tests"
TEVSUITE_BUILD_DIR="$work" "$python" -m build --wheel --no-isolation --outdir "$work/dist" "$source" > "$work/build.log" 2>&1 ||
  { tail -40 "$work/build.log"; exit 1; }
"$python" -m venv --system-site-packages "$work/venv"
"$work/venv/bin/pip" install --quiet --no-index --no-deps "$work/dist/tevsuite-$version"-*.whl
mkdir -p "$work/tests"
cp "$source"/python/tests/{test_version,test_pytest_plugin,test_exact_law}.py "$work/tests/"
cp -r "$source/examples/torch" "$work/tests/torch"
cd "$work/tests"
env -u PYTHONPATH TEVSUITE_EXPECTED_VERSION="$version" "$work/venv/bin/python" -m pytest -q -p no:cacheprovider --tevsuite-budget quick .
