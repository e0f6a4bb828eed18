#!/usr/bin/env bash
# The WebAssembly row of the golden hashes (spec-source golden-hashes.md, exact-mode.md): builds
# the library and the golden tool with emscripten (emcmake, -msimd128, single-threaded:
# -DONEMODEL_NO_THREADS, tests off), runs it under node on the SIMD128 path and with the scalar
# cap, and compares with tests/golden/golden-exact.txt (made by the reference engine on x86-64).
# node does not hand the shell's environment to the program, so the ISA cap is passed with the
# tool's --isa flag, which sets ONEMODEL_ISA from inside. The reference engine runs once too.
# First it runs the kernel tests (tests/kernels/*_test.cpp, GoogleTest built from
# /usr/src/googletest, without the rapidcheck properties; cmake/cross_kernel_tests.cmake) under
# node: every kernel on {Scalar, Wasm} against the naive definitions, the 2-thread cases on the
# caller alone. All of them run in both forms: about 1 minute (gemm ~55 s, the rest < 4 s).
#   tools/cross/wasm.sh          the kernel tests and the reduced golden set (golden --quick)
#   tools/cross/wasm.sh --full   the kernel tests and every golden graph
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
build=build/cross-wasm
set_flag=--quick
[ "${1:-}" = "--full" ] && set_flag=""
expect=tests/golden/golden-exact.txt
# emscripten's optimizer (binaryen's JS passes) needs node's global modules (DESIGN.md section 4).
export NODE_PATH="${NODE_PATH:-/usr/share/nodejs}"

# -fexceptions: the library reports errors by throwing, and the tool catches them per graph
# (emscripten turns catching off by default). ENVIRONMENT=node and synchronous compilation: run
# under node as a plain program; NODERAWFS: read the expected file from the real file system;
# EXIT_RUNTIME: the exit code reaches the shell. Memory grows: the big sweeps need ~100 MB.
cxx_flags="-msimd128 -fexceptions -DONEMODEL_NO_THREADS"
link_flags="-fexceptions -sENVIRONMENT=node -sWASM_ASYNC_COMPILATION=0 -sNODERAWFS=1 -sEXIT_RUNTIME=1"
link_flags="$link_flags -sALLOW_MEMORY_GROWTH=1 -sTOTAL_STACK=8388608"

start=$(date +%s)
env -u CMAKE_CXX_COMPILER_LAUNCHER emcmake cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DONEMODEL_TESTS=OFF \
        -DONEMODEL_CROSS_KERNEL_TESTS=ON \
        -DCMAKE_CXX_FLAGS="$cxx_flags" -DCMAKE_EXE_LINKER_FLAGS="$link_flags" >/dev/null
ninja -C "$build" -j "${ONEMODEL_JOBS:-2}" golden cross_kernel_tests
echo "wasm: build $(( $(date +%s) - start )) s"

# shellcheck source=tools/cross/kernel_tests.sh
. tools/cross/kernel_tests.sh
declare -A kernel_test_args=()
run_kernel_tests wasm "$build" ".js" node
status=$kernel_tests_status

tool="$build/golden.js"
step() {
  local label="$1"; shift
  local t0=$(date +%s)
  if node "$tool" "$@"; then echo "wasm $label: match ($(( $(date +%s) - t0 )) s)"
  else echo "wasm $label: MISMATCH ($(( $(date +%s) - t0 )) s)"; status=1; fi
}
step "reference" --engine reference $set_flag --expect "$expect"
step "optimized isa=wasm (default)" --engine optimized $set_flag --expect "$expect"
step "optimized isa=scalar" --engine optimized --isa scalar $set_flag --expect "$expect"
# The CTC decoder rows (spec/ctc.md, issue 16): plain double and float arithmetic, no kernels.
step "ctc rows" --ctc --expect tests/golden/golden-ctc.txt
# The golden node set (tools/golden/README.md, "Node cases"): every ONNX backend node case in exact
# mode against tests/golden/node-cases-exact.txt; NODERAWFS lets the program read the case files
# from the host. Every run, quick or full (issue 10: the node set is compared on every platform in CI).
node_dir="${ONEMODEL_BACKEND_TEST_DIR:-$root/../shared/onnx-backend-test}/node"
node_expect=tests/golden/node-cases-exact.txt
step "node cases isa=wasm (default)" --engine optimized --node-cases "$node_dir" --check "$node_expect"
step "node cases reference" --engine reference --node-cases "$node_dir" --check "$node_expect"
step "node cases isa=scalar" --engine optimized --isa scalar --node-cases "$node_dir" --check "$node_expect"
echo "wasm: total $(( $(date +%s) - start )) s"
exit $status
