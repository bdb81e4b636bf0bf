#!/bin/sh
# Under mpirun only rank 0 writes files, and they equal the one-process run's.
# usage: mpi_writes_once.sh DIR TEVSUITE "MPIRUN..." "SAME_RESULTS..." live|exittrain
# Each rank is given its own paths (…-rank-R), so a rank that wrote anything would leave a file
# of its own: rank 1's must not exist, rank 0's must match the single-process run.
set -eu
dir=$1 tev=$2 mpirun=$3 same=$4 what=$5
rm -rf "$dir" && mkdir -p "$dir"
case $what in
  live) args="live --contexts 1 --budget 8 --rounds 3 --samples 20000 --chooser-samples 500 --first-word-samples 20000 --drafter bigram --builder ddtree --threads 1"
        outputs() { echo "--json $1.json --dump $1-dump"; } ;;
  exittrain) args="exittrain --seeds 2 --steps 20 --warmup-steps 20 --budget 8 --test-contexts 8 --tev-samples 500 --threads 1"
        outputs() { echo "--json $1.json --out $1-out"; } ;;
  *) echo "unknown command $what" >&2; exit 2 ;;
esac
# shellcheck disable=SC2046
"$tev" $args $(outputs "$dir/one") > "$dir/one.txt"
# The rank's own paths, from Open MPI's rank variable.
$mpirun sh -c "exec \"\$0\" $args $(outputs "$dir/two-rank-\$OMPI_COMM_WORLD_RANK")" "$tev" > "$dir/two.txt"
for f in "$dir"/two-rank-1*; do
  if [ -e "$f" ]; then echo "rank 1 wrote $f" >&2; exit 1; fi
done
$same "$dir/one.json" "$dir/two-rank-0.json"
case $what in
  live)
    [ "$(ls "$dir/one-dump")" = "$(ls "$dir/two-rank-0-dump")" ] || { echo "the dumps differ in their files" >&2; exit 1; }
    for f in "$dir"/one-dump/*.json; do cmp "$f" "$dir/two-rank-0-dump/$(basename "$f")"; done ;;
  exittrain)
    [ "$(ls "$dir/one-out")" = "$(ls "$dir/two-rank-0-out")" ] || { echo "the reports differ in their files" >&2; exit 1; }
    $same "$dir/one-out/results.json" "$dir/two-rank-0-out/results.json" ;;
esac
echo "rank 0 wrote every file once, identical to one process; rank 1 wrote none"
