"""The ONNX schemas of the operator table: for every row of spec/operators.tsv, each schema version
onnx.defs has inside the row's opset range, keyed by (operator, since_version). Shared by the
generators that turn the normative operator text into C++ tables (tools/gen_required_inputs.py,
tools/fuzz/gen_op_schemas.py). Run from the repository root."""
import onnx.defs as defs


def table_rows(path="spec/operators.tsv"):
    """(domain, operator, first opset, last opset) for every row of the table."""
    rows = []
    with open(path) as f:
        next(f)
        for line in f:
            domain, op, first, last = line.split("\t")[:4]
            rows.append((domain, op, int(first), int(last)))
    return rows


def table_schemas(strict):
    """{(op, since_version): schema} of the default domain's rows (the generated tables cover
    ai.onnx only: input signatures and the operator fuzzer's facts are looked up there; rows of other
    domains, such as ai.onnx.preview.training, are checked by their own kernels). With `strict`, a
    version without a schema stops the caller (its table would have a hole); otherwise such
    versions are skipped."""
    seen = {}
    for domain, op, first, last in table_rows():
        if domain != "ai.onnx":
            continue
        for v in range(first, last + 1):
            try:
                s = defs.get_schema(op, v, "")
            except Exception:
                if strict:
                    raise SystemExit("no ONNX schema for %s at opset %d" % (op, v))
                continue
            seen[(op, s.since_version)] = s
    return seen
