#!/usr/bin/env python3
"""Checks the random_draws lines of tests/golden/golden-exact.txt without the library: Philox4x32-10,
the counters, keys and streams, the uniform values, Bernoulli and Dropout in training mode are
recomputed from spec/ops/random.md (sections 1-4, 7, 9, 11) in Python integers and numpy, and hashed
as golden-hashes.md says (element type, rank, extents as little-endian int64, then the elements).
The inputs come from the golden tool's generator (tools/golden/prng.cpp: SplitMix64 seeded with
FNV-1a of the case name). Not recomputed here: the normal draws and Multinomial, which go through
the exact binary64 log and exp (Python's math functions may differ from them in the last bit).

usage: independent_random_check.py GOLDEN_FILE"""
import hashlib
import struct
import sys

import numpy as np

MASK32 = 0xFFFFFFFF
MASK64 = (1 << 64) - 1


def fnv1a(name):
    h = 0xCBF29CE484222325
    for c in name.encode():
        h = ((h ^ c) * 0x100000001B3) & MASK64
    return h


class SplitMix64:
    def __init__(self, seed):
        self.state = seed

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def symmetric(self):
        return np.float32(((self.next() >> 32) % 4097 - 2048)) / np.float32(1024.0)


def philox(counter, key):
    c0, c1, c2, c3 = counter
    k0, k1 = key
    for r in range(10):
        if r > 0:
            k0 = (k0 + 0x9E3779B9) & MASK32
            k1 = (k1 + 0xBB67AE85) & MASK32
        p0 = 0xD2511F53 * c0
        p1 = 0xCD9E8D57 * c2
        c0, c1, c2, c3 = ((p1 >> 32) ^ c1 ^ k0) & MASK32, p1 & MASK32, ((p0 >> 32) ^ c3 ^ k1) & MASK32, p0 & MASK32
    return c0, c1, c2, c3


def seeded_source(seed_bits):
    return (seed_bits & MASK32, ((seed_bits >> 32) ^ 0x5EED5EED) & MASK32), 0


def unseeded_source(output_name, run_seed=0):
    return (run_seed & MASK32, run_seed >> 32), fnv1a(output_name)


def float_bits(f):
    return struct.unpack("<I", struct.pack("<f", f))[0]


def unit(source, i):
    key, stream = source
    w = philox((i & MASK32, (i >> 32) & 0xFFFF, stream & MASK32, stream >> 32), key)
    return float(((w[0] << 21) | (w[1] >> 11))) * 2.0 ** -53


def tensor_hash(code, array, dtype):
    header = struct.pack("<qq", code, array.ndim) + b"".join(struct.pack("<q", d) for d in array.shape)
    return hashlib.sha256(header + array.astype(dtype).tobytes()).hexdigest()


def uniform(source, shape, low, high, np_type):
    n = int(np.prod(shape))
    out = np.empty(n, dtype=np_type)
    for i in range(n):
        v = np_type(low + (high - low) * unit(source, i))  # binary64, then one rounding
        if high > low and float(v) >= high:
            v = np.nextafter(v, np_type(-np.inf))
        out[i] = v
    return out.reshape(shape)


def main():
    lines = {}
    for line in open(sys.argv[1]):
        name, _, digest = line.strip().partition(" ")
        lines[name] = digest
    prng = SplitMix64(fnv1a("random_draws"))
    [prng.symmetric() * np.float32(4.0) for _ in range(128)]  # the Multinomial logits
    x = np.array([prng.symmetric() * np.float32(2.0) for _ in range(2112)], dtype=np.float32)
    p = np.array([np.float32(i % 101) / np.float32(100.0) for i in range(2112)], dtype=np.float32)

    computed = {}
    for dtype, np_type in ((1, np.float32), (11, np.float64)):
        src = seeded_source(float_bits(2.0))
        computed["random_draws/uniform_seeded_%d" % dtype] = tensor_hash(
            dtype, uniform(src, (64, 33), -4.0, 2.5, np_type), "<f4" if dtype == 1 else "<f8")
    computed["random_draws/uniform_like_unseeded"] = tensor_hash(
        1, uniform(unseeded_source("uniform_like_unseeded"), (2112,), 0.0, 1.0, np.float32), "<f4")
    src = seeded_source(float_bits(3.0))
    bern = np.array([1.0 if unit(src, i) < float(p[i]) else 0.0 for i in range(2112)], dtype=np.float32)
    computed["random_draws/bernoulli_seeded"] = tensor_hash(1, bern, "<f4")
    src = seeded_source(5)
    ratio = float(np.float32(0.3))
    scale = np.float32(1.0 / (1.0 - ratio))
    keep = np.array([unit(src, i) >= ratio for i in range(2112)])
    y = np.where(keep, x * scale, np.float32(0.0)).astype(np.float32)
    computed["random_draws/dropout_y"] = tensor_hash(1, y, "<f4")
    computed["random_draws/dropout_mask"] = tensor_hash(9, keep.astype(np.uint8), "u1")

    failures = 0
    for name, digest in computed.items():
        expected = lines.get(name)
        status = "ok" if expected == digest else "DIFFERS (file %s)" % expected
        failures += expected != digest
        print("%-40s %s" % (name, status))
    print("%d of %d lines confirmed" % (len(computed) - failures, len(computed)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
