# Sourced by tools/cross/aarch64.sh and tools/cross/wasm.sh: runs every kernel-test executable
# (tests/kernels/<topic>_test.cpp, built by the target cross_kernel_tests of
# cmake/cross_kernel_tests.cmake) through the platform's runner, one line per executable with its
# time, and the failures' messages. Each test loops over opt::available_isas(), so on aarch64 it
# checks {Scalar, Neon} and on WebAssembly {Scalar, Wasm} against the naive definitions.
#
#   run_kernel_tests PLATFORM BUILD_DIR EXTENSION RUNNER...
#     EXTENSION: "" for native executables, ".js" for emscripten's.
#     kernel_test_args[<topic>_test], if the caller declares that associative array, holds extra
#     GoogleTest arguments for one executable (a platform's exclusion, with its reason printed).
# Sets kernel_tests_status to 1 if any executable fails, else leaves it 0.
# shellcheck shell=bash disable=SC2034,SC2154  # variables shared with the sourcing script
kernel_tests_status=0

run_kernel_tests() {
  local platform="$1" build="$2" ext="$3"
  shift 3
  local logs="$build/kernel-tests"
  mkdir -p "$logs"
  local start src name log t0 extra verdict summary
  start=$(date +%s)
  for src in tests/kernels/*_test.cpp; do
    name="$(basename "$src" .cpp)"
    log="$logs/$name.log"
    extra=""
    if declare -p kernel_test_args >/dev/null 2>&1; then extra="${kernel_test_args[$name]:-}"; fi
    t0=$(date +%s)
    # shellcheck disable=SC2086  # extra holds zero or more separate arguments
    if "$@" "$build/$name$ext" $extra >"$log" 2>&1; then verdict=pass
    else verdict=FAIL; kernel_tests_status=1; fi
    summary="$(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$log" | sed 's/  */ /g' | tr '\n' ';')"
    echo "$platform kernel test $name: $verdict ($(( $(date +%s) - t0 )) s) ${summary}${extra:+ [args: $extra]}"
    if [ "$verdict" = FAIL ]; then
      # The assertion messages (file:line: Failure and what follows), then where the rest is.
      grep -E -A8 ': Failure$' "$log" | head -60 | sed 's/^/    /'
      tail -5 "$log" | sed 's/^/    /'
      echo "    full output: $log"
    fi
  done
  echo "$platform kernel tests: $(( $(date +%s) - start )) s"
}
