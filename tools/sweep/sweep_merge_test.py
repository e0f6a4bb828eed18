#!/usr/bin/env python3
"""Unit tests of the sweep's case order, shards and merge (standard library only; ctest
sweep_merge_unit). The end-to-end check, sharded on Ray against one process, is
tools/sweep/ci_check.sh."""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sweep_cases import list_cases, make_case_tree, split_into_shards, take_every  # noqa: E402
from sweep_merge import MergeError, merge_run, write_outputs  # noqa: E402
from sweep_runs import run_shard  # noqa: E402

# A stand-in for `onemodel conformance ROOT ... --tsv FILE`: every case fails with a reason that
# names its model file under ROOT, as the runner's Malformed errors do.
FAKE_RUNNER = r"""#!/usr/bin/env python3
import os, sys
root, tsv = sys.argv[2], sys.argv[sys.argv.index("--tsv") + 1]
rows, fails = [], []
for group in ("node", "simple"):
    for case in sorted(os.listdir(os.path.join(root, group))) if os.path.isdir(os.path.join(root, group)) else []:
        reason = "Malformed: bad (in " + os.path.join(root, group, case, "model.onnx") + ")"
        rows.append(group + "\t" + case + "\t\t0\tfail\t" + reason + "\n")
        fails.append("fail " + group + "/" + case + ": " + reason + "\n")
with open(tsv, "w") as f:
    f.write("group\tcase\toperators\topset\tstatus\treason\n" + "".join(rows))
sys.stdout.write("".join(fails) + "cases %d pass 0 fail %d unsupported-op 0 unsupported-type 0 not-exact 0 known-diff 0\n"
                 % (len(rows), len(rows)))
sys.exit(1 if rows else 0)
"""

HEADER = "group\tcase\toperators\topset\tstatus\treason\n"


def row(case, status="pass", reason=""):
    return f"node\t{case}\tRelu\t13\t{status}\t{reason}\n"


def result(rows, stdout, status=0, available=True):
    return {"available": available, "status": status, "tsv_header": HEADER, "tsv_rows": rows, "stdout": stdout}


def cases_line(n, p, f=0, u=0):
    return f"cases {n} pass {p} fail {f} unsupported-op {u} unsupported-type 0 not-exact 0 known-diff 0\n"


class CaseOrderTest(unittest.TestCase):
    def test_groups_in_report_order_and_names_in_byte_order(self):
        with tempfile.TemporaryDirectory() as data:
            for group, case in [("simple", "test_z"), ("node", "test_b"), ("node", "test_B"), ("node", "test_a"),
                                ("pytorch-operator", "test_op"), ("light", "test_ignored")]:
                os.makedirs(os.path.join(data, group, case))
                open(os.path.join(data, group, case, "model.onnx"), "w").close()
            os.makedirs(os.path.join(data, "node", "no_model_here"))
            self.assertEqual(list_cases(data), [("node", "test_B"), ("node", "test_a"), ("node", "test_b"),
                                                ("simple", "test_z"), ("pytorch-operator", "test_op")])

    def test_case_tree_links_each_case_under_its_group(self):
        with tempfile.TemporaryDirectory() as data, tempfile.TemporaryDirectory() as tree:
            os.makedirs(os.path.join(data, "node", "test_a"))
            open(os.path.join(data, "node", "test_a", "model.onnx"), "w").close()
            make_case_tree(os.path.join(tree, "cases"), data, [("node", "test_a")])
            self.assertTrue(os.path.isfile(os.path.join(tree, "cases", "node", "test_a", "model.onnx")))


class RunShardTest(unittest.TestCase):
    def test_a_shard_names_files_as_a_run_over_the_data_root_does(self):
        with tempfile.TemporaryDirectory() as data, tempfile.TemporaryDirectory() as tools:
            for case in ("test_a", "test_b", "test_c"):
                os.makedirs(os.path.join(data, "node", case))
                open(os.path.join(data, "node", case, "model.onnx"), "w").close()
            runner = os.path.join(tools, "onemodel")
            with open(runner, "w", encoding="utf-8") as f:
                f.write(FAKE_RUNNER.replace("/usr/bin/env python3", sys.executable))
            os.chmod(runner, 0o755)
            run = ("reference-fast", ["--engine", "reference", "--mode", "fast"], None)
            whole = run_shard(runner, runner, data, run, None)
            shards = [run_shard(runner, runner, data, run, cases)
                      for cases in ([("node", "test_a")], [("node", "test_b"), ("node", "test_c")])]
            self.assertIn(os.path.join(data, "node", "test_b", "model.onnx"), whole["tsv_rows"][1])
            self.assertEqual(shards[0]["tsv_rows"] + shards[1]["tsv_rows"], whole["tsv_rows"])
            merged = merge_run("reference-fast", [([("node", "test_a")], shards[0]),
                                                  ([("node", "test_b"), ("node", "test_c")], shards[1])])
            self.assertEqual(merged["stdout"], whole["stdout"])
            self.assertEqual((merged["status"], whole["status"]), (1, 1))


class ShardTest(unittest.TestCase):
    def test_shards_are_contiguous_cover_every_case_and_are_never_empty(self):
        cases = [("node", f"c{k:02}") for k in range(10)]
        for count in (1, 3, 4, 10, 25):
            shards = split_into_shards(cases, count)
            self.assertEqual([case for shard in shards for case in shard], cases)
            self.assertTrue(all(shards))
            self.assertEqual(len(shards), min(count, len(cases)))
        self.assertEqual([len(s) for s in split_into_shards(cases, 4)], [2, 3, 2, 3])

    def test_every_nth_case(self):
        cases = list(range(10))
        self.assertEqual(take_every(cases, 4, 1), [1, 5, 9])
        with self.assertRaises(SystemExit):
            take_every(cases, 4, 4)


class MergeTest(unittest.TestCase):
    def setUp(self):
        self.shards = [
            ([("node", "a"), ("node", "b")],
             result([row("a"), row("b", "fail", "bad")], "fail node/b: bad\n" + cases_line(2, 1, f=1), status=1)),
            ([("node", "c")], result([row("c", "unsupported-op", "no kernel")], cases_line(1, 0, u=1))),
        ]

    def test_rows_fail_lines_and_counts_are_those_of_one_run(self):
        merged = merge_run("reference-fast", self.shards)
        self.assertEqual(merged["tsv_rows"], [row("a"), row("b", "fail", "bad"), row("c", "unsupported-op", "no kernel")])
        self.assertEqual(merged["stdout"], "fail node/b: bad\n" + cases_line(3, 1, f=1, u=1))
        self.assertEqual(merged["status"], 1)

    def test_a_shard_that_lost_a_row_is_refused(self):
        self.shards[0][1]["tsv_rows"].pop()
        with self.assertRaises(MergeError):
            merge_run("reference-fast", self.shards)

    def test_shards_out_of_order_are_refused(self):
        with self.assertRaises(MergeError):
            merge_run("reference-fast", [(self.shards[0][0], self.shards[1][1]), (self.shards[1][0], self.shards[0][1])])

    def test_a_count_that_does_not_match_the_shard_is_refused(self):
        self.shards[1] = (self.shards[1][0], result([row("c")], cases_line(2, 2)))
        with self.assertRaises(MergeError):
            merge_run("reference-fast", self.shards)

    def test_a_path_available_on_some_workers_only_is_refused(self):
        self.shards[1] = (self.shards[1][0], result([], "", status=None, available=False))
        with self.assertRaises(MergeError):
            merge_run("twin-avx512", self.shards)

    def test_outputs_name_every_run_and_a_path_not_run(self):
        with tempfile.TemporaryDirectory() as out:
            runs = [("reference-fast", [], None), ("twin-avx512", [], "avx512")]
            results = {"reference-fast": merge_run("reference-fast", self.shards),
                       "twin-avx512": {"available": False}}
            summary = write_outputs(out, runs, results)
            with open(summary, encoding="utf-8") as f:
                self.assertEqual(f.read(), "== reference-fast: exit 1\nfail node/b: bad\n" + cases_line(3, 1, f=1, u=1) +
                                 "== twin-avx512: not run (kernel path avx512 is not available on this CPU)\n")
            with open(os.path.join(out, "reference-fast.tsv"), encoding="utf-8") as f:
                self.assertEqual(f.read(), HEADER + row("a") + row("b", "fail", "bad") + row("c", "unsupported-op", "no kernel"))
            self.assertFalse(os.path.exists(os.path.join(out, "twin-avx512.tsv")))


if __name__ == "__main__":
    unittest.main()
