#!/usr/bin/env python3
"""Checks the model cache against tools/models.json (spec-source oracles.md "Models").

    python3 tools/oracles/verify_models.py [--models a,b]

Needs only the standard library. For every pinned model and each of its pinned variants (the
float16 and int8 files of oracles.md "float16 files" and "int8 variants", under "variants"): the file exists in
$ONEMODEL_HOME/models, its size and SHA-256 equal the pins. Exit status 0 when all do, 1 otherwise (each problem printed).
"""
import argparse
import sys

import oracle_paths as paths


def check_file(label: str, pin: dict) -> int:
    """1 when the cached file of one pin is missing or differs, else 0 (each problem printed)."""
    path = paths.models_dir() / pin["file"]
    if not path.exists():
        print(f"verify: {label}: missing {path} (run tools/oracles/export_models.py)")
        return 1
    size = path.stat().st_size
    if size != pin["size"]:
        print(f"verify: {label}: size {size} is not the pinned {pin['size']}")
        return 1
    digest = paths.sha256_file(path)
    if digest != pin["sha256"]:
        print(f"verify: {label}: SHA-256 {digest} is not the pinned {pin['sha256']}")
        return 1
    print(f"verify: {label}: ok ({size} bytes)")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default="", help="comma-separated names (default: every model)")
    args = parser.parse_args()
    manifest = paths.load_manifest()["models"]
    wanted = [m for m in args.models.split(",") if m] or list(manifest)
    problems = 0
    for name in wanted:
        entry = manifest.get(name)
        if entry is None:
            print(f"verify: {name}: not in tools/models.json")
            problems += 1
            continue
        for label, pin in [(name, entry)] + [(f"{name} {v}", p) for v, p in entry.get("variants", {}).items()]:
            problems += check_file(label, pin)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
