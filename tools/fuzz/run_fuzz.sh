#!/usr/bin/env bash
# Runs one libFuzzer target for a number of seconds.
#   tools/fuzz/run_fuzz.sh BUILD_DIR ENTRY SECONDS [extra libFuzzer flags]
# The working corpus is BUILD_DIR/fuzz-corpus/ENTRY (kept between runs); it is seeded from the
# committed seeds in fuzz/corpus/ENTRY and from the seeds BUILD_DIR/ENTRY_seeds writes
# (tools/fuzz/<entry> seeds come from the ONNX backend-test models). Crashes are written to
# BUILD_DIR/fuzz-artifacts/ENTRY/ and make the run fail.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="$1"; entry="$2"; seconds="$3"; shift 3
fuzzer="$build/${entry}_fuzz"
corpus="$build/fuzz-corpus/$entry"
artifacts="$build/fuzz-artifacts/$entry"
mkdir -p "$corpus" "$artifacts"
if [ -d "$root/fuzz/corpus/$entry" ]; then
  cp -n "$root/fuzz/corpus/$entry"/* "$corpus"/ 2>/dev/null || true
fi
seeder="$root/tools/fuzz/seed_${entry}.sh"
if [ -x "$seeder" ] && [ ! -f "$corpus/.seeded" ]; then
  "$seeder" "$build" "$corpus"
  touch "$corpus/.seeded"
fi
echo "fuzz $entry: $(find "$corpus" -type f ! -name .seeded | wc -l) seed files, $seconds s"
"$fuzzer" "$corpus" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2560 -max_len=1048576 \
  -artifact_prefix="$artifacts/" -print_final_stats=1 "$@" 2>&1 | tail -n 25
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
  echo "fuzz $entry: FAILED (exit $status); inputs in $artifacts" >&2
  exit "$status"
fi
echo "fuzz $entry: ran $seconds s with no finding"
