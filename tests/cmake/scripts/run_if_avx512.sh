#!/usr/bin/env bash
# Runs the given test program when this CPU has AVX-512 (the kernel tests' second run of the
# AVX-512 product's other tuning, CMakeLists.txt); otherwise exits 77, which CTest reports as
# skipped, so a machine without AVX-512 neither repeats the ordinary run nor counts it as passed.
# The CPU is read from /proc/cpuinfo (Linux, where the x86-64 tests run); where that file does not
# exist the program runs, which at worst repeats the ordinary run.
set -euo pipefail
if [ -r /proc/cpuinfo ] && ! grep -qw avx512f /proc/cpuinfo; then
  echo "run_if_avx512: SKIPPED: this CPU has no AVX-512 (no avx512f in /proc/cpuinfo);" \
       "the AVX-512 product's second tuning cannot run here"
  exit 77
fi
exec "$@"
