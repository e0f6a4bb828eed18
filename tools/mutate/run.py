#!/usr/bin/env python3
"""Mutation testing of the optimized engine (issue 10, "mutation testing").

Reads tools/mutate/catalogue.tsv (one mutation per row) and tools/mutate/families.tsv (which
test programs judge each family), makes a PRIVATE copy of the source tree, and for each
selected mutant: checks that the search text occurs exactly once in its file, writes the
replacement, rebuilds only the family's test programs, runs them with a time limit, records
killed / survived, and puts the original bytes back. The shared work tree is never written.

Outcomes:
  killed       a test program failed (non-zero exit) or ran past its time limit (a hang)
  survived     every test program of the family passed
  build-error  the mutant did not compile; it says nothing about the tests and is left out of
               the score (the catalogue row is wrong and must be fixed)
  invalid      the search text is missing or not unique; also left out of the score

Python 3 standard library only.  Typical use (from the repository root):
  nice -n 10 tools/mutate/run.py --work build/mutate                 # every mutant
  tools/mutate/run.py --work build/mutate --only gemm-01,gemm-02     # a few
  tools/mutate/run.py --work build/mutate --family softmax
  tools/mutate/run.py --summary tools/mutate/results.tsv             # the per-family table
"""

import argparse
import csv
import hashlib
import io
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
RESULT_FIELDS = ["id", "family", "class", "status", "seconds", "detail"]


def unescape(text):
    """Catalogue fields are one line each: \\n stands for a newline, \\t for a tab, \\\\ for \\."""
    out = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            n = text[i + 1]
            if n == "n":
                out.append("\n")
                i += 2
                continue
            if n == "t":
                out.append("\t")
                i += 2
                continue
            if n == "\\":
                out.append("\\")
                i += 2
                continue
        out.append(c)
        i += 1
    return "".join(out)


def read_tsv(path):
    """Rows of a tab-separated file with a header line; '#' lines and blank lines are comments."""
    with open(path, encoding="utf-8") as f:
        lines = [l.rstrip("\n") for l in f if l.strip() and not l.startswith("#")]
    header = lines[0].split("\t")
    rows = []
    for number, line in enumerate(lines[1:], start=2):
        cells = line.split("\t")
        if len(cells) > len(header):
            raise SystemExit(f"{path}: row {number} has {len(cells)} cells, header has {len(header)}")
        cells += [""] * (len(header) - len(cells))
        rows.append(dict(zip(header, cells)))
    return rows


def load_catalogue(path):
    rows = read_tsv(path)
    seen = set()
    for r in rows:
        for key in ("id", "family", "file", "search", "replace", "class"):
            if not r.get(key):
                raise SystemExit(f"{path}: mutant {r.get('id', '?')} has no {key}")
        if r["id"] in seen:
            raise SystemExit(f"{path}: duplicate id {r['id']}")
        seen.add(r["id"])
        r["search_text"] = unescape(r["search"])
        r["replace_text"] = unescape(r["replace"])
    return rows


def load_families(path):
    families = {}
    for r in read_tsv(path):
        families[r["family"]] = {
            "targets": [t for t in r["targets"].split() if t != "-"],
            # A test is a program name, optionally with a gtest filter: name[:Filter*].
            "tests": r["tests"].split(),
        }
    return families


def cpu_flags():
    """The CPU's feature words from /proc/cpuinfo, or None when they cannot be read."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return None


# ---- the private copy -------------------------------------------------------------------------

def snapshot_git(src, rev):
    """{relative path: bytes} of the tree at rev, from `git archive` (committed files only)."""
    data = subprocess.run(["git", "-C", src, "archive", "--format=tar", rev],
                          check=True, stdout=subprocess.PIPE).stdout
    files = {}
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        for member in tar.getmembers():
            if member.isfile():
                files[member.name] = (tar.extractfile(member).read(), member.mode & 0o777)
    return files


def snapshot_copy(src, skip_dirs):
    """{relative path: bytes} of the files under src as they are on disk, without build/ and .git."""
    files = {}
    skip = {os.path.realpath(d) for d in skip_dirs}
    for root, dirs, names in os.walk(src):
        rel_root = os.path.relpath(root, src)
        keep = []
        for d in dirs:
            full = os.path.realpath(os.path.join(root, d))
            if rel_root == "." and d in ("build", ".git"):
                continue
            if full in skip:
                continue
            keep.append(d)
        dirs[:] = keep
        for name in names:
            full = os.path.join(root, name)
            if not os.path.isfile(full):
                continue
            rel = os.path.normpath(os.path.join(rel_root, name))
            with open(full, "rb") as f:
                files[rel] = (f.read(), os.stat(full).st_mode & 0o777)
    return files


def sync_tree(files, dest):
    """Makes dest hold exactly `files` (outside dest/build), writing only files whose bytes
    differ, so an unchanged file keeps its time stamp and is not rebuilt."""
    written = 0
    for rel, (data, mode) in files.items():
        path = os.path.join(dest, rel)
        try:
            with open(path, "rb") as f:
                if f.read() == data:
                    continue
        except FileNotFoundError:
            os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        os.chmod(path, mode)
        written += 1
    removed = 0
    for root, dirs, names in os.walk(dest):
        rel_root = os.path.relpath(root, dest)
        if rel_root == ".":
            dirs[:] = [d for d in dirs if d != "build"]
        for name in names:
            rel = os.path.normpath(os.path.join(rel_root, name))
            if rel not in files:
                os.remove(os.path.join(root, name))
                removed += 1
    return written, removed


# ---- building and testing ---------------------------------------------------------------------

def log(message):
    print(time.strftime("%H:%M:%S"), message, flush=True)


def run_limited(cmd, timeout, cwd=None, env=None):
    """Runs cmd in its own process group; returns (exit code or None on timeout, seconds, tail)."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
        code = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        code = None
    seconds = time.monotonic() - start
    text = out.decode("utf-8", "replace")
    return code, seconds, text[-3000:]


def configure(dest, build, original_src, build_type):
    if os.path.exists(os.path.join(build, "build.ninja")):
        return
    os.makedirs(build, exist_ok=True)
    # Release: the same flags as the shared Release trees, so ccache serves unchanged objects.
    # Another build type (the CI smoke's MutateSmoke has no flags of its own: -O0, no -Werror)
    # compiles the kernels in a fraction of the time. The data paths point at the original
    # checkout's neighbours.
    backend = os.path.join(original_src, "..", "shared", "onnx-backend-test")
    python = os.path.join(original_src, "build", "venv", "bin", "python")
    cmd = ["cmake", "-S", dest, "-B", build, "-G", "Ninja", f"-DCMAKE_BUILD_TYPE={build_type}",
           f"-DONEMODEL_WERROR={'ON' if build_type == 'Release' else 'OFF'}",
           f"-DONEMODEL_BACKEND_TEST_DIR={backend}", f"-DONEMODEL_PYTHON={python}",
           # The copy's build runs only kernel and unit programs, never the data-driven tests, so
           # it must not stop at configure time (as CI=true would make it) for their data.
           "-DONEMODEL_REQUIRE_TEST_DATA=OFF",
           # One object per file: a mutant then recompiles its own file, not a unity batch of 16.
           "-DONEMODEL_UNITY=OFF"]
    code, _, tail = run_limited(cmd, 600)
    if code != 0:
        raise SystemExit("configure failed:\n" + tail)


def build_targets(build, targets, jobs, timeout):
    return run_limited(["ninja", "-C", build, f"-j{jobs}"] + targets, timeout)


def test_command(build, test):
    name, _, gfilter = test.partition(":")
    cmd = [os.path.join(build, name), "--gtest_brief=1", "--gtest_fail_fast"]
    if gfilter:
        cmd.append(f"--gtest_filter={gfilter}")
    return cmd


def test_env():
    env = dict(os.environ)
    # A failing rapidcheck property would otherwise shrink its counterexample for minutes.
    env["RC_PARAMS"] = "noshrink=1"
    env.pop("ONEMODEL_ISA", None)  # every test walks every path this CPU has
    return env


def run_tests(build, tests, limits, jobs):
    """(status, seconds, detail): killed on the first failing or hanging program. Each program is
    built just before it runs, so a mutant the first (fast-building) program kills never waits for
    the link of a larger one."""
    total = 0.0
    for test in tests:
        code, seconds, tail = build_targets(build, [test.partition(":")[0]], jobs, 1800)
        total += seconds
        if code != 0:
            errors = [l for l in tail.splitlines() if "error" in l]
            return "build-error", total, (errors[0] if errors else "build failed")[:200]
        code, seconds, tail = run_limited(test_command(build, test), limits[test], env=test_env())
        total += seconds
        if code is None:
            return "killed", total, f"{test}: timeout after {limits[test]:.0f}s (hang)"
        if code != 0:
            failed = [l.strip() for l in tail.splitlines() if "[  FAILED  ]" in l or "Failure" in l]
            what = failed[0] if failed else f"exit {code}"
            return "killed", total, f"{test}: {what}"[:200]
    return "survived", total, ""


def file_digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


# ---- main ---------------------------------------------------------------------------------------

def summary(results_path):
    """The per-family table of a results file (later rows of an id replace earlier ones) and the
    list of every mutant not killed, with the catalogue's reason when it is marked equivalent."""
    latest = {}
    for r in read_tsv(results_path):
        latest[r["id"]] = r
    catalogue = {r["id"]: r for r in load_catalogue(os.path.join(HERE, "catalogue.tsv"))}
    rows = [latest[i] for i in catalogue if i in latest]
    # A mutant whose code needs a feature this CPU lacks is not runnable here, whatever an older
    # row (written before its `requires` was filled in) says.
    flags = cpu_flags()
    for r in rows:
        needs = catalogue[r["id"]].get("requires", "").split()
        if flags is not None and any(f not in flags for f in needs):
            r["status"] = "not-runnable"
    families = {}
    for r in rows:
        f = families.setdefault(r["family"], {"killed": 0, "survived": 0, "equivalent": 0, "not-runnable": 0,
                                              "other": 0})
        equivalent = catalogue[r["id"]].get("equivalent", "")
        if equivalent and r["status"] == "survived":
            f["equivalent"] += 1
        elif r["status"] in ("killed", "survived", "not-runnable"):
            f[r["status"]] += 1
        else:
            f["other"] += 1
    print("| family | mutants | not runnable here | equivalent | killed | survived | build error or invalid | score |")
    print("|---|---|---|---|---|---|---|---|")
    keys = ("not-runnable", "equivalent", "killed", "survived", "other")
    totals = {k: 0 for k in keys}
    for name in sorted(families):
        f = families[name]
        counted = f["killed"] + f["survived"]
        n = sum(f[k] for k in keys)
        score = f"{100.0 * f['killed'] / counted:.0f}%" if counted else "-"
        print(f"| {name} | {n} | " + " | ".join(str(f[k]) for k in keys) + f" | {score} |")
        for k in keys:
            totals[k] += f[k]
    counted = totals["killed"] + totals["survived"]
    score = f"{100.0 * totals['killed'] / counted:.1f}%" if counted else "-"
    print(f"| all | {sum(totals.values())} | " + " | ".join(str(totals[k]) for k in keys) + f" | {score} |")
    skipped = [r["id"] for r in rows if r["status"] == "not-runnable"]
    if skipped:
        print()
        print("Not runnable on this CPU (the mutated code needs AVX-512): " + ", ".join(f"`{i}`" for i in skipped) + ".")
    leftover = [r for r in rows if r["status"] not in ("killed", "not-runnable")]
    if leftover:
        print()
        for r in leftover:
            c = catalogue[r["id"]]
            why = c.get("equivalent") or r.get("detail") or ""
            label = "equivalent" if c.get("equivalent") and r["status"] == "survived" else r["status"]
            print(f"- `{r['id']}` ({r['family']}, {r['class']}, {label}) `{c['file']}`: {why}")


def main():
    # A terminated run still restores the file it mutated: SIGTERM becomes SystemExit, so the
    # `finally` around each mutant runs (and the next run's copy step rewrites any stray file).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--src", default=os.path.dirname(os.path.dirname(HERE)),
                   help="the checkout to copy (default: this script's repository)")
    p.add_argument("--work", help="private folder: <work>/src is the copy, <work>/src/build/mutate its build")
    p.add_argument("--rev", help="copy the committed tree at this git revision (default: copy the files on disk)")
    p.add_argument("--overlay", nargs="*", default=[],
                   help="with --rev: files (relative paths) taken from the disk on top of the revision")
    p.add_argument("--catalogue", default=os.path.join(HERE, "catalogue.tsv"))
    p.add_argument("--families", default=os.path.join(HERE, "families.tsv"))
    p.add_argument("--only", help="comma-separated mutant ids")
    p.add_argument("--family", help="comma-separated families")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--build-type", default="Release",
                   help="CMake build type of the copy's build (default Release, the shared flags)")
    p.add_argument("--results", help="append one TSV row per mutant here")
    p.add_argument("--expect-killed", action="store_true",
                   help="exit 1 unless every selected mutant is killed (the CI smoke)")
    p.add_argument("--list", action="store_true", help="print the selected mutants and stop")
    p.add_argument("--summary", metavar="RESULTS", help="print the per-family table of a results file")
    args = p.parse_args()

    if args.summary:
        summary(args.summary)
        return 0

    catalogue = load_catalogue(args.catalogue)
    families = load_families(args.families)
    selected = catalogue
    if args.only:
        wanted = args.only.split(",")
        unknown = set(wanted) - {r["id"] for r in catalogue}
        if unknown:
            raise SystemExit(f"unknown mutant ids: {sorted(unknown)}")
        selected = [r for r in catalogue if r["id"] in wanted]
    if args.family:
        wanted = set(args.family.split(","))
        selected = [r for r in selected if r["family"] in wanted]
    for r in selected:
        if r["family"] not in families:
            raise SystemExit(f"mutant {r['id']}: family {r['family']} not in {args.families}")
    if args.list:
        for r in selected:
            print(r["id"], r["family"], r["file"], r["class"], sep="\t")
        return 0
    if not args.work:
        raise SystemExit("--work is required")

    src = os.path.abspath(args.src)
    work = os.path.abspath(args.work)
    dest = os.path.join(work, "src")
    # Two levels below the copy, as build/<name> is below the checkout: the same relative paths,
    # so ccache (base_dir) serves unchanged objects from the shared trees' cache.
    build = os.path.join(dest, "build", "mutate")
    os.makedirs(dest, exist_ok=True)

    if args.rev:
        files = snapshot_git(src, args.rev)
        for rel in args.overlay:
            with open(os.path.join(src, rel), "rb") as f:
                files[os.path.normpath(rel)] = (f.read(), os.stat(os.path.join(src, rel)).st_mode & 0o777)
    else:
        files = snapshot_copy(src, [work])
    written, removed = sync_tree(files, dest)
    log(f"copy {dest}: {len(files)} files, {written} written, {removed} removed")
    configure(dest, build, src, args.build_type)
    # The checkout itself is never written: its mutated files are hashed now and checked at the end.
    # (With --rev the copy comes from git, and other people may edit the work tree meanwhile.)
    source_digests = {} if args.rev else {r["file"]: file_digest(os.path.join(src, r["file"])) for r in selected}

    # Baseline: every selected family's programs must build and pass unmutated, else a kill
    # would mean nothing. Their times set the limits (10x, at least 60 s).
    used = sorted({r["family"] for r in selected})
    targets = sorted({t for f in used for t in families[f]["targets"]} |
                     {t.partition(":")[0] for f in used for t in families[f]["tests"]})
    log(f"baseline build: {' '.join(targets)}")
    code, seconds, tail = build_targets(build, targets, args.jobs, 7200)
    if code != 0:
        print(tail)
        raise SystemExit("baseline build failed")
    log(f"baseline built in {seconds:.0f}s")
    limits = {}
    for f in used:
        for test in families[f]["tests"]:
            if test in limits:
                continue
            code, seconds, tail = run_limited(test_command(build, test), 1800, env=test_env())
            if code != 0:
                print(tail)
                raise SystemExit(f"baseline test {test} fails unmutated")
            limits[test] = max(60.0, 10.0 * seconds)
            log(f"baseline {test}: {seconds:.1f}s pass (limit {limits[test]:.0f}s)")

    results_file = None
    if args.results:
        new = not os.path.exists(args.results)
        results_file = open(args.results, "a", encoding="utf-8", newline="")
        writer = csv.writer(results_file, delimiter="\t", lineterminator="\n")
        if new:
            writer.writerow(RESULT_FIELDS)

    flags = cpu_flags()
    outcome = []
    for r in selected:
        path = os.path.join(dest, r["file"])
        family = families[r["family"]]
        start = time.monotonic()
        with open(path, "rb") as f:
            original = f.read()
        text = original.decode("utf-8")
        count = text.count(r["search_text"])
        missing = [f for f in r.get("requires", "").split() if flags is not None and f not in flags]
        if missing:
            # The mutated code runs only on a CPU with these features: nothing here can kill it.
            status, detail = "not-runnable", "this CPU lacks " + " ".join(missing)
        elif count != 1:
            status, detail = "invalid", f"search text found {count} times"
        else:
            mutated = text.replace(r["search_text"], r["replace_text"])
            try:
                with open(path, "w", encoding="utf-8", newline="") as f:
                    f.write(mutated)
                code, tail = 0, ""
                if family["targets"]:
                    code, _, tail = build_targets(build, family["targets"], args.jobs, 1800)
                if code != 0:
                    errors = [l for l in tail.splitlines() if "error" in l]
                    status, detail = "build-error", (errors[0] if errors else "build failed")[:200]
                else:
                    status, _, detail = run_tests(build, family["tests"], limits, args.jobs)
            finally:
                # Restore whatever happened; the new time stamp makes the next build recompile
                # the original (a ccache hit).
                with open(path, "wb") as f:
                    f.write(original)
            if file_digest(path) != hashlib.sha256(files[os.path.normpath(r["file"])][0]).hexdigest():
                raise SystemExit(f"{r['id']}: {r['file']} not restored")
        seconds = time.monotonic() - start
        eq = " (marked equivalent)" if r.get("equivalent") and status == "survived" else ""
        log(f"{r['id']:<16} {r['family']:<12} {status}{eq} {seconds:.0f}s {detail}")
        outcome.append((r, status))
        if results_file:
            writer.writerow([r["id"], r["family"], r["class"], status, f"{seconds:.0f}", detail])
            results_file.flush()

    # Leave the copy's build matching the original sources again.
    build_targets(build, targets, args.jobs, 7200)
    for rel, (data, _) in files.items():
        p2 = os.path.join(dest, rel)
        if os.path.exists(p2) and os.path.getsize(p2) != len(data):
            raise SystemExit(f"{rel} differs from the source after the run")
    changed = [rel for rel in {os.path.normpath(r["file"]) for r in selected}
               if file_digest(os.path.join(dest, rel)) != hashlib.sha256(files[rel][0]).hexdigest()]
    if changed:
        raise SystemExit(f"not restored: {changed}")
    touched = [rel for rel, digest in source_digests.items() if file_digest(os.path.join(src, rel)) != digest]
    if touched:
        raise SystemExit(f"the checkout changed during the run: {touched}")
    log("every mutated file restored; the checkout was not written")

    counts = {}
    for _, status in outcome:
        counts[status] = counts.get(status, 0) + 1
    log("totals: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    if args.expect_killed and any(status != "killed" for _, status in outcome):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
