# Helpers the CLI test scripts share; sourced, not run.

# has FILE TEXT...: FILE holds every TEXT as a fixed string.
has() {
  file=$1
  shift
  for text in "$@"; do
    grep -qF -- "$text" "$file" || { echo "$file lacks: $text" >&2; exit 1; }
  done
}

# count_is N FILE TEXT: exactly N lines of FILE hold TEXT.
count_is() {
  n=$(grep -cF -- "$3" "$2" || true)
  [ "$n" -eq "$1" ] || { echo "$2: $n lines hold '$3', expected $1" >&2; exit 1; }
}

# exits_with CODE COMMAND [ARG...]: runs COMMAND, which must exit with CODE.
exits_with() {
  want=$1
  shift
  rc=0
  "$@" || rc=$?
  [ "$rc" -eq "$want" ] || { echo "expected exit $want, got $rc: $*" >&2; exit 1; }
}
