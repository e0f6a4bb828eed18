// spec/tensors.md section 2. Expected codes and sizes are the table of
// spec-source/tensors.md section 2; ONNX names are from the onnx package
// (onnx.TensorProto.DataType.items(), onnx 1.x, printed into this file by hand).
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "onemodel/dtype.hpp"
#include "onemodel/tensor_error.hpp"

namespace onemodel {
namespace {

TEST(DType, CodesAreOnnxCodesAndSizesMatchTheTable) {
  struct Row {
    DType type;
    int code;
    std::size_t size;
    const char* name;
  };
  const std::vector<Row> table = {
      {DType::F32, 1, 4, "F32"},   {DType::U8, 2, 1, "U8"},     {DType::I8, 3, 1, "I8"},
      {DType::U16, 4, 2, "U16"},   {DType::I16, 5, 2, "I16"},   {DType::I32, 6, 4, "I32"},
      {DType::I64, 7, 8, "I64"},   {DType::Bool, 9, 1, "Bool"}, {DType::F16, 10, 2, "F16"},
      {DType::F64, 11, 8, "F64"},  {DType::U32, 12, 4, "U32"},  {DType::U64, 13, 8, "U64"},
      {DType::BF16, 16, 2, "BF16"},
      {DType::F8E4M3FN, 17, 1, "F8E4M3FN"},     {DType::F8E4M3FNUZ, 18, 1, "F8E4M3FNUZ"},
      {DType::F8E5M2, 19, 1, "F8E5M2"},         {DType::F8E5M2FNUZ, 20, 1, "F8E5M2FNUZ"},
      {DType::F8E8M0, 24, 1, "F8E8M0"},
      // Sub-byte types: one element per byte in memory (spec/tensors.md section 2.2).
      {DType::U4, 21, 1, "U4"},    {DType::I4, 22, 1, "I4"},    {DType::F4E2M1, 23, 1, "F4E2M1"},
      {DType::U2, 25, 1, "U2"},    {DType::I2, 26, 1, "I2"},
  };
  for (const Row& row : table) {
    EXPECT_EQ(static_cast<int>(row.type), row.code) << row.name;
    EXPECT_EQ(dtype_size(row.type), row.size) << row.name;
    EXPECT_EQ(dtype_name(row.type), row.name);
    EXPECT_EQ(dtype_from_onnx(row.code), row.type) << row.name;
    EXPECT_TRUE(dtype_is_stored(row.code));
  }
}

TEST(DType, OnlyFloatingTypesAreFloating) {
  EXPECT_TRUE(dtype_is_floating(DType::F32));
  EXPECT_TRUE(dtype_is_floating(DType::F16));
  EXPECT_TRUE(dtype_is_floating(DType::BF16));
  EXPECT_TRUE(dtype_is_floating(DType::F64));
  EXPECT_FALSE(dtype_is_floating(DType::I32));
  EXPECT_FALSE(dtype_is_floating(DType::Bool));
  EXPECT_FALSE(dtype_is_floating(DType::U8));
  EXPECT_FALSE(dtype_is_floating(DType::F8E4M3FN));  // storage types only (spec/tensors.md section 2.1)
  EXPECT_TRUE(dtype_is_float8(DType::F8E8M0));
  EXPECT_FALSE(dtype_is_float8(DType::U8));
  EXPECT_FALSE(dtype_is_floating(DType::F4E2M1));  // no gradients for the 4-bit float
}

TEST(DType, OnnxNamesOfEveryCode) {
  // Copied from: python -c "import onnx; print(onnx.TensorProto.DataType.items())"
  const std::vector<std::pair<int, std::string>> onnx_items = {
      {0, "UNDEFINED"},       {1, "FLOAT"},           {2, "UINT8"},          {3, "INT8"},
      {4, "UINT16"},          {5, "INT16"},           {6, "INT32"},          {7, "INT64"},
      {8, "STRING"},          {9, "BOOL"},            {10, "FLOAT16"},       {11, "DOUBLE"},
      {12, "UINT32"},         {13, "UINT64"},         {14, "COMPLEX64"},     {15, "COMPLEX128"},
      {16, "BFLOAT16"},       {17, "FLOAT8E4M3FN"},   {18, "FLOAT8E4M3FNUZ"}, {19, "FLOAT8E5M2"},
      {20, "FLOAT8E5M2FNUZ"}, {21, "UINT4"},          {22, "INT4"},          {23, "FLOAT4E2M1"},
      {24, "FLOAT8E8M0"},     {25, "UINT2"},          {26, "INT2"},          {27, "FLOAT6E2M3"},
      {28, "FLOAT6E3M2"},
  };
  for (const auto& [code, name] : onnx_items) EXPECT_EQ(onnx_type_name(code), name) << code;
  EXPECT_EQ(onnx_type_name(29), "UNKNOWN");
  EXPECT_EQ(onnx_type_name(-1), "UNKNOWN");
}

TEST(DType, UnstoredCodesAreRejectedByName) {
  const std::vector<std::pair<int, std::string>> rejected = {
      {0, "UNDEFINED"},  {14, "COMPLEX64"},  {15, "COMPLEX128"},
      {27, "FLOAT6E2M3"}, {28, "FLOAT6E3M2"}, {29, "UNKNOWN"},   {-5, "UNKNOWN"},
  };
  for (const auto& [code, name] : rejected) {
    EXPECT_FALSE(dtype_is_stored(code)) << code;
    try {
      (void)dtype_from_onnx(code);
      ADD_FAILURE() << "code " << code << " was accepted";
    } catch (const TensorError& e) {
      EXPECT_EQ(e.kind(), TensorErrorKind::Type);
      EXPECT_NE(e.message().find(name), std::string::npos) << e.message();
    }
  }
}

TEST(DType, SizeOfAnInvalidEnumValueThrows) {
  EXPECT_THROW((void)dtype_size(static_cast<DType>(14)), TensorError);
}

// spec/tensors.md sections 2 and 8: STRING (8) is stored, but as objects, so it has no byte size.
TEST(DType, StringIsStoredWithoutAByteSize) {
  EXPECT_TRUE(dtype_is_stored(8));
  EXPECT_EQ(dtype_from_onnx(8), DType::String);
  EXPECT_EQ(dtype_name(DType::String), "String");
  EXPECT_FALSE(dtype_is_floating(DType::String));
  try {
    (void)dtype_size(DType::String);
    ADD_FAILURE() << "STRING has a byte size";
  } catch (const TensorError& e) {
    EXPECT_EQ(e.kind(), TensorErrorKind::Type);
    EXPECT_NE(e.message().find("STRING"), std::string::npos) << e.message();
  }
}

}  // namespace
}  // namespace onemodel
