#!/usr/bin/env bash
# Exit 0 when every C, C++ and CUDA source of the tree is formatted as .clang-format says.
# usage: check-format.sh CLANG_FORMAT SOURCE_DIR
# The style is pinned to clang-format 14 (Debian 12's): other versions lay out some lines differently.
set -euo pipefail
clang_format=$1
cd "$2"
mapfile -t files < <(find . \( -name 'build*' -o -name '.git' \) -prune -o \
  -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) -print | sort)
if ! "$clang_format" --dry-run -Werror "${files[@]}"; then
  echo "check-format: run '$clang_format -i' on the files above" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files formatted"
