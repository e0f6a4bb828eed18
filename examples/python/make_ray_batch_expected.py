#!/usr/bin/env python3
"""Writes the expected outputs of ray_batch_inference.py: ONNX Runtime's outputs of the sample
classifier for rows 0..ROWS-1 of features_of (the oracle environment has onnxruntime).

  ~/onemodel/venvs/oracles/bin/python examples/python/make_ray_batch_expected.py \
      [--rows 1000] [--out examples/python/classifier_expected.npy]
"""
import argparse
import os
import sys

import numpy as np
import onnxruntime

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from ray_batch_inference import DEFAULT_MODEL, features_of  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--model", default=DEFAULT_MODEL)
    parser.add_argument("--out", default=os.path.join(HERE, "classifier_expected.npy"))
    args = parser.parse_args()
    session = onnxruntime.InferenceSession(args.model, providers=["CPUExecutionProvider"])
    features = features_of(np.arange(args.rows))
    (probs,) = session.run(None, {session.get_inputs()[0].name: features})
    np.save(args.out, probs.astype(np.float32))
    print(f"wrote {args.out}: {probs.shape} from onnxruntime {onnxruntime.__version__}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
