"""The cases of a conformance sweep and how they are cut into shards (docs/sweeps.md).

The order is the one `onemodel conformance DATA` reports in (tools/cli/cmd_conformance.cpp,
find_cases): the groups node, simple, pytorch-converted, pytorch-operator in that order, then
the case folders of each group (a folder holding model.onnx) sorted by name. A shard is a
contiguous slice of that order, so concatenating the shards' rows in shard order gives the
single-process run's rows, and which case goes to which shard depends only on the case list and
the shard count, never on the number of workers or on timing.
"""
import os

# spec/conformance.md, Method: Data; the report order of tools/cli/cmd_conformance.cpp (kGroups).
GROUPS = ("node", "simple", "pytorch-converted", "pytorch-operator")


def list_cases(data_root):
    """Returns [(group, case)] in the runner's report order."""
    cases = []
    for group in GROUPS:
        folder = os.path.join(data_root, group)
        if not os.path.isdir(folder):
            continue
        # The runner sorts std::filesystem paths; inside one folder that is the byte order of the
        # names, which is what sorting their UTF-8 encodings gives.
        names = sorted(os.listdir(folder), key=lambda name: name.encode("utf-8"))
        for name in names:
            if os.path.isfile(os.path.join(folder, name, "model.onnx")):
                cases.append((group, name))
    if not cases:
        raise SystemExit(f"sweep: no backend-test cases under {data_root} (groups {', '.join(GROUPS)})")
    return cases


def take_every(cases, every, offset=0):
    """The subset of a smaller sweep: every `every`-th case starting at `offset` (a spread over all groups)."""
    if every < 1 or not 0 <= offset < every:
        raise SystemExit(f"sweep: --every must be at least 1 and --offset in 0..every-1 (got {every}, {offset})")
    return [case for index, case in enumerate(cases) if index % every == offset]


def split_into_shards(cases, shard_count):
    """Contiguous slices of nearly equal size, in order; never an empty shard."""
    if shard_count < 1:
        raise SystemExit(f"sweep: --shards must be at least 1 (got {shard_count})")
    count = min(shard_count, len(cases))
    return [cases[len(cases) * k // count:len(cases) * (k + 1) // count] for k in range(count)]


def make_case_tree(root, data_root, cases):
    """Lays out `cases` under `root` as the runner expects a data root (GROUP/CASE), each case a
    symbolic link to its folder in `data_root`. The runner reports a case by its folder's name and
    its group folder's name, so a case reads the same as it does in the full data root."""
    for group, case in cases:
        group_folder = os.path.join(root, group)
        os.makedirs(group_folder, exist_ok=True)
        os.symlink(os.path.abspath(os.path.join(data_root, group, case)), os.path.join(group_folder, case))
