#!/usr/bin/env bash
# The whole test suite: a Checked build with g++ (warnings are errors) running every CTest label
# but fuzz-smoke, then a Checked clang build (warnings are errors) that builds the libFuzzer
# targets and runs each for ONEMODEL_FUZZ_SECONDS (default 60).
#   tools/test.sh              everything
#   tools/test.sh -L unit      only the given ctest selection, g++ build only
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
jobs="$(nproc)"
fuzz_seconds="${ONEMODEL_FUZZ_SECONDS:-60}"

# Disk: the Checked trees (g++ and clang, sanitizers, line tables) and the cross trees need several
# GB together; a full disk otherwise shows up as an assembler error deep in the build. Stop early
# and say so. With CI=true each tree is deleted once its step has passed (a fresh checkout never
# reuses one), so the peak is one tree at a time.
need_gb="${ONEMODEL_MIN_FREE_GB:-6}"
free_kb="$(df -Pk "$root" | awk 'NR == 2 { print $4 }')"
if [ "$free_kb" -lt $((need_gb * 1024 * 1024)) ]; then
  echo "test.sh: only $((free_kb / 1024)) MB free on the file system of $root;" \
       "the build and tests need at least ${need_gb} GB (ONEMODEL_MIN_FREE_GB overrides)" >&2
  exit 1
fi
# ccache when installed (tools/setup.sh installs it). Keyed relative to this checkout
# (CCACHE_BASEDIR, no working directory in the hash), so another checkout of the same sources on
# the same machine reuses the objects; a cold cache only costs the lookups. The WebAssembly script
# compiles without it (em++ is a wrapper ccache does not know).
if command -v ccache >/dev/null 2>&1 && [ "${ONEMODEL_NO_CCACHE:-}" != "1" ]; then
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
  export CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-20G}"
  # The test programs' precompiled headers are cacheable only with these (ccache manual, PCH).
  export CCACHE_SLOPPINESS="pch_defines,time_macros,include_file_mtime,include_file_ctime"
fi
drop_tree() { if [ "${CI:-}" = "true" ]; then rm -rf "$1"; fi; }
# Each step prints its start and the time so far, so a CI log shows where the minutes went.
step() { echo "== test.sh: $1 (at $(date -u +%H:%M:%S), ${SECONDS} s since start)"; }

# Under CI=true a test whose data or Python is missing is a configure error, not a skip (issue 10).
require_data=OFF
if [ "${CI:-}" = "true" ]; then require_data=ON; fi
step "Checked g++ build"
cmake -S . -B build/checked -G Ninja -DCMAKE_BUILD_TYPE=Checked -DCMAKE_CXX_COMPILER=g++ \
      -DONEMODEL_WERROR=ON -DONEMODEL_REQUIRE_TEST_DATA="$require_data" >/dev/null
ninja -C build/checked -j "$jobs"
if [ $# -gt 0 ]; then
  ctest --test-dir build/checked -j "$jobs" --output-on-failure "$@"
  exit $?
fi
step "Checked g++ tests"
ctest --test-dir build/checked -j "$jobs" --output-on-failure -LE fuzz-smoke

# ---- Ray (owner: raysweep; docs/sweeps.md) ----
# Every 8th backend-test case (239), all 8 runs of the conformance sweep with the Checked runner:
# one process per run, then 5 shards per run on a local Ray instance with 2 workers; the merged
# TSVs and summary must be byte-identical. Then the Ray Data batch-inference example (when the
# Python package is in the checkout). Needs build/venv-ray (tools/setup.sh --ray, as .ci/run
# does); without it, and without CI=true, the step is skipped with a note.
# Measured on the 2-core EPYC Zen 4 with other builds running (load 12 to 22): the sweep part
# 56 to 112 s; with the Python package merged in, the whole step 383 s, of which about 200 s was
# `pip install ./python` building build/pywheel (the Python package step below then reuses that
# tree, so the build is paid once) and about 70 s the example in fast and exact mode.
step "Ray sweep and batch inference (local Ray, 2 workers)"
if [ -x build/venv-ray/bin/python ] || [ "${CI:-}" = "true" ]; then
  tools/sweep/ci_check.sh build/checked
else
  echo "test.sh: build/venv-ray is missing (tools/setup.sh --ray): the Ray step is skipped"
fi
drop_tree build/checked

# ---- ThreadSanitizer (owner: tsan-golden) ----
# One session run from 8 threads x 200 runs, fast and exact, intra-op threads 2, and disposed
# while runs are in flight (tests/tsan/concurrency_test.cpp), with the library, the kernels and the
# test instrumented (ONEMODEL_SANITIZE=thread). Only that test and what it links are built.
# Measured on the 2-core VM: the run takes 17 s; the cold build ~20 CPU-minutes (about 10 minutes
# on two idle cores), seconds with a warm ccache. A deliberate race (Plan::give_back without its
# lock) is reported by this run (exit 66).
# Build type Sanitized (-O1): the test needs the library instrumented, not fast; -O3 only made the
# cold build take twice as long.
step "ThreadSanitizer build and run"
cmake -S . -B build/tsan -G Ninja -DCMAKE_BUILD_TYPE=Sanitized -DCMAKE_CXX_COMPILER=g++ \
      -DONEMODEL_WERROR=ON -DONEMODEL_SANITIZE=thread >/dev/null
ninja -C build/tsan -j "$jobs" tsan_concurrency_test
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" build/tsan/tsan_concurrency_test
drop_tree build/tsan

step "clang fuzz build"
cmake -S . -B build/fuzz -G Ninja -DCMAKE_BUILD_TYPE=Checked -DCMAKE_CXX_COMPILER=clang++ \
      -DONEMODEL_WERROR=ON -DONEMODEL_FUZZ=ON -DONEMODEL_FUZZ_SECONDS="$fuzz_seconds" >/dev/null
# Only the fuzz targets (and what they link): the clang tree runs nothing else, so building the
# whole test suite a second time would only cost CI minutes.
# The CLI too: the format and JSON seeders convert backend models with it.
fuzz_targets=(onemodel_cli)
for f in fuzz/*_fuzz.cpp; do fuzz_targets+=("$(basename "$f" .cpp)"); done
ninja -C build/fuzz -j "$jobs" "${fuzz_targets[@]}"
step "fuzz smoke"
# Each fuzzer is one process on one core: two at a time on two cores still gives each its stated
# time, in half the wall time of one after another.
ctest --test-dir build/fuzz -j "$jobs" --output-on-failure -L fuzz-smoke
drop_tree build/fuzz

# ---- Python package (owner: pypkg; python/, issue 16) ----
# `pip install ./python` in a fresh venv: scikit-build-core builds the library from these sources
# (Release, ccache through CMAKE_CXX_COMPILER_LAUNCHER above) and the nanobind extension, then
# pytest runs python/tests (150 tests, ~15 s). Measured on the 2-core Zen 4 VM at load 15-19:
# with a warm ccache the whole step took 174 s (156 s venv + install, 18 s pytest; the nanobind
# sources recompile each time: pip's build environment has a new path). Cold (an empty ccache,
# 171 compiles, all misses) at load 13 falling to 6: 926 s, for 8.6 min of CPU time (user + sys),
# so about 5 minutes on two idle cores.
python_package() {
  rm -rf build/pyvenv
  python3 -m venv build/pyvenv
  build/pyvenv/bin/pip install -q --disable-pip-version-check ./python pytest numpy
  build/pyvenv/bin/python -m pytest -q python/tests
}
step "Python package"
python_package
drop_tree build/pywheel

# ---- cross-platform golden hashes (owner: cross) ----
# Exact-mode bits on aarch64 (qemu, NEON and scalar, 1 and 2 threads) and WebAssembly (node,
# SIMD128 and scalar) against tests/golden/golden-exact.txt, reduced set (golden --quick), and the
# golden node set (tests/golden/node-cases-exact.txt) in full.
# Each script builds its own tree (build/cross-aarch64, build/cross-wasm); --full for every graph.
step "aarch64 (qemu)"
tools/cross/aarch64.sh
drop_tree build/cross-aarch64
step "WebAssembly (node)"
tools/cross/wasm.sh
drop_tree build/cross-wasm
step "done"
