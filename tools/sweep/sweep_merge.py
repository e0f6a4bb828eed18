"""Merging the shards of a sweep into the outputs of one run, and writing them (docs/sweeps.md).

A run's outputs are what `onemodel conformance DIR --tsv FILE` leaves (spec/conformance.md
section 6): the TSV (header, one row per case in report order) and the standard output (a line
per failing case, then the `cases N pass P ...` line) with its exit status. The merge gives the
bytes one process over all the cases gives: the shards' rows and fail lines in shard order, the
counts added, exit status 1 when any shard had a failing case.
"""
import os
import re

SUMMARY_LINE = re.compile(r"^cases (\d+) pass (\d+) fail (\d+) unsupported-op (\d+) unsupported-type (\d+) "
                          r"not-exact (\d+) known-diff (\d+)\n?$")
SUMMARY_WORDS = ("pass", "fail", "unsupported-op", "unsupported-type", "not-exact", "known-diff")


class MergeError(Exception):
    pass


def split_stdout(name, stdout):
    """(fail lines, [cases, pass, fail, ...]) of one runner's standard output."""
    lines = stdout.splitlines(keepends=True)
    if not lines:
        raise MergeError(f"{name}: the runner printed nothing")
    match = SUMMARY_LINE.match(lines[-1])
    if not match:
        raise MergeError(f"{name}: the runner's last line is not the summary line: {lines[-1]!r}")
    fails = lines[:-1]
    for line in fails:
        if not line.startswith("fail "):
            raise MergeError(f"{name}: unexpected line before the summary: {line!r}")
    return fails, [int(number) for number in match.groups()]


def summary_line(counts):
    words = " ".join(f"{word} {count}" for word, count in zip(SUMMARY_WORDS, counts[1:]))
    return f"cases {counts[0]} {words}\n"


def case_of_row(row):
    fields = row.split("\t")
    return (fields[0], fields[1]) if len(fields) >= 2 else None


def merge_run(name, shards):
    """`shards`: [(cases of the shard, result of sweep_runs.run_shard)] in shard order."""
    available = {result["available"] for _, result in shards}
    if len(available) != 1:
        raise MergeError(f"{name}: the kernel path is available on some workers and not on others")
    if not available.pop():
        return {"available": False, "status": None, "tsv_header": "", "tsv_rows": [], "stdout": ""}
    headers = {result["tsv_header"] for _, result in shards}
    if len(headers) != 1:
        raise MergeError(f"{name}: the shards' TSV headers differ: {sorted(headers)!r}")
    rows, fails, counts = [], [], [0] * (1 + len(SUMMARY_WORDS))
    for index, (cases, result) in enumerate(shards):
        reported = [case_of_row(row) for row in result["tsv_rows"]]
        # The runner reports every case it was given, in order: anything else is a lost or foreign row.
        if reported != [tuple(case) for case in cases]:
            raise MergeError(f"{name}: shard {index} reported {len(reported)} rows for its {len(cases)} cases "
                             "(or in another order)")
        shard_fails, shard_counts = split_stdout(f"{name} shard {index}", result["stdout"])
        if shard_counts[0] != len(cases):
            raise MergeError(f"{name}: shard {index} counted {shard_counts[0]} cases, was given {len(cases)}")
        rows.extend(result["tsv_rows"])
        fails.extend(shard_fails)
        counts = [total + part for total, part in zip(counts, shard_counts)]
    status = 1 if any(result["status"] == 1 for _, result in shards) else 0
    return {"available": True, "status": status, "tsv_header": headers.pop(), "tsv_rows": rows,
            "stdout": "".join(fails) + summary_line(counts)}


def write_outputs(out_dir, runs, results):
    """Writes OUT/<run>.tsv for each run that ran and OUT/summary.txt (every run, in run order).
    `runs` are sweep_runs.all_runs() entries; `results` maps a run's name to its outputs."""
    os.makedirs(out_dir, exist_ok=True)
    summary = []
    for name, _, isa in runs:
        result = results[name]
        if not result["available"]:
            summary.append(f"== {name}: not run (kernel path {isa} is not available on this CPU)\n")
            continue
        with open(os.path.join(out_dir, f"{name}.tsv"), "w", encoding="utf-8", newline="") as f:
            f.write(result["tsv_header"])
            f.writelines(result["tsv_rows"])
        summary.append(f"== {name}: exit {result['status']}\n")
        summary.append(result["stdout"])
    with open(os.path.join(out_dir, "summary.txt"), "w", encoding="utf-8", newline="") as f:
        f.writelines(summary)
    return os.path.join(out_dir, "summary.txt")
