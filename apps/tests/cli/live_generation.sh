#!/bin/sh
# live --generation on the tiny llama2.c checkpoint at its default TV (0.05): 2,000 generations per
# loop and request state only about 0.29 there, so the four exact loops are exact by enumeration
# but inconclusive by sampling while every planted fault is caught: exit 4, never a pass. The JSON
# records that exit code, and `report` renders the file with it (4).
# usage: live_generation.sh TEVSUITE PREFIX CHECKPOINT run|report
set -eu
. "$(dirname "$0")/lib.sh"
tev=$1 prefix=$2 checkpoint=$3 what=$4
case $what in
  run)
    exits_with 4 "$tev" live --generation --lm llama2c --model "$checkpoint" --prompt "<5> <9> <11>" --samples 2000 --threads 2 \
      --json "$prefix.json" > "$prefix.txt"
    has "$prefix.txt" "INCONCLUSIVE: 11 of 15 loops as expected" "the other 4 exact by enumeration"
    has "$prefix.json" '"kind": "check-generation"' '"exit_code": 4' '"models": "'
    count_is 4 "$prefix.json" '"exact_loop": true' ;;
  report)
    exits_with 4 "$tev" report "$prefix.json" --out "$prefix-report" > "$prefix-report.txt"
    has "$prefix-report.txt" "inconclusive: too few generations"
    has "$prefix-report/report.md" "# Generation-level exactness" "Models (live --generation): " \
      "Verdict: **inconclusive** (exit 4)" "| min_tokens_not_in_verifier | not exact |" ;;
  *) echo "unknown step $what" >&2; exit 2 ;;
esac
