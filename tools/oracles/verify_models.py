#!/usr/bin/env python3
"""Checks the model cache against tools/models.json (spec-source oracles.md "Models").

    python3 tools/oracles/verify_models.py [--models a,b]

Needs only the standard library. For every pinned model: the file exists in $ONEMODEL_HOME/models,
its size and SHA-256 equal the pins. Exit status 0 when all do, 1 otherwise (each problem printed).
"""
import argparse
import sys

import oracle_paths as paths


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
        path = paths.models_dir() / entry["file"]
        if not path.exists():
            print(f"verify: {name}: missing {path} (run tools/oracles/export_models.py)")
            problems += 1
            continue
        size = path.stat().st_size
        if size != entry["size"]:
            print(f"verify: {name}: size {size} is not the pinned {entry['size']}")
            problems += 1
            continue
        digest = paths.sha256_file(path)
        if digest != entry["sha256"]:
            print(f"verify: {name}: SHA-256 {digest} is not the pinned {entry['sha256']}")
            problems += 1
            continue
        print(f"verify: {name}: ok ({size} bytes)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
