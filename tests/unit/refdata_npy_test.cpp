// The strict .npy reader of the reference directories (tools/refdata/npy_reader.hpp): every
// supported dtype in versions 1.0 and 2.0, written here byte by byte from NumPy's format text
// (magic, version, little-endian header length, the dict, C-order data), and hostile files, each
// refused with its ModelError kind.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/conformance/npy.hpp"
#include "onemodel/error.hpp"
#include "onemodel/half.hpp"
#include "tools/refdata/npy_reader.hpp"

namespace onemodel::refdata {
namespace {

// A .npy file: version `major`.0, `dict` padded with spaces and a newline, then `data`.
std::string npy_file(const std::string& dict, const std::string& data, int major = 1) {
  std::string header = dict;
  const std::size_t preamble = major == 1 ? 10 : 12;
  while ((preamble + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string file("\x93NUMPY", 6);
  file += static_cast<char>(major);
  file += '\0';
  const std::size_t n = header.size();
  file += static_cast<char>(n & 0xFF);
  file += static_cast<char>((n >> 8) & 0xFF);
  if (major != 1) {
    file += static_cast<char>((n >> 16) & 0xFF);
    file += static_cast<char>((n >> 24) & 0xFF);
  }
  return file + header + data;
}

template <class T>
std::string le_bytes(std::initializer_list<T> values) {
  std::string out;
  for (T v : values) {
    char raw[sizeof(T)];
    std::memcpy(raw, &v, sizeof(T));
    out.append(raw, sizeof(T));
  }
  return out;
}

Tensor parse(const std::string& file) {
  return parse_npy(std::span<const std::byte>(reinterpret_cast<const std::byte*>(file.data()), file.size()), "t.npy");
}

std::string dict(const std::string& descr, const std::string& shape, const std::string& order = "False") {
  return "{'descr': '" + descr + "', 'fortran_order': " + order + ", 'shape': " + shape + ", }";
}

// The kind of the ModelError parsing `file` throws (the test fails if it does not throw one).
ModelErrorKind refusal(const std::string& file) {
  try {
    parse(file);
  } catch (const ModelError& e) {
    EXPECT_EQ(e.input_name(), "t.npy");
    return e.kind();
  }
  ADD_FAILURE() << "accepted a hostile file";
  return ModelErrorKind::Io;
}

class NpyVersions : public ::testing::TestWithParam<int> {};

TEST_P(NpyVersions, ReadsEverySupportedDtype) {
  const int v = GetParam();
  {
    const Tensor t = parse(npy_file(dict("<f4", "(2, 3)"), le_bytes<float>({1.5f, -2, 0.25f, 3, 4, 5}), v));
    EXPECT_EQ(t.dtype(), DType::F32);
    EXPECT_EQ(t.shape(), Shape({2, 3}));
    EXPECT_EQ(t.to_vector<float>(), (std::vector<float>{1.5f, -2, 0.25f, 3, 4, 5}));
  }
  {
    const Tensor t = parse(npy_file(dict("<f8", "(2,)"), le_bytes<double>({0.1, -1e300}), v));
    EXPECT_EQ(t.to_vector<double>(), (std::vector<double>{0.1, -1e300}));
  }
  {
    const Tensor t = parse(npy_file(dict("<i8", "(1, 2)"), le_bytes<std::int64_t>({-7, std::int64_t{1} << 40}), v));
    EXPECT_EQ(t.dtype(), DType::I64);
    EXPECT_EQ(t.to_vector<std::int64_t>(), (std::vector<std::int64_t>{-7, std::int64_t{1} << 40}));
  }
  {
    const Tensor t = parse(npy_file(dict("<i4", "()"), le_bytes<std::int32_t>({-123456}), v));
    EXPECT_EQ(t.rank(), 0);
    EXPECT_EQ(t.to_vector<std::int32_t>(), std::vector<std::int32_t>{-123456});
  }
  {
    const Tensor t = parse(npy_file(dict("|b1", "(3,)"), std::string("\x01\x00\x01", 3), v));
    EXPECT_EQ(t.dtype(), DType::Bool);
    EXPECT_EQ(t.to_vector<std::uint8_t>(), (std::vector<std::uint8_t>{1, 0, 1}));
  }
  {
    const Tensor t = parse(npy_file(dict("|u1", "(2,)"), std::string("\xff\x07", 2), v));
    EXPECT_EQ(t.to_vector<std::uint8_t>(), (std::vector<std::uint8_t>{255, 7}));
  }
  {
    const Tensor t = parse(npy_file(dict("|i1", "(1,)"), std::string("\x80", 1), v));
    EXPECT_EQ(t.to_vector<std::int8_t>(), std::vector<std::int8_t>{-128});
  }
  {
    const Tensor t = parse(npy_file(dict("<f2", "(1,)"), le_bytes<std::uint16_t>({0x3C00}), v));
    EXPECT_EQ(t.dtype(), DType::F16);
    EXPECT_EQ(half_bits_to_float(t.to_vector<std::uint16_t>()[0]), 1.0f);
  }
  EXPECT_EQ(parse(npy_file(dict("<i2", "(1,)"), le_bytes<std::int16_t>({-2}), v)).to_vector<std::int16_t>()[0], -2);
  EXPECT_EQ(parse(npy_file(dict("<u2", "(1,)"), le_bytes<std::uint16_t>({65535}), v)).to_vector<std::uint16_t>()[0],
            65535);
  EXPECT_EQ(parse(npy_file(dict("<u4", "(1,)"), le_bytes<std::uint32_t>({4000000000u}), v)).to_vector<std::uint32_t>()[0],
            4000000000u);
  EXPECT_EQ(parse(npy_file(dict("<u8", "(1,)"), le_bytes<std::uint64_t>({~std::uint64_t{0}}), v))
                .to_vector<std::uint64_t>()[0],
            ~std::uint64_t{0});
  // An empty array: no data bytes at all.
  EXPECT_EQ(parse(npy_file(dict("<f4", "(0, 5)"), "", v)).element_count(), 0);
}

INSTANTIATE_TEST_SUITE_P(Versions, NpyVersions, ::testing::Values(1, 2));

TEST(RefdataNpy, ReadsTheLibraryWriterOutputForEveryType) {
  // The writer used by `check --dump` (np.save's bytes) reads back to the same tensor.
  for (DType type : {DType::F32, DType::F64, DType::F16, DType::I8, DType::U8, DType::I16, DType::U16, DType::I32,
                     DType::U32, DType::I64, DType::U64, DType::Bool}) {
    const Tensor t = Tensor::zeros(type, Shape({3, 1, 2}));
    const std::vector<std::byte> bytes = conformance::npy_bytes(t);
    const Tensor back = parse_npy(bytes, "w.npy");
    EXPECT_EQ(back.dtype(), type);
    EXPECT_EQ(back.shape(), t.shape());
  }
}

TEST(RefdataNpy, RefusesTruncatedAndMisdeclaredLengths) {
  const std::string good = npy_file(dict("<f4", "(2,)"), le_bytes<float>({1, 2}));
  EXPECT_EQ(refusal(good.substr(0, 9)), ModelErrorKind::Malformed);             // shorter than the preamble
  EXPECT_EQ(refusal(good.substr(0, 40)), ModelErrorKind::Malformed);            // header cut short
  std::string past = good;
  past[8] = '\xff';
  past[9] = '\x7f';                                                            // header length past the end
  EXPECT_EQ(refusal(past), ModelErrorKind::Malformed);
  std::string v2 = npy_file(dict("<f4", "(2,)"), le_bytes<float>({1, 2}), 2);
  v2[11] = '\x40';                                                             // 4-byte length, huge
  EXPECT_EQ(refusal(v2), ModelErrorKind::Malformed);
  EXPECT_EQ(refusal(good.substr(0, good.size() - 1)), ModelErrorKind::InvalidModel);  // data short
  EXPECT_EQ(refusal(good + "x"), ModelErrorKind::InvalidModel);                       // data long
  EXPECT_EQ(refusal(npy_file(dict("<f4", "(3,)"), le_bytes<float>({1, 2}))), ModelErrorKind::InvalidModel);
  std::string magic = good;
  magic[1] = 'X';
  EXPECT_EQ(refusal(magic), ModelErrorKind::Malformed);
}

TEST(RefdataNpy, RefusesShapesBeyondTheLimits) {
  // Products that overflow 64 bits, and element counts above 2^31-1, refused before allocating.
  EXPECT_EQ(refusal(npy_file(dict("<f4", "(2147483647, 2147483647, 2147483647)"), "")), ModelErrorKind::Unsupported);
  EXPECT_EQ(refusal(npy_file(dict("|u1", "(65536, 65536)"), "")), ModelErrorKind::Unsupported);
  EXPECT_EQ(refusal(npy_file(dict("<f4", "(99999999999999999999999999999,)"), "")), ModelErrorKind::Unsupported);
  EXPECT_EQ(refusal(npy_file(dict("<f4", "(1, 1, 1, 1, 1, 1, 1, 1, 1)"), le_bytes<float>({1}))),
            ModelErrorKind::Unsupported);
  EXPECT_EQ(refusal(npy_file(dict("<f4", "(-1, 3)"), "")), ModelErrorKind::Malformed);
}

TEST(RefdataNpy, RefusesWhatItDoesNotRead) {
  const std::string data = le_bytes<float>({1, 2});
  EXPECT_EQ(refusal(npy_file(dict(">f4", "(2,)"), data)), ModelErrorKind::Unsupported);          // big-endian
  EXPECT_EQ(refusal(npy_file(dict("<f4", "(2,)", "True"), data)), ModelErrorKind::Unsupported);  // Fortran
  EXPECT_EQ(refusal(npy_file(dict("<c8", "(1,)"), data)), ModelErrorKind::Unsupported);          // unknown
  EXPECT_EQ(refusal(npy_file(dict("<U2", "(1,)"), data)), ModelErrorKind::Unsupported);
  EXPECT_EQ(refusal(npy_file(dict("|O", "(1,)"), data)), ModelErrorKind::Unsupported);
  EXPECT_EQ(refusal(npy_file(dict("<b1", "(2,)"), "\x01\x01")), ModelErrorKind::Unsupported);    // order on 1 byte
  std::string v4 = npy_file(dict("<f4", "(2,)"), data);
  v4[6] = '\x04';
  EXPECT_EQ(refusal(v4), ModelErrorKind::Unsupported);
  EXPECT_EQ(refusal(npy_file(dict("|b1", "(2,)"), std::string("\x01\x02", 2))), ModelErrorKind::InvalidModel);
}

TEST(RefdataNpy, RefusesBadHeaders) {
  const std::string data = le_bytes<float>({1, 2});
  EXPECT_EQ(refusal(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x\xc3\xa9': 1, }", data)),
            ModelErrorKind::Malformed);  // non-ASCII
  EXPECT_EQ(refusal(npy_file("{'descr': '<f4', 'shape': (2,), }", data)), ModelErrorKind::Malformed);  // missing key
  EXPECT_EQ(refusal(npy_file("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", data)),
            ModelErrorKind::InvalidModel);  // repeated key
  EXPECT_EQ(refusal(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'extra': 1}", data)),
            ModelErrorKind::Malformed);
  EXPECT_EQ(refusal(npy_file("{'descr': '<f4', 'fortran_order': 0, 'shape': (2,), }", data)), ModelErrorKind::Malformed);
  EXPECT_EQ(refusal(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (2), }", data)),
            ModelErrorKind::Malformed);
  EXPECT_EQ(refusal(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), } junk", data)),
            ModelErrorKind::Malformed);
  EXPECT_EQ(refusal(npy_file("", data)), ModelErrorKind::Malformed);
}

}  // namespace
}  // namespace onemodel::refdata
