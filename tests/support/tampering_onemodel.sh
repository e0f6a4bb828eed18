#!/bin/sh
# Runs the real onemodel ($ONEMODEL_REAL) and then changes one line of the first dump it wrote,
# so tests/cmake/dump.cmake can check that tools/compare_onnx_dump.py notices a difference.
"$ONEMODEL_REAL" "$@"
status=$?
while [ $# -gt 0 ]; do
  if [ "$1" = "--output-dir" ]; then
    printf 'tampered line\n' >> "$2/0.txt"
  fi
  shift
done
exit $status
