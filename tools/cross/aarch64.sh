#!/usr/bin/env bash
# The aarch64 row of the golden hashes (spec-source golden-hashes.md, exact-mode.md): cross-builds
# the library and the golden tool with aarch64-linux-gnu-g++ (static, tests off: GoogleTest and
# rapidcheck do not exist for aarch64 here), runs the tool under qemu-aarch64 on the NEON path
# and with ONEMODEL_ISA=scalar, at 1 and 2 threads, optimized engine, and compares with
# tests/golden/golden-exact.txt (made by the reference engine on x86-64). The reference engine
# runs once too, so a difference can be told apart: platform (reference differs) or kernels.
#   tools/cross/aarch64.sh          the reduced set (golden --quick)
#   tools/cross/aarch64.sh --full   every golden graph
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
      -DCMAKE_TOOLCHAIN_FILE="$root/cmake/toolchains/aarch64-linux-gnu.cmake" >/dev/null
ninja -C "$build" -j "${ONEMODEL_JOBS:-2}" golden
echo "aarch64: build $(( $(date +%s) - start )) s"

status=0
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
echo "aarch64: total $(( $(date +%s) - start )) s"
exit $status
