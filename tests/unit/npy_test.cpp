// The .npy reader and writer (core/conformance/npy.hpp) against files written by NumPy 2.x's
// np.save (the byte strings below were produced by NumPy, not by this code): reading gives
// NumPy's values, writing gives NumPy's bytes; hostile headers are refused with their cause.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "core/conformance/npy.hpp"
#include "onemodel/half.hpp"

namespace onemodel::conformance {
namespace {

// np.save(f, np.array([[1.5, -2, 0.25], [3, 4, 5]], dtype='<f4'))
const std::string kNumpyF32("\x93NUMPY\x01\x00v\x00{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }                                                          \x0a\x00\x00\xc0\x3f\x00\x00\x00\xc0\x00\x00\x80>\x00\x00@@\x00\x00\x80@\x00\x00\xa0@", 152);
// np.save(f, np.array(7, dtype='<i8'))
const std::string kNumpyI64Scalar("\x93NUMPY\x01\x00v\x00{'descr': '<i8', 'fortran_order': False, 'shape': (), }                                                              \x0a\x07\x00\x00\x00\x00\x00\x00\x00", 136);
// np.save(f, np.array([True, False, True]))
const std::string kNumpyBool("\x93NUMPY\x01\x00v\x00{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }                                                            \x0a\x01\x00\x01", 131);
// np.lib.format.write_array(f, np.array([1, 2], dtype='<u2'), version=(2, 0))
const std::string kNumpyU16V2("\x93NUMPY\x02\x00t\x00\x00\x00{'descr': '<u2', 'fortran_order': False, 'shape': (2,), }                                                          \x0a\x01\x00\x02\x00", 132);
// np.save(f, np.zeros((0, 12345), dtype='<f2'))
const std::string kNumpyEmptyF16("\x93NUMPY\x01\x00v\x00{'descr': '<f2', 'fortran_order': False, 'shape': (0, 12345), }                                                      \x0a", 128);

std::span<const std::byte> as_bytes(const std::string& s) {
  return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

std::string as_string(const std::vector<std::byte>& bytes) {
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

// A version 1.0 file with `dict` as its header text and `data` after it (no padding needed).
std::string npy_file(const std::string& dict, const std::string& data) {
  std::string header = dict + "\n";
  std::string file("\x93NUMPY\x01\x00", 8);
  file += static_cast<char>(header.size() & 0xFF);
  file += static_cast<char>(header.size() >> 8);
  return file + header + data;
}

std::string parse_error(const std::string& file) {
  try {
    parse_npy(as_bytes(file));
  } catch (const NpyError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Npy, ReadsNumpyFloat32) {
  const Tensor t = parse_npy(as_bytes(kNumpyF32));
  EXPECT_EQ(t.dtype(), DType::F32);
  EXPECT_EQ(t.shape(), Shape({2, 3}));
  EXPECT_EQ(t.to_vector<float>(), (std::vector<float>{1.5f, -2.0f, 0.25f, 3.0f, 4.0f, 5.0f}));
}

TEST(Npy, ReadsScalarBoolVersion2AndEmpty) {
  const Tensor scalar = parse_npy(as_bytes(kNumpyI64Scalar));
  EXPECT_EQ(scalar.dtype(), DType::I64);
  EXPECT_EQ(scalar.rank(), 0);
  EXPECT_EQ(scalar.to_vector<std::int64_t>(), std::vector<std::int64_t>{7});

  const Tensor flags = parse_npy(as_bytes(kNumpyBool));
  EXPECT_EQ(flags.dtype(), DType::Bool);
  EXPECT_EQ(flags.to_vector<bool>(), (std::vector<bool>{true, false, true}));

  const Tensor v2 = parse_npy(as_bytes(kNumpyU16V2));
  EXPECT_EQ(v2.dtype(), DType::U16);
  EXPECT_EQ(v2.to_vector<std::uint16_t>(), (std::vector<std::uint16_t>{1, 2}));

  const Tensor empty = parse_npy(as_bytes(kNumpyEmptyF16));
  EXPECT_EQ(empty.dtype(), DType::F16);
  EXPECT_EQ(empty.shape(), Shape({0, 12345}));
}

TEST(Npy, WritesNumpysBytes) {
  EXPECT_EQ(as_string(npy_bytes(Tensor::from_values<float>(DType::F32, Shape{2, 3}, {1.5f, -2.0f, 0.25f, 3.0f, 4.0f, 5.0f}))),
            kNumpyF32);
  EXPECT_EQ(as_string(npy_bytes(Tensor::from_values<std::int64_t>(DType::I64, Shape{}, {7}))), kNumpyI64Scalar);
  EXPECT_EQ(as_string(npy_bytes(Tensor::from_values<std::uint8_t>(DType::Bool, Shape{3}, {1, 0, 1}))), kNumpyBool);
  EXPECT_EQ(as_string(npy_bytes(Tensor::zeros(DType::F16, Shape{0, 12345}))), kNumpyEmptyF16);
}

TEST(Npy, WritesRowMajorFromAView) {
  const Tensor t = Tensor::from_values<std::int32_t>(DType::I32, Shape{2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor back = parse_npy(npy_bytes(t.t()));
  EXPECT_EQ(back.shape(), Shape({3, 2}));
  EXPECT_EQ(back.to_vector<std::int32_t>(), (std::vector<std::int32_t>{1, 4, 2, 5, 3, 6}));
}

TEST(Npy, RoundTripsEveryStoredType) {
  const DType types[] = {DType::F32, DType::U8, DType::I8,  DType::U16, DType::I16, DType::I32,
                         DType::I64, DType::Bool, DType::F16, DType::F64, DType::U32, DType::U64};
  for (DType type : types) {
    const std::size_t size = dtype_size(type);
    std::vector<std::byte> raw(5 * size);
    for (std::size_t k = 0; k < raw.size(); ++k) raw[k] = static_cast<std::byte>(type == DType::Bool ? k % 2 : k * 37 + 1);
    const Tensor t = Tensor::from_bytes(type, Shape{5}, raw);
    const Tensor back = parse_npy(npy_bytes(t));
    EXPECT_EQ(back.dtype(), type) << dtype_name(type);
    std::vector<std::byte> got(raw.size());
    back.copy_to(got);
    EXPECT_EQ(got, raw) << dtype_name(type);
  }
}

TEST(Npy, BFloat16IsWrittenAsItsBits) {
  EXPECT_EQ(npy_descr(DType::BF16), "<u2");
  const Tensor t = Tensor::from_values<std::uint16_t>(DType::BF16, Shape{1}, {float_to_bfloat16_bits(1.0f)});
  const Tensor back = parse_npy(npy_bytes(t));
  EXPECT_EQ(back.dtype(), DType::U16);
  EXPECT_EQ(back.to_vector<std::uint16_t>(), std::vector<std::uint16_t>{0x3F80});
}

TEST(Npy, RefusesFortranOrderBigEndianAndOtherTypes) {
  EXPECT_NE(parse_error(npy_file("{'descr': '<i4', 'fortran_order': True, 'shape': (1,), }", std::string(4, '\0')))
                .find("Fortran"),
            std::string::npos);
  EXPECT_NE(parse_error(npy_file("{'descr': '>f8', 'fortran_order': False, 'shape': (1,), }", std::string(8, '\0')))
                .find("big-endian"),
            std::string::npos);
  // One-byte types have no byte order: '>' is harmless there.
  EXPECT_EQ(parse_npy(as_bytes(npy_file("{'descr': '>u1', 'fortran_order': False, 'shape': (1,), }", "A"))).dtype(),
            DType::U8);
  for (const char* descr : {"<c8", "<U3", "|O", "<M8[ns]", "|V2", "<f16", "<i3"}) {
    const std::string error =
        parse_error(npy_file(std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (0,), }", ""));
    EXPECT_NE(error.find("not supported"), std::string::npos) << descr << ": " << error;
  }
}

TEST(Npy, RefusesMalformedFiles) {
  const std::string good_dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  EXPECT_NE(parse_error("\x93NUMP").find("too short"), std::string::npos);
  EXPECT_NE(parse_error(std::string("\x94NUMPY\x01\x00\x00\x00", 10)).find("magic"), std::string::npos);
  EXPECT_NE(parse_error(std::string("\x93NUMPY\x04\x00\x00\x00", 10)).find("version 4.0"), std::string::npos);
  // Header length beyond the file.
  EXPECT_NE(parse_error(std::string("\x93NUMPY\x01\x00\xff\x00{", 11)).find("truncated"), std::string::npos);
  // Data shorter and longer than the shape needs.
  EXPECT_NE(parse_error(npy_file(good_dict, std::string(7, '\0'))).find("need 8"), std::string::npos);
  EXPECT_NE(parse_error(npy_file(good_dict, std::string(9, '\0'))).find("need 8"), std::string::npos);
  // Missing, repeated and unknown keys; bad values.
  EXPECT_NE(parse_error(npy_file("{'descr': '<f4', 'shape': (2,), }", "")).find("keys"), std::string::npos);
  EXPECT_NE(parse_error(npy_file("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (), }", "")).find("repeated"),
            std::string::npos);
  EXPECT_NE(parse_error(npy_file("{'descr': '<f4', 'fortran_order': 0, 'shape': (), }", "")).find("True or False"),
            std::string::npos);
  EXPECT_NE(parse_error(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", "")).find("non-negative"),
            std::string::npos);
  EXPECT_NE(parse_error(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)", "")).find("malformed"),
            std::string::npos);
  // Sizes beyond the tensor limits are refused before anything is allocated.
  EXPECT_NE(parse_error(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (100000, 100000), }", ""))
                .find("beyond the tensor limits"),
            std::string::npos);
  EXPECT_NE(parse_error(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", ""))
                .find("too large"),
            std::string::npos);
  EXPECT_NE(parse_error(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1), }", ""))
                .find("8 dimensions"),
            std::string::npos);
}

TEST(Npy, FilesNameThePath) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "onemodel_npy_test";
  std::filesystem::create_directories(dir);
  const Tensor t = Tensor::from_values<double>(DType::F64, Shape{2}, {0.5, -1.0});
  write_npy(dir / "x.npy", t);
  EXPECT_EQ(read_npy(dir / "x.npy").to_vector<double>(), (std::vector<double>{0.5, -1.0}));
  try {
    read_npy(dir / "missing.npy");
    ADD_FAILURE() << "no error";
  } catch (const NpyError& e) {
    EXPECT_NE(std::string(e.what()).find("missing.npy"), std::string::npos);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace onemodel::conformance
