#!/bin/sh
# check routes a model-case file by its format_version: cases and samples through files, the
# samples written by the model-case example verifier.
# usage: conformance_model_files.sh TEVSUITE DIR VERIFIER-COMMAND...
set -eu
tev=$1 dir=$2
shift 2
mkdir -p "$dir"
"$tev" conformance emit --model-cases --cases 2 --out "$dir/m.jsonl"
"$@" < "$dir/m.jsonl" > "$dir/s.jsonl"
"$tev" conformance check "$dir/m.jsonl" "$dir/s.jsonl"
