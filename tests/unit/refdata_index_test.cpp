// The index.json reader and the verified loading of a reference directory
// (tools/refdata/ref_index.hpp, ref_data.hpp; ../shared/spec-source/oracles.md, "Reference
// outputs"): a valid directory loads; paths escaping the directory (absolute, "..", a symbolic
// link) and SHA-256 or dtype mismatches are refused with their ModelError kind.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/conformance/npy.hpp"
#include "core/util/sha256.hpp"
#include "onemodel/error.hpp"
#include "tools/refdata/ref_data.hpp"

namespace onemodel::refdata {
namespace {

namespace fs = std::filesystem;

class RefIndexTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("onemodel_refdata_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "inputs");
    fs::create_directories(dir_ / "outputs");
    x_ = write("inputs/x.npy", Tensor::from_values<float>(DType::F32, Shape({2}), {1.0f, 2.0f}));
    y_ = write("outputs/y.npy", Tensor::from_values<std::int64_t>(DType::I64, Shape({1}), {5}));
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Writes a tensor as .npy under the directory and returns its SHA-256.
  std::string write(const std::string& rel, const Tensor& tensor) {
    const std::vector<std::byte> bytes = conformance::npy_bytes(tensor);
    std::ofstream(dir_ / rel, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                                      static_cast<std::streamsize>(bytes.size()));
    return sha256_hex(bytes);
  }

  std::string index(const std::string& x_file, const std::string& x_sha, const std::string& y_dtype = "int64",
                    const std::string& format = "onemodel-reference-1") const {
    return "{\"format\": \"" + format +
           "\", \"model\": \"m\", \"variant\": \"fp32\", \"batch\": 1,"
           " \"model_file\": \"/models/m.onnx\", \"model_sha256\": \"" + std::string(64, 'a') +
           "\", \"onnxruntime\": {\"version\": \"1.31.1\", \"intra_op_num_threads\": 1},"
           " \"inputs\": [{\"name\": \"x\", \"file\": \"" + x_file + "\", \"dtype\": \"float32\", \"shape\": [2],"
           " \"sha256\": \"" + x_sha + "\"}],"
           " \"outputs\": [{\"name\": \"y\", \"file\": \"outputs/y.npy\", \"dtype\": \"" + y_dtype +
           "\", \"shape\": [1], \"sha256\": \"" + y_ + "\"}]}";
  }

  void write_index(const std::string& text) { std::ofstream(dir_ / "index.json") << text; }

  ModelErrorKind load_refusal() {
    try {
      load_ref_data(dir_);
    } catch (const ModelError& e) {
      return e.kind();
    }
    ADD_FAILURE() << "loaded a bad reference directory";
    return ModelErrorKind::Io;
  }

  fs::path dir_;
  std::string x_, y_;
};

TEST_F(RefIndexTest, LoadsAValidDirectory) {
  write_index(index("inputs/x.npy", x_));
  const RefData data = load_ref_data(dir_);
  EXPECT_EQ(data.index.model, "m");
  EXPECT_EQ(data.index.variant, "fp32");
  EXPECT_EQ(data.index.batch, 1);
  EXPECT_EQ(data.index.model_file, "/models/m.onnx");
  EXPECT_EQ(data.index.ort_version, "1.31.1");
  ASSERT_EQ(data.inputs.size(), 1u);
  ASSERT_EQ(data.outputs.size(), 1u);
  EXPECT_EQ(data.inputs[0].to_vector<float>(), (std::vector<float>{1.0f, 2.0f}));
  EXPECT_EQ(data.outputs[0].to_vector<std::int64_t>(), std::vector<std::int64_t>{5});
}

TEST_F(RefIndexTest, RefusesPathsEscapingTheDirectory) {
  write("../outside.npy", Tensor::from_values<float>(DType::F32, Shape({2}), {1.0f, 2.0f}));
  for (const char* bad : {"../outside.npy", "inputs/../../outside.npy", "/etc/passwd", "inputs//x.npy",
                                 "./inputs/x.npy", "inputs/x.npy/"}) {
    write_index(index(bad, x_));
    try {
      read_ref_index(dir_);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const ModelError& e) {
      EXPECT_EQ(e.kind(), ModelErrorKind::ExternalData) << bad;
      EXPECT_EQ(e.field_path(), "index.inputs[0].file") << bad;
    }
  }
  // A symbolic link inside the directory that points outside it.
  fs::create_symlink(dir_.parent_path() / "outside.npy", dir_ / "inputs" / "link.npy");
  write_index(index("inputs/link.npy", x_));
  EXPECT_EQ(load_refusal(), ModelErrorKind::ExternalData);
  fs::remove(dir_.parent_path() / "outside.npy");
}

TEST_F(RefIndexTest, RefusesASha256Mismatch) {
  std::string wrong = x_;
  wrong[0] = wrong[0] == '0' ? '1' : '0';
  write_index(index("inputs/x.npy", wrong));
  try {
    load_ref_data(dir_);
    ADD_FAILURE() << "accepted a SHA-256 mismatch";
  } catch (const ModelError& e) {
    EXPECT_EQ(e.kind(), ModelErrorKind::InvalidModel);
    EXPECT_NE(e.input_name().find("x.npy"), std::string::npos);
    EXPECT_NE(e.message().find("SHA-256"), std::string::npos);
  }
}

TEST_F(RefIndexTest, RefusesADtypeTheFileDoesNotHold) {
  write_index(index("inputs/x.npy", x_, "int32"));
  EXPECT_EQ(load_refusal(), ModelErrorKind::InvalidModel);
}

TEST_F(RefIndexTest, RefusesOtherShapesOfIndex) {
  write_index(index("inputs/x.npy", x_, "int64", "onemodel-reference-2"));
  EXPECT_EQ(load_refusal(), ModelErrorKind::Unsupported);
  write_index(index("inputs/x.npy", x_, "complex64"));
  EXPECT_EQ(load_refusal(), ModelErrorKind::Unsupported);
  write_index(index("inputs/x.npy", "abc"));
  EXPECT_EQ(load_refusal(), ModelErrorKind::InvalidModel);
  write_index(index("inputs/x.npy", x_) + ",");
  EXPECT_EQ(load_refusal(), ModelErrorKind::Malformed);
  std::string extra = index("inputs/x.npy", x_);
  extra.insert(1, "\"extra\": 1, ");
  write_index(extra);
  EXPECT_EQ(load_refusal(), ModelErrorKind::InvalidModel);
  std::string twice = index("inputs/x.npy", x_);
  twice.insert(1, "\"batch\": 1, ");
  write_index(twice);
  EXPECT_EQ(load_refusal(), ModelErrorKind::InvalidModel);
  fs::remove(dir_ / "index.json");
  EXPECT_EQ(load_refusal(), ModelErrorKind::Io);
}

}  // namespace
}  // namespace onemodel::refdata
