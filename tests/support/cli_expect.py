#!/usr/bin/env python3
"""Runs one command and checks its exit status and output (tests/cmake/cli.cmake).

  cli_expect.py [--truncated SRC N OUT] [--converted ONEMODEL SRC OUT] --status S
                [--stderr-line K REGEX]... [--stdout REGEX]... [--stdout-same-as CMD...] -- COMMAND...

--truncated writes the first N bytes of SRC to OUT before the run; --converted runs
`ONEMODEL convert SRC OUT` first (which must succeed). --stderr-line K REGEX: line K (from 0) of
standard error must match REGEX from its start. --stdout REGEX: standard output must contain a
match. Prints what it saw when a check fails and exits 1.
"""
import re
import subprocess
import sys


def main():
    argv = sys.argv[1:]
    if "--" not in argv:
        print("cli_expect.py: missing -- before the command", file=sys.stderr)
        return 2
    split = argv.index("--")
    opts, command = argv[:split], argv[split + 1:]
    status = None
    stderr_checks, stdout_checks = [], []
    k = 0
    while k < len(opts):
        opt = opts[k]
        if opt == "--truncated":
            src, n, out = opts[k + 1], int(opts[k + 2]), opts[k + 3]
            with open(src, "rb") as f:
                data = f.read()[:n]
            with open(out, "wb") as f:
                f.write(data)
            k += 4
        elif opt == "--converted":
            tool, src, out = opts[k + 1:k + 4]
            subprocess.run([tool, "convert", src, out], check=True, stdout=subprocess.DEVNULL)
            k += 4
        elif opt == "--status":
            status = int(opts[k + 1])
            k += 2
        elif opt == "--stderr-line":
            stderr_checks.append((int(opts[k + 1]), opts[k + 2]))
            k += 3
        elif opt == "--stdout":
            stdout_checks.append(opts[k + 1])
            k += 2
        else:
            print("cli_expect.py: unknown option %s" % opt, file=sys.stderr)
            return 2
    if status is None:
        print("cli_expect.py: --status is required", file=sys.stderr)
        return 2
    run = subprocess.run(command, capture_output=True, text=True, errors="replace")
    failures = []
    if run.returncode != status:
        failures.append("exit status %d, expected %d" % (run.returncode, status))
    err_lines = run.stderr.splitlines()
    for line_no, regex in stderr_checks:
        if line_no >= len(err_lines) or not re.match(regex, err_lines[line_no]):
            failures.append("stderr line %d does not match %r" % (line_no, regex))
    for regex in stdout_checks:
        if not re.search(regex, run.stdout, re.M):
            failures.append("stdout has no match for %r" % regex)
    if failures:
        print("command: %s" % " ".join(command))
        print("stdout:\n%s" % run.stdout)
        print("stderr:\n%s" % run.stderr)
        for failure in failures:
            print("FAILED: " + failure)
        return 1
    print("ok: %s" % " ".join(command))
    return 0


if __name__ == "__main__":
    sys.exit(main())
