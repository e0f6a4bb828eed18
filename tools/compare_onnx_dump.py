#!/usr/bin/env python3
"""Compares the structural dump (spec/dump.md) of the C++ importer with the one the `onnx` package
gives (tools/onnx_dump.py), for every model of the ONNX backend test data: each `model.onnx` under
node/, simple/, pytorch-converted/ and pytorch-operator/, and light/*.onnx.

  compare_onnx_dump.py --onemodel build/cli/onemodel [--backend-dir DIR] [--keep DIR]
                       [--convert] [--models-dir DIR]

The C++ side runs once (`onemodel dump --each LIST --output-dir DIR`) while this process dumps
every model with the onnx package. Prints each mismatching model with the start of its diff, then
`N models, M identical`. Exit status 0 only if every model matched (and there was at least one).
With --convert, each model is first converted to the OneModel format by `onemodel convert` and the
converted file's dump is compared instead (checks the format writer and reader the same way).
"""
import argparse
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import onnx_dump  # noqa: E402  (the module next to this file)

GROUPS = ("node", "simple", "pytorch-converted", "pytorch-operator")


def find_models(backend_dir):
    models = []
    for group in GROUPS:
        for root, _dirs, files in os.walk(os.path.join(backend_dir, group)):
            if "model.onnx" in files:
                models.append(os.path.join(root, "model.onnx"))
    light = os.path.join(backend_dir, "light")
    if os.path.isdir(light):
        models += [os.path.join(light, f) for f in os.listdir(light) if f.endswith(".onnx")]
    return sorted(models)


def find_all_onnx(folder):
    found = []
    for root, _dirs, files in os.walk(folder):
        found += [os.path.join(root, f) for f in files if f.endswith(".onnx")]
    return sorted(found)


# spec/dump.md section 10: the OneModel format has no doc string for inputs, outputs and value_info
# (format.md section 2.2, TypedName), so a converted model's dump cannot show them.
_VALUE_DOC = re.compile(r"^( *(?:input|output|value_info) [0-9]+ .*) doc_string=[0-9]+:[0-9a-f]{64}$", re.M)


def without_value_docs(text):
    return _VALUE_DOC.sub(r"\1", text)


def python_dump(path):
    try:
        return onnx_dump.dump_file(path)
    except Exception as e:  # noqa: BLE001 - shown as the model's dump
        return "error %s\n" % (str(e).splitlines() or [type(e).__name__])[0]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--onemodel", required=True, help="the onemodel executable")
    parser.add_argument("--backend-dir", default=os.path.join(here, "..", "..", "shared", "onnx-backend-test"))
    parser.add_argument("--models-dir", help="compare every *.onnx under this folder instead")
    parser.add_argument("--keep", help="keep the dumps in this folder (cpp/, py/) instead of a temporary one")
    parser.add_argument("--convert", action="store_true", help="dump the OneModel-format conversion of each model")
    parser.add_argument("--diff-lines", type=int, default=12, help="diff lines shown per mismatching model")
    args = parser.parse_args()

    root = args.models_dir or args.backend_dir
    models = find_all_onnx(root) if args.models_dir else find_models(root)
    if not models:
        print("no models found under %s" % root, file=sys.stderr)
        return 2

    work = args.keep or tempfile.mkdtemp(prefix="compare_onnx_dump_")
    cpp_dir = os.path.join(work, "cpp")
    os.makedirs(cpp_dir, exist_ok=True)
    cpp_inputs = models
    if args.convert:
        conv_dir = os.path.join(work, "converted")
        conv_list = os.path.join(work, "convert.txt")
        with open(conv_list, "w", encoding="utf-8") as f:
            f.write("".join(m + "\n" for m in models))
        # Models that fail to convert leave no file; their dump then shows the reading error.
        subprocess.run([args.onemodel, "convert", "--each", conv_list, "--output-dir", conv_dir],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        cpp_inputs = [os.path.join(conv_dir, "%d.onemodel" % k) for k in range(len(models))]
    list_path = os.path.join(work, "models.txt")
    with open(list_path, "w", encoding="utf-8") as f:
        f.write("".join(m + "\n" for m in cpp_inputs))
    cpp = subprocess.Popen([args.onemodel, "dump", "--each", list_path, "--output-dir", cpp_dir],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    py_texts = [python_dump(m) for m in models]
    if args.convert:
        py_texts = [without_value_docs(t) for t in py_texts]
    _stdout, cpp_stderr = cpp.communicate()
    if cpp.returncode not in (0, 3):
        print("onemodel dump failed with status %d:\n%s" % (cpp.returncode, cpp_stderr), file=sys.stderr)
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        return 2
    if args.keep:
        py_dir = os.path.join(work, "py")
        os.makedirs(py_dir, exist_ok=True)
        for k, text in enumerate(py_texts):
            with open(os.path.join(py_dir, "%d.txt" % k), "w", encoding="utf-8", newline="\n") as f:
                f.write(text)

    identical = 0
    for k, model in enumerate(models):
        try:
            with open(os.path.join(cpp_dir, "%d.txt" % k), encoding="utf-8", errors="surrogateescape") as f:
                cpp_text = f.read()
        except OSError as e:
            cpp_text = "error no C++ dump: %s\n" % e
        if cpp_text == py_texts[k]:
            identical += 1
            continue
        rel = os.path.relpath(model, root)
        print("MISMATCH %s (dump %d)" % (rel, k))
        diff = list(difflib.unified_diff(py_texts[k].splitlines(), cpp_text.splitlines(),
                                         "onnx", "onemodel", n=0, lineterm=""))
        for line in diff[2:2 + args.diff_lines]:
            print("    " + line)
        if len(diff) > 2 + args.diff_lines:
            print("    ... %d more diff lines" % (len(diff) - 2 - args.diff_lines))
    print("%d models, %d identical" % (len(models), identical))
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if identical == len(models) else 1


if __name__ == "__main__":
    sys.exit(main())
