#!/bin/sh
# The same run under mpirun gives the single-process JSON and exit status.
# At this sample size check's exact verifiers are inconclusive (exit 1), so the
# status is compared rather than required to be 0.
# usage: mpi_matches_single_process.sh DIR TEVSUITE "MPIRUN..." "SAME_RESULTS..." check|theorem1
set -eu
dir=$1 tev=$2 mpirun=$3 same=$4 what=$5
rm -rf "$dir" && mkdir -p "$dir"
case $what in
  check)
    one=0 two=0
    "$tev" check --samples 20000 --threads 1 --json "$dir/one.json" > /dev/null || one=$?
    $mpirun "$tev" check --samples 20000 --threads 1 --json "$dir/two.json" > /dev/null || two=$?
    if [ "$one" != "$two" ]; then
      echo "exit status $one in one process, $two under mpirun" >&2; exit 1
    fi
    $same "$dir/one.json" "$dir/two.json" ;;
  theorem1)
    "$tev" theorem1 --quick --threads 1 --out "$dir/one" > /dev/null
    $mpirun "$tev" theorem1 --quick --threads 1 --out "$dir/two" > /dev/null
    $same "$dir/one/results.json" "$dir/two/results.json" ;;
  *) echo "unknown command $what" >&2; exit 2 ;;
esac
