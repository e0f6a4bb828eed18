#!/usr/bin/env bash
# The installed package checked as a user meets it (issue 16; CTest install_package):
#   tools/ci/check_install.sh BUILD_DIR
# installs BUILD_DIR into BUILD_DIR/install-check, then builds examples/cpp (shared and static)
# and examples/c against the installed tree only (CMAKE_PREFIX_PATH, never the build tree), and a
# C program with pkg-config; runs each on the sample classifier and compares with ONNX Runtime's
# probabilities (0.2323, 0.2813, 0.4864 at four decimals); checks the shared library's SONAME and
# that it exports the API and none of the internal namespaces.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="$(cd "$1" && pwd)"
prefix="$build/install-check"
work="$build/install-check-work"
model="$root/models/samples/classifier.onnx"
want="probs: 0.2323, 0.2813, 0.4864"
rm -rf "$prefix" "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$prefix" >/dev/null
lib="$prefix/lib"
[ -d "$prefix/lib64" ] && lib="$prefix/lib64"
for f in include/onemodel/session.hpp include/onemodel/onemodel.h include/onemodel/ctc.hpp \
         "${lib#$prefix/}/libonemodel.a" "${lib#$prefix/}/libonemodel_kernels.a" \
         "${lib#$prefix/}/cmake/onemodel/onemodelConfig.cmake" \
         "${lib#$prefix/}/cmake/onemodel/onemodelConfigVersion.cmake" "${lib#$prefix/}/pkgconfig/onemodel.pc"; do
  [ -e "$prefix/$f" ] || { echo "check_install: $f not installed"; exit 1; }
done
soname=$(objdump -p "$lib/libonemodel.so" | awk '/SONAME/ {print $2}')
[ "$soname" = "libonemodel.so.0.2" ] || { echo "check_install: SONAME '$soname', expected libonemodel.so.0.2"; exit 1; }
exports=$(nm -D --defined-only "$lib/libonemodel.so" | c++filt)
for want_symbol in "onemodel_session_create" "onemodel_session_run" "onemodel::Session::load" "onemodel::ctc::beam_search"; do
  grep -q "$want_symbol" <<<"$exports" || { echo "check_install: $want_symbol not exported"; exit 1; }
done
if grep -E "onemodel::(opt|exact|c_api|cli|norms|conformance|refdata)::" <<<"$exports" | head -3 | grep -q .; then
  echo "check_install: internal symbols exported:"; grep -E "onemodel::(opt|exact|c_api|cli|norms)::" <<<"$exports" | head
  exit 1
fi
run_check() {  # label, command...
  local label="$1"; shift
  local got
  got=$("$@" | head -1)
  if [ "$got" != "$want" ]; then echo "check_install: $label printed '$got', expected '$want'"; exit 1; fi
  echo "check_install: $label: $got"
}
for variant in shared static; do
  static=OFF; [ $variant = static ] && static=ON
  cmake -S "$root/examples/cpp" -B "$work/cpp-$variant" -DCMAKE_PREFIX_PATH="$prefix" \
        -DONEMODEL_USE_STATIC_LIBS=$static -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$work/cpp-$variant" >/dev/null
  run_check "examples/cpp ($variant)" env LD_LIBRARY_PATH="$lib" "$work/cpp-$variant/classify" "$model"
  run_check "examples/cpp ($variant, exact)" env LD_LIBRARY_PATH="$lib" "$work/cpp-$variant/classify" "$model" exact
done
# The static link must not need the shared library at run time.
if ldd "$work/cpp-static/classify" | grep -q libonemodel; then echo "check_install: static example needs libonemodel.so"; exit 1; fi
cmake -S "$root/examples/c" -B "$work/c" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/c" >/dev/null
run_check "examples/c" env LD_LIBRARY_PATH="$lib" "$work/c/classify_c" "$model"
# pkg-config: a plain C compile and link against the shared library.
PKG_CONFIG_PATH="$lib/pkgconfig" pkg-config --modversion onemodel | grep -qx "0.2.0" \
  || { echo "check_install: pkg-config version"; exit 1; }
# shellcheck disable=SC2046
cc -std=c99 -o "$work/classify_pc" "$root/examples/c/classify.c" \
   $(PKG_CONFIG_PATH="$lib/pkgconfig" pkg-config --cflags --libs onemodel)
run_check "examples/c (pkg-config)" env LD_LIBRARY_PATH="$lib" "$work/classify_pc" "$model"
echo "check_install: ok"
