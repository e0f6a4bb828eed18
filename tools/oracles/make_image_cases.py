#!/usr/bin/env python3
"""Image files and Pillow's decoding of them for tests/unit/ops_image_decoder_test.cpp
(spec/ops/image.md): the oracle is Pillow (the ONNX reference implementation of ImageDecoder
decodes with it), independent of the library's decoders.

    ~/onemodel/venvs/oracles/bin/python tools/oracles/make_image_cases.py

Writes tests/data/images/<name>.<ext>, <name>.rgb (Pillow's RGB bytes, rows top to bottom) and
<name>.l (Pillow's convert("L") of the RGB image) and cases.txt ("name file height width" lines),
plus files Pillow writes that the library refuses (<name>.<ext> listed as "unsupported").
Deterministic: pixels from a fixed linear congruential sequence.
"""
import io
from pathlib import Path

import numpy as np
from PIL import Image

OUT = Path(__file__).resolve().parents[2] / "tests" / "data" / "images"


def pixels(h, w, c, seed):
    state = seed
    out = np.zeros((h, w, c), dtype=np.uint8)
    for i in range(h * w * c):
        state = (state * 1103515245 + 12345) % (1 << 31)
        out.flat[i] = (state >> 16) & 0xFF
    return out


def save(img, fmt, **kwargs):
    buf = io.BytesIO()
    img.save(buf, format=fmt, **kwargs)
    return buf.getvalue()


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    rgb = Image.fromarray(pixels(5, 7, 3, 1), "RGB")
    rgba = Image.fromarray(pixels(4, 3, 4, 2), "RGBA")
    grey = Image.fromarray(pixels(6, 5, 1, 3)[:, :, 0], "L")
    palette = rgb.quantize(colors=13)  # mode P, 13 entries
    bilevel = grey.convert("1")
    grey16 = Image.fromarray(np.ascontiguousarray(pixels(3, 4, 2, 4)).view("<u2")[:, :, 0].copy())  # mode I;16
    large = Image.fromarray(pixels(40, 33, 3, 5), "RGB")  # several deflate blocks and all filters
    cases = [
        ("png_rgb", "png", rgb, {}),
        ("png_rgb_large", "png", large, {"optimize": True}),
        ("png_rgba", "png", rgba, {}),
        ("png_grey", "png", grey, {}),
        ("png_palette", "png", palette, {}),
        ("png_bilevel", "png", bilevel, {}),
        ("png_grey16", "png", grey16, {}),
        ("png_stored", "png", rgb, {"compress_level": 0}),
        ("bmp_rgb", "bmp", rgb, {}),
        ("bmp_palette", "bmp", palette, {}),
        ("bmp_bilevel", "bmp", bilevel, {}),
        ("ppm_rgb", "ppm", rgb, {}),
        ("pgm_grey", "ppm", grey, {}),
        ("tiff_rgb", "tiff", rgb, {}),
        ("tiff_rgba", "tiff", rgba, {}),
        ("tiff_grey", "tiff", grey, {}),
    ]
    lines = []
    for name, fmt, img, kwargs in cases:
        data = save(img, fmt, **kwargs)
        ext = {"ppm": "pnm"}.get(fmt, fmt)
        (OUT / f"{name}.{ext}").write_bytes(data)
        back = Image.open(io.BytesIO(data))
        back.load()
        as_rgb = back.convert("RGB") if back.mode not in ("I;16", "I;16B", "I") else \
            Image.fromarray((np.array(back) >> 8).astype(np.uint8), "L").convert("RGB")
        arr = np.array(as_rgb)
        (OUT / f"{name}.rgb").write_bytes(arr.tobytes())
        (OUT / f"{name}.l").write_bytes(np.array(as_rgb.convert("L")).tobytes())
        lines.append(f"{name} {name}.{ext} {arr.shape[0]} {arr.shape[1]}")
    # Streams Pillow writes that the decoders refuse as Unsupported.
    refused = [
        ("jpeg", save(rgb, "jpeg")),
        ("png_interlaced", None),
        ("tiff_lzw", save(rgb, "tiff", compression="tiff_lzw")),
        ("webp", save(rgb, "webp")),
    ]
    for name, data in refused:
        if data is None:
            continue
        (OUT / f"{name}.unsupported").write_bytes(data)
        lines.append(f"{name} {name}.unsupported unsupported")
    (OUT / "cases.txt").write_text("\n".join(lines) + "\n")
    print(f"make_image_cases: {len(lines)} cases in {OUT}")


if __name__ == "__main__":
    main()
