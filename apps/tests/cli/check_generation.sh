#!/bin/sh
# check --generation at its defaults: exit 0 only when every exact loop is exact and every planted
# fault is caught; the table names each fault's cause, the JSON renders with `tevsuite report`,
# which exits 0 as the run did.
# usage: check_generation.sh TEVSUITE DIR
set -eu
. "$(dirname "$0")/lib.sh"
tev=$1 dir=$2
mkdir -p "$dir"
"$tev" check --generation --threads 2 --json "$dir/generation.json" > "$dir/generation.txt"
has "$dir/generation.txt" "PASS: 15 of 15 loops as expected" "eos_mid_block_emits_rest: an EOS accepted mid-block" \
  "grammar_not_advanced" "penalties_llama_cpp"
count_is 11 "$dir/generation.txt" " not exact     "
exits_with 2 "$tev" check --generation --trees 3
has "$dir/generation.json" '"exit_code": 0'
exits_with 0 "$tev" report "$dir/generation.json" --out "$dir/generation" > "$dir/generation-report.txt"
has "$dir/generation-report.txt" "PASS: every loop as expected"
has "$dir/generation/report.md" "# Generation-level exactness" "| eos_mid_block_emits_rest | not exact |"
