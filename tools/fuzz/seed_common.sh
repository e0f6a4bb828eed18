# Shared by tools/fuzz/seed_<entry>.sh (sourced, not run): where the ONNX backend test data is
# and how to pick an even spread of at most N files from a sorted list.
backend_dir() {
  local build="$1" dir=""
  if [ -f "$build/CMakeCache.txt" ]; then
    dir="$(sed -n 's/^ONEMODEL_BACKEND_TEST_DIR:PATH=//p' "$build/CMakeCache.txt")"
  fi
  [ -n "$dir" ] || dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/../shared/onnx-backend-test"
  echo "$dir"
}

# spread N: reads file names on stdin, prints at most N of them evenly spaced.
spread() {
  awk -v n="$1" '{ f[NR] = $0 } END { if (NR == 0) exit; step = NR / n; if (step < 1) step = 1;
                   for (x = 1; x <= NR; x += step) print f[int(x)] }'
}

# seed_name PATH: a corpus file name from a backend-test path (the test's directory names).
seed_name() {
  local p="$1"
  p="${p#*onnx-backend-test/}"
  echo "$p" | tr '/' '_'
}
