"""An independent transcription of spec/exact-transcendentals.md section 15 (exp_f64, log_f64) into
Python, whose float is IEEE binary64 with round-to-nearest-even and one rounding per operator (no
fused multiply-add), so it computes the same bits as reference/math/exact_exp64.cpp and
exact_log64.cpp if both follow the text. It prints the SHA-256 pins that
tests/unit/exact_f64_transcendentals_test.cpp checks, and, given a count, the largest error against
mpmath (200 bits) over that many seeded random points.

Usage: python tools/f64_ulp/transcription.py [points]
"""
import hashlib
import math
import random
import struct
import sys

import mpmath as mp

mp.mp.prec = 200


def from_bits(u):
    return struct.unpack("<d", struct.pack("<Q", u))[0]


def bits(d):
    return struct.unpack("<Q", struct.pack("<d", d))[0]


M = 6755399441055744.0
L2E = 1.4426950408889634
LN2HI = 6.93147180369123816490e-01
LN2LO = 1.90821492927058770002e-10
NAN = from_bits(0x7FF8000000000000)


def exp_f64(x):
    if x != x:
        return NAN
    if x > 710.0:
        return math.inf
    if x < -746.0:
        return 0.0
    k = (x * L2E + M) - M
    hi = x - k * LN2HI
    lo = k * LN2LO
    r = hi - lo
    rc = (hi - r) - lo
    q = 1.0 / float(math.factorial(14))
    for n in range(13, 2, -1):
        q = q * r + 1.0 / float(math.factorial(n))
    rr = r * r
    tail = (rr * 0.5) + (rr * r) * q
    s1 = 1.0 + r
    e1 = (1.0 - s1) + r
    p = s1 + (e1 + (rc + tail))
    i = int(k)
    a = i >> 1
    b = i - a
    return (p * from_bits((a + 1023) << 52)) * from_bits((b + 1023) << 52)


def log_f64(x):
    if x != x or x < 0.0:
        return NAN
    if x == 0.0:
        return -math.inf
    if x > 1.7976931348623157e308:
        return x
    a, c = x, 0
    if a < 2.2250738585072014e-308:
        a, c = a * 18014398509481984.0, -54
    u = bits(a)
    e = ((u >> 52) & 0x7FF) - 1023 + c
    m = from_bits((u & 0x000FFFFFFFFFFFFF) | 0x3FF0000000000000)
    if m > 1.4142135623730951:
        m, e = m * 0.5, e + 1
    f = m - 1.0
    s = f / (2.0 + f)
    z = s * s
    w = 2.0 / 25.0
    for j in range(11, 0, -1):
        w = w * z + 2.0 / float(2 * j + 1)
    big_r = z * w
    hfsq = 0.5 * (f * f)
    ed = float(e)
    low = s * (hfsq + big_r) + ed * LN2LO
    head = ed * LN2HI
    t = head + f
    tc = (head - t) + f
    return t + (tc + (low - hfsq))


def pin(fn):
    h = hashlib.sha256()
    u = 12345
    while u < 0xFFFFF00000000000:
        h.update(struct.pack("<Q", bits(fn(from_bits(u)))))
        u += 1 << 44
    for s in (0, 0x8000000000000000, 0x7FF0000000000000, 0xFFF0000000000000, 1, 0x7FEFFFFFFFFFFFFF,
              0x3FF0000000000000, 0xBFF0000000000000):
        h.update(struct.pack("<Q", bits(fn(from_bits(s)))))
    return h.hexdigest()


def ulp_error(got, ref):
    r = float(ref)
    if math.isinf(r) or math.isinf(got):
        return 0.0 if got == r else math.inf
    a = abs(r)
    spacing = -1074 if a < 2.2250738585072014e-308 else math.frexp(a)[1] - 53
    return float(abs(mp.mpf(got) - ref) / mp.mpf(2) ** spacing)


def main():
    print("exp pin", pin(exp_f64))
    print("log pin", pin(log_f64))
    points = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    rng = random.Random(5)
    worst = {"exp": (0.0, 0.0), "log": (0.0, 0.0)}
    for i in range(points):
        x = rng.uniform(-746, 710) if i % 3 else rng.uniform(-1, 1)
        e = ulp_error(exp_f64(x), mp.exp(mp.mpf(x)))
        worst["exp"] = max(worst["exp"], (e, x))
        y = rng.uniform(0.5, 2) if i % 3 == 0 else (from_bits(rng.getrandbits(62)) if i % 3 == 1 else rng.uniform(0, 1000))
        if y > 0 and math.isfinite(y):
            e = ulp_error(log_f64(y), mp.log(mp.mpf(y)))
            worst["log"] = max(worst["log"], (e, y))
    if points:
        print("largest error over %d points: exp %.4f ulp at %r, log %.4f ulp at %r" %
              (points, worst["exp"][0], worst["exp"][1], worst["log"][0], worst["log"][1]))


if __name__ == "__main__":
    main()
