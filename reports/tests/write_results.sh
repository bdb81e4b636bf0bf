#!/bin/sh
# Runs a command that writes a results file at a tiny budget, for the report_schema test. Its
# verdict may be anything (exit 0, 1, 3, 4 or 5); it must run (not exit 2) and write the file.
# usage: write_results.sh RESULTS COMMAND [ARG...]  (COMMAND's own arguments name RESULTS)
set -u
results=$1
shift
mkdir -p "$(dirname "$results")"
rm -f "$results"
rc=0
"$@" > "$results.log" 2>&1 || rc=$?
if [ "$rc" -eq 2 ] || [ ! -s "$results" ]; then
  cat "$results.log"
  echo "exit $rc; $results not written" >&2
  exit 1
fi
