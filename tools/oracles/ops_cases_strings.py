"""The `strings` family of tools/oracles/ops_cases.py (issue 17, branch strings): ONNX Runtime
1.31.1 oracle cases for STRING tensors and the string operators: Cast and CastLike to and from
STRING, Equal on strings, StringConcat, StringSplit, StringNormalizer, RegexFullMatch (patterns of
the subset the library accepts), ai.onnx.ml LabelEncoder (versions 2 and 4) and TfIdfVectorizer.
Seeded (ops_cases.FAMILIES: 115); new cases are appended at the end so stored ones keep their data.

Semantics: spec/ops/strings.md, spec/ops/ml.md section 3. Strings are ASCII here: the library
refuses the non-ASCII forms where ONNX Runtime's locale rules would apply (StringNormalizer) and
matches bytes where RE2 matches code points (RegexFullMatch); those refusals are unit-tested.
"""
import numpy as np
from onnx import TensorProto, helper, numpy_helper

ALPHABET = list("abcAB ,.-_19")
WORDS = ["monday", "Monday", "tuesday", "", "x", "ab", "a b", " lead", "trail ", "a,,b", "the quick fox"]


def strs(shape, values):
    a = np.empty(shape, dtype=object)
    flat = a.reshape(-1)
    for i, v in enumerate(values):
        flat[i] = v
    return a


def random_words(f, shape, alphabet=ALPHABET, longest=6):
    n = int(np.prod(shape)) if shape else 1
    out = []
    for _ in range(n):
        k = int(f.rng.integers(0, longest + 1))
        out.append("".join(alphabet[int(i)] for i in f.rng.integers(0, len(alphabet), k)))
    return strs(shape, out)


def gen_strings(f):
    gen_cast(f)
    gen_equal_concat(f)
    gen_split(f)
    gen_normalizer(f)
    gen_regex(f)
    gen_label_encoder(f)
    gen_tfidf(f)


def gen_cast(f):
    s = TensorProto.STRING
    specials = np.array([0.0, -0.0, 1.0, -1.5, 0.1, 1 / 3, 1e-5, 1e8, 123456789.0, 1e20, 3.4028235e38, 1e-45,
                         1.17549435e-38, 16777216.0, 100.0, 65504.0, np.nan, np.inf, -np.inf], dtype=np.float32)
    f.add("Cast", [("x", specials)], attrs=dict(to=s), tag="f32_special")
    f.add("Cast", [("x", f.normal((3, 4), 1000.0))], attrs=dict(to=s), tag="f32")
    f.add("Cast", [("x", f.normal((2, 3), 1e-3, np.float64))], attrs=dict(to=s), tag="f64")
    f.add("Cast", [("x", specials.astype(np.float16))], attrs=dict(to=s), tag="f16_special")
    f.add("Cast", [("x", f.ints((2, 5), -10 ** 12, 10 ** 12, np.int64))], attrs=dict(to=s), tag="i64")
    f.add("Cast", [("x", np.array([-128, 0, 127], np.int8))], attrs=dict(to=s), tag="i8")
    f.add("Cast", [("x", np.array([True, False, True]))], attrs=dict(to=s), tag="bool")
    numbers = strs((10,), ["1.5", " 2", "3e2", "-INF", "inf", "1E-3", "-0", "0.1", "1e40", "123456789"])
    f.add("Cast", [("x", numbers)], attrs=dict(to=TensorProto.FLOAT), tag="to_f32")
    f.add("Cast", [("x", numbers)], attrs=dict(to=TensorProto.DOUBLE), tag="to_f64")
    f.add("Cast", [("x", strs((4,), ["12", "-7", "0", "9223372036854775807"]))], attrs=dict(to=TensorProto.INT64),
          tag="to_i64")
    f.add("Cast", [("x", strs((3,), ["1", "0", "5"]))], attrs=dict(to=TensorProto.INT32), tag="to_i32")
    printed = [str(v) for v in f.normal((6,), 100.0).tolist()]
    f.add("Cast", [("x", strs((2, 3), printed))], attrs=dict(to=TensorProto.FLOAT), tag="to_f32_random")
    f.add("CastLike", [("x", f.normal((2, 2), 10.0)), ("like", strs((1,), ["t"]))], opset=21, tag="to_string")
    f.add("CastLike", [("x", strs((3,), ["0.25", "-3", "7e1"])), ("like", np.zeros((1,), np.float32))], opset=21,
          tag="from_string")


def gen_equal_concat(f):
    for i in range(3):
        a = random_words(f, (2, 3), list("ab"), 2)
        b = random_words(f, (3,) if i % 2 == 0 else (2, 1), list("ab"), 2)
        f.add("Equal", [("a", a), ("b", b)], opset=19, tag="c%d" % i)
        f.add("StringConcat", [("a", a), ("b", b)], opset=20, tag="c%d" % i)
    f.add("StringConcat", [("a", strs((), ["x"])), ("b", random_words(f, (2, 2)))], opset=20, tag="scalar")


def gen_split(f):
    cases = [dict(delimiter=","), dict(delimiter=", "), dict(), dict(maxsplit=1), dict(delimiter=",", maxsplit=2),
             dict(delimiter="")]
    x = strs((2, 3), ["a,b,,c", "", " x  y ", "a, b, c", ",,", "one two three four"])
    for i, attrs in enumerate(cases):
        f.add("StringSplit", [("x", x)], attrs=attrs, opset=20, outputs=2, tag="c%d" % i)
    f.add("StringSplit", [("x", random_words(f, (4,), list("ab ,"), 8))], attrs=dict(delimiter=","), opset=20,
          outputs=2, tag="random")


def gen_normalizer(f):
    row = strs((6,), ["Monday", "tuesday", "MONDAY", "wed", "", "Tuesday"])
    # ONNX Runtime builds its locale from the attribute (default en_US.UTF-8, not installed here); "C"
    # gives the same ASCII case rules (spec/ops/strings.md section 5).
    for i, attrs in enumerate([dict(stopwords=["monday"]),
                               dict(stopwords=["monday"], is_case_sensitive=1, case_change_action="LOWER"),
                               dict(case_change_action="UPPER"),
                               dict(stopwords=["monday", "tuesday", "wed", ""], case_change_action="LOWER"),
                               dict(stopwords=["Tuesday"], is_case_sensitive=1)]):
        attrs = dict(attrs, locale="C")
        f.add("StringNormalizer", [("x", row)], attrs=attrs, opset=10, tag="c%d" % i)
        f.add("StringNormalizer", [("x", row.reshape(1, 6))], attrs=attrs, opset=10, tag="c%d_2d" % i)


def gen_regex(f):
    x = strs((8,), ["abc", "ab", "a1b2", "www.site.com", "x@gmail.com", "", "A_b-9", "aaaa"])
    for i, pattern in enumerate(["ab.?", "a\\d?b\\d?", "[a-c]+", "www\\.[\\w.-]+\\.com", "\\w+@(gmail|yahoo)\\.com",
                                 "", "[^\\s@]{2,5}", "(a|aa)*", "\\bA\\w*\\b", "(?:ab|c)+", "a{2,3}", "[\\W\\d]*"]):
        f.add("RegexFullMatch", [("x", x)], attrs=dict(pattern=pattern), opset=20, tag="p%d" % i)


def gen_label_encoder(f):
    ml2 = (("ai.onnx.ml", 2),)
    ml4 = (("ai.onnx.ml", 4),)
    x = strs((2, 3), ["a", "b", "zz", "c", "a", ""])
    node = helper.make_node("LabelEncoder", ["x"], ["y0"], domain="ai.onnx.ml", keys_strings=["a", "b", "c"],
                            values_int64s=[10, 20, 30], default_int64=-5)
    f.add("LabelEncoder", [("x", x)], nodes=[node], domains=ml2, opset=21, tag="s2i")
    node = helper.make_node("LabelEncoder", ["x"], ["y0"], domain="ai.onnx.ml", keys_int64s=[1, 2, 3],
                            values_strings=["one", "two", "three"], default_string="none")
    f.add("LabelEncoder", [("x", np.array([3, 1, 7, 2], np.int64))], nodes=[node], domains=ml2, opset=21, tag="i2s")
    node = helper.make_node("LabelEncoder", ["x"], ["y0"], domain="ai.onnx.ml", keys_floats=[0.5, -1.0, 2.0],
                            values_strings=["h", "m", "t"])
    f.add("LabelEncoder", [("x", np.array([2.0, 0.5, 3.0], np.float32))], nodes=[node], domains=ml2, opset=21,
          tag="f2s")
    node = helper.make_node("LabelEncoder", ["x"], ["y0"], domain="ai.onnx.ml", keys_strings=["a", "b"],
                            values_floats=[1.5, -2.0])
    f.add("LabelEncoder", [("x", x)], nodes=[node], domains=ml4, opset=21, tag="s2f_default")
    node = helper.make_node("LabelEncoder", ["x"], ["y0"], domain="ai.onnx.ml",
                            keys_tensor=numpy_helper.from_array(np.array([1.5, 2.0, -3.0]), "keys_tensor"),
                            values_tensor=numpy_helper.from_array(strs((3,), ["p", "q", "r"]), "values_tensor"),
                            default_tensor=numpy_helper.from_array(strs((1,), ["?"]), "default_tensor"))
    f.add("LabelEncoder", [("x", np.array([[2.0, 5.0], [-3.0, 1.5]]))], nodes=[node], domains=ml4, opset=21,
          tag="tensors")


def gen_tfidf(f):
    pool = dict(pool_int64s=[2, 3, 5, 4, 5, 6, 7, 8, 6, 7], ngram_counts=[0, 4], ngram_indexes=[0, 1, 2, 3, 4, 5, 6])
    for i, (mode, lo, hi, skip) in enumerate([("TF", 1, 1, 0), ("TF", 1, 2, 2), ("IDF", 2, 2, 1), ("TFIDF", 1, 2, 3)]):
        attrs = dict(mode=mode, min_gram_length=lo, max_gram_length=hi, max_skip_count=skip, **pool)
        if mode != "TF":
            attrs["weights"] = [0.5, 1.0, 2.0, 0.25, 3.0, 1.5, 4.0]
        x = f.ints((2, 8), 2, 9, np.int64)
        f.add("TfIdfVectorizer", [("x", x)], attrs=attrs, opset=9, tag="i64_c%d" % i)
        f.add("TfIdfVectorizer", [("x", x[0].astype(np.int32))], attrs=attrs, opset=9, tag="i32_c%d" % i)
    words = ["the", "cat", "sat", "on", "mat"]
    attrs = dict(mode="TF", min_gram_length=1, max_gram_length=2, max_skip_count=1,
                 pool_strings=["cat", "mat", "the", "cat", "sat", "on"], ngram_counts=[0, 2], ngram_indexes=[0, 1, 2, 3])
    x = strs((7,), [words[int(i)] for i in f.rng.integers(0, len(words), 7)])
    f.add("TfIdfVectorizer", [("x", x)], attrs=attrs, opset=9, tag="strings")
