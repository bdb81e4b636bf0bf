#!/bin/sh
# live --drafts sampled on the Sphinx trigram with a small budget: 1,000 first-word samples detect
# only TV ≈ 0.17 at the verdict's level, so every exact verifier is 'inconclusive' (exit 4, never a
# pass), while both q-based mutants (exact TV 0.17 and 0.25) are caught; both tables print and the
# JSON carries the verdicts. Then `report` renders that JSON with the command's exit code (4).
# usage: live_sampled_drafts.sh TEVSUITE PREFIX run|report
set -eu
. "$(dirname "$0")/lib.sh"
tev=$1 prefix=$2 what=$3
case $what in
  run)
    exits_with 4 "$tev" live --drafts sampled --drafter bigram --draft-top-k 4 --first-word-samples 1000 --rounds 1 --draws-per-round 2 --threads 2 \
      --json "$prefix.json" > "$prefix.txt"
    has "$prefix.txt" "inconclusive: too few samples" "Tokens per round on the same sampled trees"
    has "$prefix.json" '"drafts": "sampled"'
    count_is 2 "$prefix.json" '"caught_by_sampling": true'
    count_is 6 "$prefix.json" '"verdict": "inconclusive"' ;;
  report)
    exits_with 4 "$tev" report "$prefix.json" --out "$prefix-report" > "$prefix-report.txt"
    has "$prefix-report.txt" "inconclusive: too few samples"
    has "$prefix-report/report.md" "Verdict per case"
    count_is 6 "$prefix-report/report.md" "| inconclusive |" ;;
  *) echo "unknown step $what" >&2; exit 2 ;;
esac
