#!/bin/sh
# `tevsuite report` on the JSON a judging command wrote at a tiny budget: the verdict table, the
# first failing case and the farthest cells appear in report.md (and report.html). The command's
# own verdict may be anything at such budgets; only the report is checked, and it must not refuse
# the file (exit 2).
# usage: report_renders.sh TEVSUITE DIR NAME "LINE|LINE|..." COMMAND [ARG...]
#   COMMAND writes DIR/NAME.json given --json; report.md must hold every |-separated LINE.
set -eu
. "$(dirname "$0")/lib.sh"
tev=$1 dir=$2 name=$3 lines=$4
shift 4
mkdir -p "$dir"
"$@" --json "$dir/$name.json" > "$dir/$name.txt" 2>&1 || true
rc=0
"$tev" report "$dir/$name.json" --out "$dir/$name" > "$dir/$name-report.txt" || rc=$?
cat "$dir/$name-report.txt"
[ "$rc" -ne 2 ] || { echo "report refused $dir/$name.json" >&2; exit 1; }
old_ifs=$IFS
IFS='|'
for line in $lines; do
  IFS=$old_ifs
  has "$dir/$name/report.md" "$line"
done
IFS=$old_ifs
has "$dir/$name/report.html" "<h2>First failing case</h2>"
