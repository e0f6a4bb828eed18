"""Reading the TSV files of `onemodel conformance --tsv` (spec/conformance.md section 6).

Each file has a header line, then one row per case:
group, case, operators (comma-separated), opset, status, reason.
"""
import csv
import sys

STATUSES = ("pass", "fail", "unsupported-op", "unsupported-type", "not-exact", "known-diff")
GAP = ("unsupported-op", "unsupported-type")


def read_runs(pairs):
    """`pairs` are NAME=FILE strings; returns [(name, {(group, case): row})] in the given order."""
    runs = []
    for pair in pairs:
        if "=" not in pair:
            sys.exit(f"--tsv takes NAME=FILE (for example reference-fast=fast.tsv), not {pair!r}")
        name, path = pair.split("=", 1)
        rows = {}
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
            header = next(reader, None)
            if header is None or header[:5] != ["group", "case", "operators", "opset", "status"]:
                sys.exit(f"{path}: not a conformance TSV (header {header!r})")
            for line, fields in enumerate(reader, start=2):
                if len(fields) < 5:
                    sys.exit(f"{path}:{line}: expected 6 fields, found {len(fields)}")
                group, case, operators, opset, status = fields[:5]
                reason = fields[5] if len(fields) > 5 else ""
                if status not in STATUSES:
                    sys.exit(f"{path}:{line}: unknown status {status!r}")
                rows[(group, case)] = {
                    "group": group,
                    "case": case,
                    "operators": [op for op in operators.split(",") if op],
                    "opset": int(opset) if opset.lstrip("-").isdigit() else 0,
                    "status": status,
                    "reason": reason,
                }
        runs.append((name, rows))
    return runs
