#!/bin/sh
# check routes a cases file by its format_version: cases emitted with the given flags, and samples
# written through files by an example verifier.
# usage: conformance_files.sh TEVSUITE DIR "EMIT-FLAGS" VERIFIER-COMMAND...
set -eu
tev=$1 dir=$2 flags=$3
shift 3
mkdir -p "$dir"
# shellcheck disable=SC2086  # the emit flags are words
"$tev" conformance emit $flags --out "$dir/cases.jsonl"
"$@" < "$dir/cases.jsonl" > "$dir/samples.jsonl"
"$tev" conformance check "$dir/cases.jsonl" "$dir/samples.jsonl"
