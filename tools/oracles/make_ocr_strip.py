#!/usr/bin/env python3
"""Renders a line of text as a 48-pixel-high RGB strip (binary PPM, P6) for the OCR example
(examples/ocr/ocr_read.cpp) and prints what ONNX Runtime 1.31.1 and a greedy CTC decode of the
PP-OCRv4 recogniser read from it, the oracle the example's test compares with.

    python3 tools/oracles/make_ocr_strip.py --text "OneModel 2026" --out examples/ocr/strip.ppm \
        [--model ~/onemodel/models/ppocrv4_rec.onnx]
"""
import argparse
import os

import numpy as np
from PIL import Image, ImageDraw, ImageFont

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def render(text, height=48):
    font = ImageFont.truetype(FONT, 32)
    left, top, right, bottom = font.getbbox(text)
    width = right - left + 16
    image = Image.new("RGB", (width, height), (255, 255, 255))
    ImageDraw.Draw(image).text((8 - left, (height - (bottom - top)) // 2 - top), text, font=font, fill=(0, 0, 0))
    return image


def write_ppm(image, path):
    w, h = image.size
    with open(path, "wb") as f:
        f.write(b"P6\n%d %d\n255\n" % (w, h))
        f.write(image.tobytes())


def ort_read(model, image):
    import onnx
    import onnxruntime as ort
    chars = dict((p.key, p.value) for p in onnx.load(model, load_external_data=False).metadata_props)["character"]
    table = [""] + chars.split("\n") + [" "]
    x = np.asarray(image, dtype=np.float32).transpose(2, 0, 1)[None] / 255.0
    x = (x - 0.5) / 0.5
    sess = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    probs = sess.run(None, {sess.get_inputs()[0].name: x})[0][0]
    best = probs.argmax(axis=1)
    out, prev = [], 0
    for c in best:
        if c != prev and c != 0:
            out.append(table[c])
        prev = c
    return "".join(out), len(table), probs.shape


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--text", default="OneModel 2026")
    ap.add_argument("--out", required=True)
    ap.add_argument("--model", default=os.path.expanduser("~/onemodel/models/ppocrv4_rec.onnx"))
    args = ap.parse_args()
    image = render(args.text)
    write_ppm(image, args.out)
    text, classes, shape = ort_read(args.model, image)
    print(f"make_ocr_strip.py: {image.size[0]}x{image.size[1]} -> {args.out}; ONNX Runtime output {shape}, "
          f"{classes} classes; greedy reads {text!r}")


if __name__ == "__main__":
    main()
