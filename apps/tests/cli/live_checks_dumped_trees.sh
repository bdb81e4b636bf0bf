#!/bin/sh
# The dump alone gets exact laws: TEV's row carries an exact TV.
# usage: live_checks_dumped_trees.sh TEVSUITE DUMP OUT
set -eu
. "$(dirname "$0")/lib.sh"
tev=$1 dump=$2 out=$3
"$tev" live --from "$dump" --samples 20000 --chooser-samples 500 > "$out"
has "$out" "Exact laws by lumped enumeration"
grep -Eq '^tev +saturated .*exact and saturated .*[0-9]e-[0-9]+ +- +-' "$out" || { echo "$out: no exact TV on TEV's row" >&2; exit 1; }
