#!/bin/sh
# ExitTrain on the real trigram with tiny settings (a few hundred target rows).
# usage: exittrain_live_smoke.sh TEVSUITE DIR
set -eu
. "$(dirname "$0")/lib.sh"
tev=$1 dir=$2
rm -rf "$dir" && mkdir -p "$dir"
"$tev" exittrain --mode live --seeds 1 --steps 3 --warmup-steps 3 --batch 2 --budget 4 --vocab 256 --test-contexts 4 --tev-samples 300 --threads 2 \
  --json "$dir/results.json" > "$dir/report.md"
has "$dir/report.md" "Sphinx US-English trigram" "agrees with 1 + C_p everywhere"
