#!/usr/bin/env bash
# The build without sphinxbase (-DTEV_SPHINX=OFF): everything but the Sphinx trigram builds, no
# program links sphinxbase, and the tests of the code this configuration changes pass.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-nosphinx -DCMAKE_BUILD_TYPE=Release -DTEV_SPHINX=OFF > /dev/null
cmake --build build-nosphinx -j"$(nproc)"
if ldd build-nosphinx/apps/tevsuite | grep -i sphinx; then
  echo "without-sphinx: tevsuite links sphinxbase although TEV_SPHINX=OFF" >&2
  exit 1
fi
# What TEV_SPHINX=OFF changes: one source, the Sphinx reader (models/no_sphinx.cpp in place of
# models/sphinx_file.cpp), whose code runs only where a SphinxFile is made (the model loader of
# models/, behind live, and exittrain's live runs); the link of the programs above models/, which
# no longer names libsphinxbase; and the tests registered. No other source compiles differently
# (models/'s others only lose sphinxbase's include folder, which they do not include from) and no
# source reads TEV_SPHINX. So the tests labelled models run here: the gtest programs of models/
# and exittrain/, and every test of the live and exittrain commands, among them the two only this
# configuration has (live and exittrain --mode live exiting 2 with what to install). Every other
# test runs the same objects as the main build's on paths that never make a SphinxFile, and the
# main build's suite runs it: the conformance, check, theorem1 and report tests through the
# program, and reports_tests, theorem1_smoke_tests and report_schema, whose link only loses
# libsphinxbase; the Python package, the public library and the layers below models/ do not link
# models/ at all (engine_example_against_installed_tevsuite, about 200 s, among them).
ctest --test-dir build-nosphinx --output-on-failure -j"$(nproc)" -L models
