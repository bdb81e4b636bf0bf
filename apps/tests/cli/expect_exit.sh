#!/bin/sh
# A command that must end with a given exit code and print a given message (stdout or stderr):
# bad input gets a clear message and its exit code, never a crash or a verdict.
# usage: expect_exit.sh CODE MESSAGE COMMAND [ARG...]
set -u
code=$1 message=$2
shift 2
out=$("$@" 2>&1)
rc=$?
echo "$out"
[ "$rc" -eq "$code" ] || { echo "expected exit $code, got $rc" >&2; exit 1; }
echo "$out" | grep -qF -- "$message" || { echo "expected the message: $message" >&2; exit 1; }
