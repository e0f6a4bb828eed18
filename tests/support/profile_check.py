#!/usr/bin/env python3
"""Checks `onemodel profile` on one model (tests/cmake/cli_profile.cmake; issue 15).

  profile_check.py ONEMODEL MODEL NAME=FILE.npy... WORKDIR

For the reference engine and the optimized one at one and two threads, fast mode, it runs
`profile --warmup 1 --runs R --trace WORKDIR/trace.json` and checks:
- every node appears once in the node table (indices 0..N-1), with calls == R;
- the node shares sum to 100 within rounding, and each share is its total over the sum of totals;
- each operator-type row is the sum of its node rows (nodes, calls, total, share);
- the trace is JSON with exactly R x N "X" events, one per (run, node), each with name, cat, ts,
  dur, pid, tid and args (op_type, kind), whose durations sum to the node totals;
- the reference engine's nodes are the model's nodes (`onemodel dump`: operator types, in order),
  all `reference`; in the optimized engine a row whose type is no operator of the model is
  `fused`, and a fused row stands for at least one model node, so the node count plus what the
  fused rows absorbed covers the model;
- the output lines equal `onemodel run`'s with the same engine (profiling changes no hash).
Prints what differs and exits 1.
"""
import json
import re
import subprocess
import sys

RUNS = 5
failures = []


def fail(message):
    failures.append(message)


def run(args):
    done = subprocess.run(args, capture_output=True, text=True, errors="replace", timeout=120)
    if done.returncode != 0:
        print("command failed (%d): %s\n%s%s" % (done.returncode, " ".join(args), done.stdout, done.stderr))
        sys.exit(1)
    return done.stdout


def model_op_types(tool, model):
    return re.findall(r'^  node \d+ "(?:[^"\\]|\\.)*" "([^"]+)"', run([tool, "dump", model]), re.M)


def section(lines, title):
    start = next(k for k, line in enumerate(lines) if line.startswith(title))
    rows = []
    for line in lines[start + 2:]:
        if not line.strip():
            break
        rows.append(line)
    return rows


def check_profile(tool, model, inputs, workdir, engine, threads, model_types, run_lines):
    where = "%s threads=%d" % (engine, threads)
    trace_path = "%s/trace_%s_%d.json" % (workdir, engine, threads)
    args = [tool, "profile", model, "--engine", engine, "--mode", "fast", "--threads", str(threads),
            "--warmup", "1", "--runs", str(RUNS), "--trace", trace_path]
    for item in inputs:
        args += ["--input", item]
    out = run(args)
    lines = out.splitlines()

    nodes = []
    for row in section(lines, "nodes (in run order"):
        f = row.split(None, 9)
        nodes.append(dict(index=int(f[0]), share=float(f[1]), calls=int(f[2]), total=float(f[3]),
                          mean=float(f[4]), median=float(f[5]), kind=f[6], path=f[7], type=f[8], name=f[9]))
    n = len(nodes)
    if [node["index"] for node in nodes] != list(range(n)) or n == 0:
        fail("%s: node indices are %s, not 0..N-1 once each" % (where, [x["index"] for x in nodes]))
    for node in nodes:
        if node["calls"] != RUNS:
            fail("%s: node %d has %d calls, not %d" % (where, node["index"], node["calls"], RUNS))
        if abs(node["mean"] * node["calls"] - node["total"]) > 0.005 * node["calls"] + 0.006:
            fail("%s: node %d mean x calls %.3f is not its total %.2f" % (where, node["index"],
                                                                        node["mean"] * node["calls"], node["total"]))
    all_total = sum(node["total"] for node in nodes)
    shares = sum(node["share"] for node in nodes)
    if abs(shares - 100.0) > 0.005 * n + 1e-9:
        fail("%s: node shares sum to %.3f, not 100" % (where, shares))
    for node in nodes:
        expected = 100.0 * node["total"] / all_total if all_total > 0 else 0.0
        # totals are printed to 0.01 us: allow that rounding in the ratio.
        slack = 100.0 * (0.005 * n + 0.005) / all_total + 0.006 if all_total > 0 else 0.006
        if abs(node["share"] - expected) > slack:
            fail("%s: node %d share %.2f, its total gives %.2f" % (where, node["index"], node["share"], expected))

    types = {}
    for row in section(lines, "operator types"):
        f = row.split(None, 7)
        key = (f[7], f[6])
        if key in types:
            fail("%s: operator type %s appears twice" % (where, key))
        types[key] = dict(share=float(f[0]), nodes=int(f[1]), calls=int(f[2]), total=float(f[3]))
    grouped = {}
    for node in nodes:
        g = grouped.setdefault((node["type"], node["kind"]), dict(share=0.0, nodes=0, calls=0, total=0.0))
        g["share"] += node["share"]
        g["nodes"] += 1
        g["calls"] += node["calls"]
        g["total"] += node["total"]
    if set(grouped) != set(types):
        fail("%s: type rows %s, node rows give %s" % (where, sorted(types), sorted(grouped)))
    for key, g in grouped.items():
        t = types.get(key)
        if t is None:
            continue
        if t["nodes"] != g["nodes"] or t["calls"] != g["calls"]:
            fail("%s: type %s has %d nodes, %d calls; its node rows %d, %d" % (where, key, t["nodes"], t["calls"],
                                                                              g["nodes"], g["calls"]))
        if abs(t["total"] - g["total"]) > 0.005 * (g["nodes"] + 1) + 1e-9:
            fail("%s: type %s total %.2f, its node rows sum to %.2f" % (where, key, t["total"], g["total"]))
        if abs(t["share"] - g["share"]) > 0.005 * (g["nodes"] + 1) + 1e-9:
            fail("%s: type %s share %.2f, its node rows sum to %.2f" % (where, key, t["share"], g["share"]))

    # What runs each node, against the model.
    if engine == "reference":
        if [node["type"] for node in nodes] != model_types:
            fail("%s: node types %s, the model's nodes are %s" % (where, [x["type"] for x in nodes], model_types))
        if any(node["kind"] != "reference" or node["path"] != "reference" for node in nodes):
            fail("%s: a node of the reference engine is not labelled reference" % where)
    else:
        fused = [node for node in nodes if node["kind"].startswith("fused")]
        for node in nodes:
            if node["type"] not in model_types and not node["kind"].startswith("fused"):
                fail("%s: node %d runs %s, no operator of the model, yet is labelled %s" % (
                    where, node["index"], node["type"], node["kind"]))
        if n > len(model_types) or (n < len(model_types) and not fused):
            fail("%s: %d nodes ran for the model's %d, with %d fused" % (where, n, len(model_types), len(fused)))

    # The trace.
    with open(trace_path) as f:
        trace = json.load(f)
    events = [e for e in trace["traceEvents"] if e.get("ph") == "X"]
    if len(events) != RUNS * n:
        fail("%s: %d X events in the trace, not %d x %d" % (where, len(events), RUNS, n))
    seen = set()
    per_node = [0.0] * n
    for e in events:
        missing = [k for k in ("name", "cat", "ts", "dur", "pid", "tid", "args") if k not in e]
        if missing or "op_type" not in e["args"] or "kind" not in e["args"]:
            fail("%s: trace event without %s: %s" % (where, missing or "args.op_type/kind", e))
            continue
        key = (e["args"]["run"], e["args"]["node"])
        if key in seen:
            fail("%s: run %d node %d twice in the trace" % (where, key[0], key[1]))
        seen.add(key)
        if 0 <= key[1] < n:
            per_node[key[1]] += e["dur"]
            if e["args"]["op_type"] != nodes[key[1]]["type"] or not nodes[key[1]]["kind"].startswith(e["cat"]):
                fail("%s: trace event %s does not match node row %s" % (where, e, nodes[key[1]]))
    for k in range(n):
        if abs(per_node[k] - nodes[k]["total"]) > 0.005 + 0.001 * RUNS:
            fail("%s: trace durations of node %d sum to %.3f, its row says %.2f" % (where, k, per_node[k],
                                                                                 nodes[k]["total"]))

    outputs = lines[lines.index("outputs (last run)") + 1:]
    if outputs != run_lines:
        fail("%s: output lines %s, run printed %s" % (where, outputs, run_lines))
    return nodes


def main():
    tool, model, workdir = sys.argv[1], sys.argv[2], sys.argv[-1]
    inputs = sys.argv[3:-1]
    subprocess.run(["mkdir", "-p", workdir], check=True)
    model_types = model_op_types(tool, model)
    for engine in ("reference", "optimized"):
        run_args = [tool, "run", model, "--mode", "fast", "--engine", engine]
        for item in inputs:
            run_args += ["--input", item]
        run_lines = run(run_args).splitlines()
        for threads in (1, 2):
            check_profile(tool, model, inputs, workdir, engine, threads, model_types, run_lines)
    if failures:
        print("\n".join(failures))
        return 1
    print("profile_check: %s ok" % model)
    return 0


if __name__ == "__main__":
    sys.exit(main())
