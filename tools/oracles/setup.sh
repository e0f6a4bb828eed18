#!/usr/bin/env bash
# Creates the pinned oracle environment (spec-source oracles.md "Pins"): torch, torchvision,
# transformers, onnx, onnxruntime, numpy, matplotlib and the packages that ship real weights, in
# $ONEMODEL_HOME/venvs/oracles (default ~/onemodel). Kept apart from tools/setup.sh so the plain
# test set-up stays light (this one downloads several GB).
# Idempotent: when the venv already holds exactly the pinned versions nothing is installed.
#   tools/oracles/setup.sh            create or repair the venv, write its pip freeze beside it
#   tools/oracles/setup.sh --models   also export the models (the model zoo of issue 15 among
#                                     them: tools/models.json group "zoo", export_zoo.py) and their
#                                     float16 and int8 variants (oracles.md "float16 files", "int8
#                                     variants"), write the reference
#                                     outputs of all three and ONNX Runtime's int8 noise floors
#                                     (floor.json beside each int8 reference, check_int8.py)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
home="${ONEMODEL_HOME:-$HOME/onemodel}"
venv="$home/venvs/oracles"
requirements="$here/requirements.txt"

if [ ! -x "$venv/bin/python" ]; then
  mkdir -p "$home/venvs"
  python3 -m venv "$venv"
fi
# Compare the pins with what is installed (names normalised as pip does) before touching anything.
if ! "$venv/bin/python" - "$requirements" <<'EOF'
import re, sys
from importlib import metadata
norm = lambda n: re.sub(r"[-_.]+", "-", n).lower()
installed = {norm(d.metadata["Name"]): d.version for d in metadata.distributions()}
for line in open(sys.argv[1]):
    line = line.split("#")[0].strip()
    if not line:
        continue
    name, version = line.split("==")
    have = installed.get(norm(name), "")
    if have.split("+")[0] != version:
        sys.exit(1)
EOF
then
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$requirements"
fi
"$venv/bin/pip" freeze --disable-pip-version-check > "$venv.freeze.txt"
echo "oracles: environment ok ($venv; pip freeze in $venv.freeze.txt)"

if [ "${1:-}" = "--models" ]; then
  cd "$here"
  # Every float32 file, the zoo's 24 included (source kind "zoo" runs export_zoo.py): cached by pin
  # (or by this machine's own export, the .local-export record), so a second run only hashes. A
  # cold export of the zoo took about 11 minutes here (2 shared cores, each export also checked
  # against PyTorch), 1.7 GB of files; its references (make_reference.py below) about 3.5 minutes.
  "$venv/bin/python" export_models.py
  "$venv/bin/python" export_models.py --fp16
  # int8 variants: each cached file matching its pin is only hashed (3 s; quantizing all six takes
  # about 4 minutes here; ResNet-50 and MobileNetV3 follow this machine's float32 export, so
  # on another machine they may differ from the pins: a note, as for the float32 files).
  "$venv/bin/python" quantize_models.py || echo "oracles: note: some int8 files differ from their pins (see above)"
  "$venv/bin/python" verify_models.py || echo "oracles: note: some files differ from their pins (see above)"
  "$venv/bin/python" make_reference.py
  "$venv/bin/python" make_reference.py --variant fp16
  "$venv/bin/python" make_reference.py --variant int8
  # ONNX Runtime's own noise floor of every int8 row (int8.md "Noise floor"): measured once (about
  # 21 minutes on two cores, all ten rows), then reused while the files and ONNX Runtime are unchanged.
  "$venv/bin/python" check_int8.py --floors-only --full
fi
