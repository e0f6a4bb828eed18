#!/usr/bin/env python3
"""Checks lines of tests/golden/golden-exact.txt without the library: rebuilds the inputs of
matmul_square_sweep from the golden tool's generator (tools/golden/prng.cpp: SplitMix64 seeded with
FNV-1a of the case name, values k/1024 for k in -2048..2048), computes the products by the
pseudo-code of spec-source exact-mode.md ("Matrix product": one float32 accumulator from +0,
increasing k, each product and sum rounded on its own) and hashes them as golden-hashes.md says
(element type, rank, extents as little-endian int64, then the elements). So the expected file is
confirmed by a second implementation, not only by the reference engine that wrote it.

usage: independent_matmul_check.py GOLDEN_FILE"""
import hashlib
import struct
import sys

import numpy as np

MASK = (1 << 64) - 1
SIZES = [0, 1, 2, 5, 8, 17, 33]


def fnv1a(name):
    h = 0xCBF29CE484222325
    for c in name.encode():
        h = ((h ^ c) * 0x100000001B3) & MASK
    return h


class SplitMix64:
    def __init__(self, seed):
        self.state = seed

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def symmetric(self):
        return np.float32(((self.next() >> 32) % 4097 - 2048) / 1024.0)


def exact_matmul(a, b):
    m, k = a.shape
    n = b.shape[1]
    c = np.zeros((m, n), dtype=np.float32)
    for i in range(m):
        for j in range(n):
            acc = np.float32(0.0)
            for p in range(k):
                acc = np.float32(acc + np.float32(a[i, p] * b[p, j]))
            c[i, j] = acc
    return c


def tensor_hash(t):
    header = struct.pack("<qq", 1, t.ndim) + b"".join(struct.pack("<q", d) for d in t.shape)
    return hashlib.sha256(header + t.astype("<f4").tobytes()).hexdigest()


def main():
    expected = {}
    with open(sys.argv[1]) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                name, digest = line.split()
                expected[name] = digest
    prng = SplitMix64(fnv1a("matmul_square_sweep"))
    failures = 0
    for s in range(max(SIZES) + 1):
        a = np.array([prng.symmetric() for _ in range(s * s)], dtype=np.float32).reshape(s, s)
        b = np.array([prng.symmetric() for _ in range(s * s)], dtype=np.float32).reshape(s, s)
        if s not in SIZES:
            continue
        name = f"matmul_square_sweep/mm_{s}x{s}x{s}"
        got = tensor_hash(exact_matmul(a, b))
        if expected.get(name) != got:
            print(f"DIFFERS {name}: independent {got}, file {expected.get(name)}")
            failures += 1
    print(f"independent check: {len(SIZES)} products, {failures} differ")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
