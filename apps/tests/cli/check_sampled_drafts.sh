#!/bin/sh
# check --drafts sampled with a small budget: exit 0 only when every verdict is the one its kind
# calls for; the JSON carries the sampled-drafts fields.
# usage: check_sampled_drafts.sh TEVSUITE JSON
set -eu
. "$(dirname "$0")/lib.sh"
tev=$1 json=$2
"$tev" check --drafts sampled --samples 20000 --threads 2 --json "$json" > /dev/null
has "$json" '"conditional_exact"' '"drafts": "sampled"'
