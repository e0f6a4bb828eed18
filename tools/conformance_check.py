#!/usr/bin/env python3
"""Checks conformance results against tests/conformance/expected.tsv (spec/conformance.md section 7).

  conformance_check.py --expected tests/conformance/expected.tsv \
      --tsv reference-fast=fast.tsv --tsv reference-exact=exact.tsv [--update]

Fails (exit 1) on any case whose status is `fail`, on any case expected to `pass` that no
longer does, and on any case expected to `pass` that is missing from the run. Reports cases that pass now but were not expected to. `--update` records new cases
and improvements only: it never writes `fail` and never replaces an expected `pass`; a regression
is accepted only by editing the file by hand, with a reason in the commit message.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from conformance_common import read_runs  # noqa: E402


def read_expected(path):
    """Returns (run names, {(group, case): {run: status}})."""
    if not os.path.exists(path):
        return [], {}
    with open(path, encoding="utf-8") as f:
        lines = [line.rstrip("\n") for line in f if line.strip() and not line.startswith("#")]
    if not lines:
        return [], {}
    header = lines[0].split("\t")
    if header[:2] != ["group", "case"]:
        sys.exit(f"{path}: the first line must be 'group<TAB>case<TAB><run>...'")
    names = header[2:]
    table = {}
    for number, line in enumerate(lines[1:], start=2):
        fields = line.split("\t")
        if len(fields) != len(header):
            sys.exit(f"{path}:{number}: expected {len(header)} fields, found {len(fields)}")
        table[(fields[0], fields[1])] = {name: value for name, value in zip(names, fields[2:]) if value != "-"}
    return names, table


def write_expected(path, names, table):
    with open(path, "w", encoding="utf-8") as f:
        f.write("# Expected conformance status per case and engine-mode run (spec/conformance.md section 7).\n")
        f.write("# Updated by tools/conformance_check.py --update (improvements only); '-' means not recorded.\n")
        f.write("\t".join(["group", "case"] + names) + "\n")
        for key in sorted(table):
            f.write("\t".join(list(key) + [table[key].get(name, "-") for name in names]) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--expected", required=True)
    parser.add_argument("--tsv", action="append", required=True, metavar="NAME=FILE")
    parser.add_argument("--update", action="store_true")
    args = parser.parse_args()

    runs = read_runs(args.tsv)
    names, table = read_expected(args.expected)
    errors, notes = [], []
    changed = False
    for name, rows in runs:
        if name not in names:
            names.append(name)
            notes.append(f"{name}: no expectations recorded yet")
        newly_passing = 0
        for key, row in sorted(rows.items()):
            label = f"{name} {key[0]}/{key[1]}"
            actual = row["status"]
            expected = table.get(key, {}).get(name)
            if actual == "fail":
                errors.append(f"FAIL {label}: {row['reason']}")
            if expected == "pass" and actual != "pass":
                errors.append(f"REGRESSION {label}: expected pass, now {actual}: {row['reason']}")
                continue
            if expected is None:
                notes.append(f"new case {label}: {actual}")
            elif expected != actual:
                if actual == "pass":
                    newly_passing += 1
                notes.append(f"{'NEWLY PASSING' if actual == 'pass' else 'changed'} {label}: {expected} -> {actual}")
            if args.update and actual != "fail" and expected != actual:
                table.setdefault(key, {})[name] = actual
                changed = True
        # A case expected to pass that is not in the run at all (its data missing, a group left out)
        # must not drop out of the gate unnoticed (issue 10).
        missing = sorted(key for key, expected_runs in table.items()
                         if expected_runs.get(name) == "pass" and key not in rows)
        for key in missing:
            errors.append(f"MISSING {name} {key[0]}/{key[1]}: expected pass, not in the run (is its data there?)")
        counts = {}
        for row in rows.values():
            counts[row["status"]] = counts.get(row["status"], 0) + 1
        summary = " ".join(f"{status} {counts.get(status, 0)}" for status in
                           ("pass", "fail", "unsupported-op", "unsupported-type", "not-exact", "known-diff"))
        print(f"{name}: cases {len(rows)} {summary}; newly passing {newly_passing}")
    new_cases = [note for note in notes if note.startswith("new case ")]
    for note in notes:
        if not note.startswith("new case ") or len(new_cases) <= 20:
            print(note)
    if len(new_cases) > 20:
        print(f"{len(new_cases)} cases have no recorded expectation (run with --update to record them)")
    for error in errors:
        print(error)
    if args.update and changed:
        write_expected(args.expected, names, table)
        print(f"updated {args.expected} (improvements and new cases only)")
    elif args.update:
        print(f"{args.expected} is up to date")
    if errors:
        print(f"conformance check failed: {len(errors)} problem(s)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
