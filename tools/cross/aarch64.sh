#!/usr/bin/env bash
# The aarch64 row of the golden hashes (spec-source golden-hashes.md, exact-mode.md): cross-builds
# the library and the golden tool with aarch64-linux-gnu-g++ (static, tests off: GoogleTest and
# rapidcheck do not exist for aarch64 here), runs the tool under qemu-aarch64 on the NEON path
# and with ONEMODEL_ISA=scalar, at 1 and 2 threads, optimized engine, and compares with
# tests/golden/golden-exact.txt (made by the reference engine on x86-64). The reference engine
# runs once too, so a difference can be told apart: platform (reference differs) or kernels.
# First it runs the kernel tests (tests/kernels/*_test.cpp, GoogleTest built from
# /usr/src/googletest, without the rapidcheck properties; cmake/cross_kernel_tests.cmake) under
# qemu: every kernel on {Scalar, Neon} against the naive definitions. All of them run in both
# forms: about 4 minutes under qemu in the CI dry run of 2026-12-01 (gemm_packed_a ~62 s,
# elementwise ~49 s, with a fuzzer on the other core).
#   tools/cross/aarch64.sh          the kernel tests, the reduced golden set (golden --quick) and the node set
#   tools/cross/aarch64.sh --full   the kernel tests and every golden graph
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
build=build/cross-aarch64
set_flag=--quick
[ "${1:-}" = "--full" ] && set_flag=""
expect=tests/golden/golden-exact.txt
run() { qemu-aarch64 -L /usr/aarch64-linux-gnu "$build/golden" "$@"; }

start=$(date +%s)
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DONEMODEL_TESTS=OFF \
      -DONEMODEL_CROSS_KERNEL_TESTS=ON \
      -DCMAKE_TOOLCHAIN_FILE="$root/cmake/toolchains/aarch64-linux-gnu.cmake" >/dev/null
# The static link warns that gtest's result streaming (getaddrinfo, never used here) would need
# the target's glibc at run time; that line is dropped, everything else is shown.
ninja -C "$build" -j "${ONEMODEL_JOBS:-2}" golden cross_kernel_tests 2>&1 \
  | { grep -v -e "Using 'getaddrinfo' in statically linked" -e "in function \`testing::internal::StreamingListener" || true; }
echo "aarch64: build $(( $(date +%s) - start )) s"

# shellcheck source=tools/cross/kernel_tests.sh
. tools/cross/kernel_tests.sh
run_kernel_tests aarch64 "$build" "" qemu-aarch64 -L /usr/aarch64-linux-gnu
status=$kernel_tests_status
step() {
  local label="$1"; shift
  local t0=$(date +%s)
  if "$@"; then echo "aarch64 $label: match ($(( $(date +%s) - t0 )) s)"
  else echo "aarch64 $label: MISMATCH ($(( $(date +%s) - t0 )) s)"; status=1; fi
}
step "reference" env -u ONEMODEL_ISA qemu-aarch64 -L /usr/aarch64-linux-gnu "$build/golden" \
     --engine reference $set_flag --expect "$expect"
for isa in neon scalar; do
  for threads in 1 2; do
    step "optimized isa=$isa threads=$threads" run --engine optimized --isa "$isa" --threads "$threads" \
         $set_flag --expect "$expect"
  done
done
# The CTC decoder rows (spec/ctc.md, issue 16): plain double and float arithmetic, no kernels.
step "ctc rows" run --ctc --expect tests/golden/golden-ctc.txt
# The golden node set (tools/golden/README.md, "Node cases"): every ONNX backend node case in exact
# mode against tests/golden/node-cases-exact.txt; qemu-user reads the case files from the host.
# Every run, quick or full (issue 10: the node set is compared on every platform in CI):
# the reference engine and {neon, scalar} x {1, 2} threads.
node_dir="${ONEMODEL_BACKEND_TEST_DIR:-$root/../shared/onnx-backend-test}/node"
node_expect=tests/golden/node-cases-exact.txt
step "node cases reference" env -u ONEMODEL_ISA qemu-aarch64 -L /usr/aarch64-linux-gnu "$build/golden" \
     --engine reference --node-cases "$node_dir" --check "$node_expect"
for isa in neon scalar; do
  for threads in 1 2; do
    step "node cases isa=$isa threads=$threads" run --engine optimized --isa "$isa" --threads "$threads" \
         --node-cases "$node_dir" --check "$node_expect"
  done
done

echo "aarch64: total $(( $(date +%s) - start )) s"
exit $status
