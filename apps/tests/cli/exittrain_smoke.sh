#!/bin/sh
# ExitTrain end to end with tiny settings: train three ways, evaluate, check TEV's mean L against
# 1 + C_p (exit 0 only when it agrees), then render the report from the JSON.
# usage: exittrain_smoke.sh TEVSUITE DIR
set -eu
. "$(dirname "$0")/lib.sh"
tev=$1 dir=$2
rm -rf "$dir" && mkdir -p "$dir"
"$tev" exittrain --seeds 2 --steps 30 --warmup-steps 30 --budget 8 --test-contexts 16 --tev-samples 500 --threads 2 --json "$dir/results.json" > /dev/null
"$tev" report "$dir/results.json" --out "$dir/report"
has "$dir/report/report.md" "exit-guided - token-only"
