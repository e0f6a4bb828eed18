#!/usr/bin/env bash
# The control-flow model gate (issue 13, "Oracles"): `onemodel check` on every batch of the
# models of tools/models.json's "control-flow" reference group (a greedy-decoding Loop around a
# GPT-2 decoder with its key/value cache, a torch.jit.script If, a Scan recurrent cell, a box
# filter in a Loop; tools/oracles/control_flow_models.py), against ONNX Runtime's outputs: both
# engines, fast and exact mode, 1 and 2 threads, each run twice; scaled error <= 1e-4 and hashes
# equal across threads and runs. No model of the group may be blocked.
#   tools/oracles/check_control_flow.sh ONEMODEL_BINARY [extra check options]
# Exit 77 (CTest's skip code) when no reference data exists: reported as skipped, never passed.
set -euo pipefail
binary="${1:?usage: check_control_flow.sh ONEMODEL_BINARY [check options]}"
shift
home="${ONEMODEL_HOME:-$HOME/onemodel}"
group="$home/reference/$(uname -s | tr 'A-Z' 'a-z')-$(uname -m)/control-flow"
dirs=()
for index in "$group"/*/fp32/b*/index.json; do
  [ -e "$index" ] && dirs+=("$(dirname "$index")")
done
if [ ${#dirs[@]} -eq 0 ]; then
  echo "check_control_flow: SKIPPED: no reference data in $group (run tools/setup.sh --oracles)"
  exit 77
fi
"$binary" check "${dirs[@]}" --engine both --modes fast,exact --threads 1,2 --repeat 2 "$@" | grep -v '^hashes'
echo "check_control_flow: PASS (${#dirs[@]} reference directories)"
