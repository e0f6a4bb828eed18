#!/usr/bin/env bash
# Installs everything the build, tests, fuzzers and proofs need on a fresh Debian 12 machine.
# Idempotent: packages already present are not reinstalled; the Python environment is reused
# when its pinned versions are already installed.
#   tools/setup.sh            Debian packages + build/venv (onnx, onnxruntime, numpy)
#   tools/setup.sh --no-python   Debian packages only
#   tools/setup.sh --oracles     also the oracle environment, models and ONNX Runtime reference
#                                outputs (tools/oracles/setup.sh --models; several GB, idempotent)
#   tools/setup.sh --ray         also build/venv-ray: Ray for the sharded sweep and the batch
#                                example (docs/sweeps.md); options combine (--oracles --ray)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
no_python=0 oracles=0 ray=0
for arg in "$@"; do
  case "$arg" in
    --no-python) no_python=1 ;;
    --oracles) oracles=1 ;;
    --ray) ray=1 ;;
    *) echo "setup: unknown option $arg" >&2; exit 2 ;;
  esac
done

packages=(
  build-essential cmake ninja-build g++ clang libclang-rt-14-dev
  libgtest-dev libgmock-dev librapidcheck-dev libz3-dev z3 libmpfr-dev libgmp-dev libcereal-dev
  python3 python3-venv time
  # The Python package (python/, built by tools/test.sh): Python's headers for the extension.
  python3-dev
  # The installed-package check (tools/ci/check_install.sh): pkg-config and binutils' nm/objdump.
  pkg-config binutils
  # A compiler cache: tools/test.sh uses it when present, so a second run on one machine
  # recompiles only what changed (a cold run is the same without it).
  ccache
  # Cross rows of the golden hashes (tools/cross/): aarch64 under qemu, WebAssembly under node.
  g++-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user emscripten
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [ "$no_python" = 0 ]; then
  # Pinned oracle environment (DESIGN.md section 5); numpy pinned so dumps stay reproducible.
  venv="$here/build/venv"
  pins=(onnx==1.23.2 onnxruntime==1.31.1 numpy==2.3.5)
  py="$(command -v python3)"
  if [ ! -x "$venv/bin/python" ]; then
    "$py" -m venv "$venv"
  fi
  if ! "$venv/bin/python" -c 'import onnx, onnxruntime, numpy, sys; sys.exit(0 if (onnx.__version__, onnxruntime.__version__, numpy.__version__) == ("1.23.2", "1.31.1", "2.3.5") else 1)' 2>/dev/null; then
    "$venv/bin/pip" install -q --disable-pip-version-check "${pins[@]}"
  fi
fi
if [ "$ray" = 1 ]; then
  # Ray in an environment of its own (docs/sweeps.md): ray[data] brings pyarrow and pandas, about
  # 600 MB that the build's and the oracles' environments need not carry. Pinned as resolved on
  # PyPI for Python 3.11; numpy as in build/venv.
  ray_venv="$here/build/venv-ray"
  ray_pins=("ray[data]==2.60.0" pyarrow==26.0.1 pandas==3.1.1 numpy==2.3.5)
  if [ ! -x "$ray_venv/bin/python" ]; then
    "$(command -v python3)" -m venv "$ray_venv"
  fi
  if ! "$ray_venv/bin/python" -c 'import ray, pyarrow, pandas, numpy, sys; sys.exit(0 if (ray.__version__, pyarrow.__version__, pandas.__version__, numpy.__version__) == ("2.60.0", "26.0.1", "3.1.1", "2.3.5") else 1)' 2>/dev/null; then
    "$ray_venv/bin/pip" install -q --disable-pip-version-check "${ray_pins[@]}"
  fi
fi
if [ "$oracles" = 1 ]; then
  bash "$here/tools/oracles/setup.sh" --models
fi
echo "setup: ok"
