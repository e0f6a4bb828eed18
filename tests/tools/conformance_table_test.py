#!/usr/bin/env python3
"""Attribution of node cases to operators in docs/conformance.md (spec/conformance.md section 6).

The expected operators come from the rule as the source states it and from its published table
(SoftmaxCrossEntropyLoss 68 cases = 34 plain + 34 `test_sce_*_expanded`; LayerNormalization 57),
not from running the tool.
"""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import conformance_table as ct  # noqa: E402


def row(case, operators, group="node"):
    return {"group": group, "case": case, "operators": operators}


class AttributionTest(unittest.TestCase):
    def setUp(self):
        cases = [
            row("test_sce_mean", ["SoftmaxCrossEntropyLoss"]),
            row("test_sce_mean_expanded", ["Equal", "LogSoftmax", "NegativeLogLikelihoodLoss", "Where"]),
            row("test_layer_normalization_2d_axis0", ["LayerNormalization"]),
            row("test_layer_normalization_2d_axis0_expanded_ver18", ["Add", "Cast", "Div", "ReduceMean", "Sqrt"]),
            row("test_flexattention_score_mod", ["Add", "ai.onnx.preview.FlexAttention"]),
            row("test_flexattention_score_mod_expanded_ver26", ["Add", "Cast", "Concat", "Softmax"]),
            row("test_reduce_log_sum_exp_do_not_keepdims", ["ReduceLogSumExp"]),
            row("test_reduce_log_sum_asc_axes", ["ReduceLogSum"]),
            row("test_range_float_type_positive_delta_expanded", ["Cast", "Loop", "Sub"]),
            row("test_range_float_type_positive_delta", ["Range"]),
            row("test_something_unknown", ["Mul", "Add"]),
            row("test_sce_mean_expanded", ["Equal", "Where"], group="simple"),
        ]
        self.rows_by_case = {(r["group"], r["case"]): r for r in cases}
        self.known = sorted({op for r in cases for op in r["operators"]})

    def attributed(self, case, group="node"):
        return ct.attributed_operator(self.rows_by_case[(group, case)], self.rows_by_case, self.known)

    def test_single_operator_counts_under_it(self):
        self.assertEqual(self.attributed("test_reduce_log_sum_asc_axes"), "ReduceLogSum")

    def test_expanded_case_counts_under_its_twin(self):
        # The body never names SoftmaxCrossEntropyLoss and `sce` starts no operator name.
        self.assertEqual(self.attributed("test_sce_mean_expanded"), "SoftmaxCrossEntropyLoss")
        self.assertEqual(self.attributed("test_range_float_type_positive_delta_expanded"), "Range")

    def test_versioned_expanded_suffix(self):
        self.assertEqual(self.attributed("test_layer_normalization_2d_axis0_expanded_ver18"), "LayerNormalization")

    def test_domain_operator_matched_by_type(self):
        # The twin has two operators, so the longest name the case starts with decides; the
        # operator is written with its domain, the case name without.
        self.assertEqual(self.attributed("test_flexattention_score_mod"), "ai.onnx.preview.FlexAttention")
        self.assertEqual(self.attributed("test_flexattention_score_mod_expanded_ver26"),
                         "ai.onnx.preview.FlexAttention")

    def test_twin_only_in_the_same_group(self):
        self.assertEqual(self.attributed("test_sce_mean_expanded", group="simple"), "Equal")

    def test_no_match_falls_back_to_first_operator(self):
        self.assertEqual(self.attributed("test_something_unknown"), "Mul")


if __name__ == "__main__":
    unittest.main()
