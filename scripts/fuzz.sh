#!/usr/bin/env bash
# Builds the libFuzzer targets with clang and runs each for a bounded time (default 60 s each).
# usage: scripts/fuzz.sh [seconds-per-target]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ -DTEV_FUZZ=ON -DTEV_BUILD_TESTS=OFF > /dev/null
cmake --build build-fuzz -j"$(nproc)" --target fuzz_case_reader fuzz_sample_reader fuzz_sample_router fuzz_model_case_reader fuzz_model_sample_reader \
  fuzz_batch_case_reader fuzz_batch_round_reader fuzz_generation_case_reader tevsuite > /dev/null

# Seed corpora: real emitted cases (one per file) and real samples.
corpus=build-fuzz/corpus
mkdir -p "$corpus/cases" "$corpus/samples" "$corpus/model-cases" "$corpus/model-samples" "$corpus/batches" "$corpus/rounds" "$corpus/generation-cases"
build-fuzz/apps/tevsuite conformance emit --cases 8 --samples 3 --vocab 6 --budget 5 --out build-fuzz/seed-cases.jsonl > /dev/null 2>&1
split -l 1 build-fuzz/seed-cases.jsonl "$corpus/cases/case-"
build-fuzz/apps/tevsuite conformance emit --model-cases --samples 3 --out build-fuzz/seed-model-cases.jsonl > /dev/null 2>&1
split -l 1 build-fuzz/seed-model-cases.jsonl "$corpus/model-cases/case-"
# Engine-shaped cases (format_version 3 and 4: logits and sampling parameters), read by the same readers.
build-fuzz/apps/tevsuite conformance emit --engine-inputs --cases 8 --samples 3 --vocab 6 --budget 5 --out build-fuzz/seed-engine-cases.jsonl > /dev/null 2>&1
split -l 1 build-fuzz/seed-engine-cases.jsonl "$corpus/cases/engine-"
build-fuzz/apps/tevsuite conformance emit --model-cases --engine-inputs --samples 3 --out build-fuzz/seed-engine-model-cases.jsonl > /dev/null 2>&1
split -l 1 build-fuzz/seed-engine-model-cases.jsonl "$corpus/model-cases/engine-"
# Batch cases (format_version 5), of fixed-tree and of engine-shaped requests.
build-fuzz/apps/tevsuite conformance emit --batch 2 --cases 2 --samples 3 --vocab 6 --budget 5 --out build-fuzz/seed-batches.jsonl > /dev/null 2>&1
split -l 1 build-fuzz/seed-batches.jsonl "$corpus/batches/batch-"
build-fuzz/apps/tevsuite conformance emit --batch 2 --cases 2 --engine-inputs --samples 3 --vocab 6 --budget 5 --out build-fuzz/seed-engine-batches.jsonl > /dev/null 2>&1
split -l 1 build-fuzz/seed-engine-batches.jsonl "$corpus/batches/engine-"
# Generation cases (format_version 6): the default requests, their models as tables.
build-fuzz/apps/tevsuite conformance emit --generation --samples 3 --out build-fuzz/seed-generation-cases.jsonl > /dev/null 2>&1
split -l 1 build-fuzz/seed-generation-cases.jsonl "$corpus/generation-cases/case-"
printf '%s\n' '{"case_id": "k0", "blocks": [{"request": "a", "accepted": [0, 2], "bonus": 3}, {"request": "b", "accepted": [], "bonus": 1}]}' \
  '{"case_id": "k0", "blocks": [{"request": "a", "accepted": [], "bonus": 0}, {"request": "b", "accepted": [3], "bonus": 0}]}' > "$corpus/rounds/a"
printf '%s\n' '{"case_id": "k0", "blocks": [{"request": "b", "accepted": [], "bonus": 1}]}' > "$corpus/rounds/b"
printf '%s\n' '{"case_id": "c0", "accepted": [0, 2], "bonus": 3}' > "$corpus/samples/a"
printf '%s\n' '{"case_id": "c0", "accepted": [], "bonus": 1}' > "$corpus/samples/b"
printf '%s\n' '{"case_id": "c1", "accepted": [], "bonus": 0}' '' '{"case_id": "c0", "accepted": [0], "bonus": 1}' > "$corpus/samples/c"
printf '%s\n' '{"case_id": "m0", "accepted": [0], "bonus": 2, "tree": {"parents": [-1, 0, 0, 1], "tokens": [null, 0, 1, 2]}}' > "$corpus/model-samples/a"
printf '%s\n' '{"case_id": "m0", "accepted": [1, 2], "bonus": 0}' > "$corpus/model-samples/b"

status=0
for target in fuzz_case_reader fuzz_sample_reader fuzz_sample_router fuzz_model_case_reader fuzz_model_sample_reader fuzz_batch_case_reader \
  fuzz_batch_round_reader fuzz_generation_case_reader; do
  case "$target" in
    fuzz_case_reader) dir="$corpus/cases" ;;
    fuzz_sample_reader | fuzz_sample_router) dir="$corpus/samples" ;;
    fuzz_model_case_reader) dir="$corpus/model-cases" ;;
    fuzz_model_sample_reader) dir="$corpus/model-samples" ;;
    fuzz_batch_case_reader) dir="$corpus/batches" ;;
    fuzz_batch_round_reader) dir="$corpus/rounds" ;;
    fuzz_generation_case_reader) dir="$corpus/generation-cases" ;;
  esac
  echo "== $target for ${seconds} s"
  if ! build-fuzz/fuzz/$target -max_total_time="$seconds" -max_len=65536 -artifact_prefix=build-fuzz/ -print_final_stats=1 "$dir" 2> "build-fuzz/$target.log"; then
    status=1
  fi
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb|ERROR|SUMMARY" "build-fuzz/$target.log" || true
done
exit $status
