// External tensor data (spec/onnx-import.md section 5), on small files in a temporary folder.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "core/onnx/external_data.hpp"
#include "onemodel/error.hpp"
#include "onemodel/onnx_import.hpp"
#include "tests/support/onnx_builder.hpp"

namespace onemodel {
namespace {

namespace fs = std::filesystem;
using namespace testing::onnxb;
using Entries = std::vector<std::pair<std::string, std::string>>;

class ExternalData : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("onemodel_external_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_ / "model");
    fs::create_directories(root_ / "outside");
  }
  void TearDown() override { fs::remove_all(root_); }

  static void write(const fs::path& p, const std::string& bytes) {
    fs::create_directories(p.parent_path());
    std::ofstream out(p, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }

  // A model with float initializers, each [2] (8 bytes) from external data.
  fs::path model(const std::vector<Entries>& tensors) {
    GraphParts g = identity_graph();
    for (std::size_t i = 0; i < tensors.size(); ++i) {
      g.initializers.push_back(tensor_external("W" + std::to_string(i), 1, {2}, tensors[i]));
    }
    const fs::path p = root_ / "model" / "m.onnx";
    write(p, model_bytes(g));
    return p;
  }

  ModelError refused(const Entries& e) {
    try {
      import_onnx_file(model({e}));
    } catch (const ModelError& err) {
      return err;
    }
    ADD_FAILURE() << "accepted";
    return ModelError(ModelErrorKind::Io, "none");
  }

  fs::path root_;
};

const std::string kData("\x00\x00\x80\x3F\x00\x00\x00\x40\x00\x00\x40\x40\x00\x00\x80\x40", 16);  // 1, 2, 3, 4

std::string hex(const ByteView& v) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < v.size; ++i) {
    out += digits[static_cast<unsigned>(v.data[i]) >> 4];
    out += digits[static_cast<unsigned>(v.data[i]) & 15];
  }
  return out;
}

TEST_F(ExternalData, ValidTensorsShareOneFile) {
  write(root_ / "model" / "sub" / "w.bin", kData);
  IrModel m = import_onnx_file(model({{{"location", "sub/w.bin"}},
                                      {{"location", "sub/w.bin"}, {"offset", "8"}, {"length", "8"}, {"checksum", "x"}}}));
  const IrTensor& a = m.graph.initializers.at(0);
  const IrTensor& b = m.graph.initializers.at(1);
  EXPECT_EQ(hex(a.data), "0000803f00000040");
  EXPECT_EQ(hex(b.data), "0000404000008040");
  EXPECT_EQ(a.data.owner.get(), b.data.owner.get());  // one load per file and import
  EXPECT_EQ(a.data.data + 8, b.data.data);
}

TEST_F(ExternalData, LargeFileIsMappedAndShared) {
  std::string big(std::size_t{2} << 20, '\0');
  big.replace(big.size() - 16, 16, kData);
  write(root_ / "model" / "big.bin", big);
  const std::string end_offset = std::to_string(big.size() - 8);
  IrModel m = import_onnx_file(model({{{"location", "big.bin"}, {"offset", end_offset}},
                                      {{"location", "./big.bin"}, {"offset", "0"}}}));
  EXPECT_EQ(hex(m.graph.initializers[0].data), "0000404000008040");
  EXPECT_EQ(hex(m.graph.initializers[1].data), "0000000000000000");
  EXPECT_EQ(m.graph.initializers[0].data.owner.get(), m.graph.initializers[1].data.owner.get());
}

TEST_F(ExternalData, ExactlyToTheEndIsAllowed) {
  write(root_ / "model" / "w.bin", kData);
  IrModel m = import_onnx_file(model({{{"location", "w.bin"}, {"offset", "8"}}}));
  EXPECT_EQ(hex(m.graph.initializers[0].data), "0000404000008040");
}

TEST_F(ExternalData, UnsafeLocationsAreRefused) {
  write(root_ / "model" / "w.bin", kData);
  write(root_ / "outside" / "secret.bin", kData);
  for (const std::string& loc : std::vector<std::string>{"../outside/secret.bin", "a/../../outside/secret.bin", "a\\..\\w.bin", "..",
                                "/etc/passwd", "\\w.bin", "\\\\server\\share\\w.bin", "C:w.bin", "c:\\w.bin", "",
                                std::string("w.bin\0", 6)}) {
    ModelError e = refused({{"location", loc}});
    EXPECT_EQ(e.kind(), ModelErrorKind::ExternalData) << loc;
    EXPECT_EQ(e.field_path(), "ModelProto.graph.initializer[0].external_data") << loc;
  }
}

TEST_F(ExternalData, SymlinkEscapingTheDirectoryIsRefused) {
  write(root_ / "outside" / "secret.bin", kData);
  fs::create_symlink(root_ / "outside" / "secret.bin", root_ / "model" / "link.bin");
  fs::create_directory_symlink(root_ / "outside", root_ / "model" / "linkdir");
  EXPECT_EQ(refused({{"location", "link.bin"}}).kind(), ModelErrorKind::ExternalData);
  EXPECT_EQ(refused({{"location", "linkdir/secret.bin"}}).kind(), ModelErrorKind::ExternalData);
}

// spec/onnx-import.md section 5 rule 3, the fourth layer of the onnx external-data fixes
// (CVE-2026-27489/34447): a file inside the directory that is a hard link to a file outside it
// passes every path check, so a file with more than one link is refused; with the second link
// gone it is read.
TEST_F(ExternalData, AFileWithASecondHardLinkIsRefused) {
  write(root_ / "outside" / "secret.bin", kData);
  fs::create_hard_link(root_ / "outside" / "secret.bin", root_ / "model" / "w.bin");
  const ModelError e = refused({{"location", "w.bin"}});
  EXPECT_EQ(e.kind(), ModelErrorKind::ExternalData);
  EXPECT_NE(e.message().find("hard links"), std::string::npos) << e.describe();
  fs::remove(root_ / "outside" / "secret.bin");
  const IrModel m = import_onnx_file(model({{{"location", "w.bin"}, {"length", "8"}}}));
  EXPECT_EQ(m.graph.initializers.size(), 1u);
}

TEST_F(ExternalData, SymlinkStayingInsideIsAccepted) {
  write(root_ / "model" / "real" / "w.bin", kData);
  fs::create_symlink(root_ / "model" / "real" / "w.bin", root_ / "model" / "alias.bin");
  IrModel m = import_onnx_file(model({{{"location", "alias.bin"}}}));
  EXPECT_EQ(hex(m.graph.initializers[0].data), "0000803f00000040");
}

TEST_F(ExternalData, ModelDirectoryReachedThroughALinkStillWorks) {
  write(root_ / "model" / "w.bin", kData);
  model({{{"location", "w.bin"}}});
  fs::create_directory_symlink(root_ / "model", root_ / "via");
  IrModel m = import_onnx_file(root_ / "via" / "m.onnx");
  EXPECT_EQ(m.graph.initializers[0].data.size, 8u);
}

TEST_F(ExternalData, RangeChecks) {
  write(root_ / "model" / "w.bin", kData);
  EXPECT_EQ(refused({{"location", "w.bin"}, {"offset", "9"}}).kind(), ModelErrorKind::ExternalData);
  EXPECT_EQ(refused({{"location", "w.bin"}, {"offset", "18446744073709551615"}}).kind(), ModelErrorKind::ExternalData);
  EXPECT_EQ(refused({{"location", "w.bin"}, {"length", "16"}}).kind(), ModelErrorKind::ExternalData);
  EXPECT_EQ(refused({{"location", "w.bin"}, {"offset", "+1"}}).kind(), ModelErrorKind::ExternalData);
  EXPECT_EQ(refused({{"location", "w.bin"}, {"offset", "-0"}}).kind(), ModelErrorKind::ExternalData);
  EXPECT_EQ(refused({{"location", "w.bin"}, {"offset", ""}}).kind(), ModelErrorKind::ExternalData);
  EXPECT_EQ(refused({{"location", "w.bin"}, {"length", "8.0"}}).kind(), ModelErrorKind::ExternalData);
  EXPECT_EQ(refused({{"location", "missing.bin"}}).kind(), ModelErrorKind::ExternalData);
  EXPECT_EQ(refused({{"offset", "0"}}).kind(), ModelErrorKind::ExternalData);
}

TEST_F(ExternalData, BytesNeedANamedDirectory) {
  write(root_ / "model" / "w.bin", kData);
  GraphParts g = identity_graph();
  g.initializers.push_back(tensor_external("W", 1, {2}, {{"location", "w.bin"}}));
  auto owner = std::make_shared<std::string>(model_bytes(g));
  ByteView bytes{reinterpret_cast<const std::byte*>(owner->data()), owner->size(), owner};
  try {
    import_onnx_bytes(bytes, "bytes");
    ADD_FAILURE() << "accepted";
  } catch (const ModelError& e) {
    EXPECT_EQ(e.kind(), ModelErrorKind::ExternalData);
  }
  OnnxImportOptions o;
  o.external_data_dir = root_ / "model";
  IrModel m = import_onnx_bytes(bytes, "bytes", o);
  EXPECT_EQ(hex(m.graph.initializers[0].data), "0000803f00000040");
}

TEST(ExternalDataRules, LocationProblem) {
  EXPECT_EQ(onnx::location_problem("w.bin"), nullptr);
  EXPECT_EQ(onnx::location_problem("a/b/c.bin"), nullptr);
  EXPECT_EQ(onnx::location_problem("a\\b.bin"), nullptr);
  EXPECT_EQ(onnx::location_problem("..a/b"), nullptr);  // ".." only as a whole segment
  EXPECT_EQ(onnx::location_problem("a../b"), nullptr);
  EXPECT_NE(onnx::location_problem("a/.."), nullptr);
  EXPECT_NE(onnx::location_problem("z:x"), nullptr);
}

TEST(ExternalDataRules, ParseDecimal) {
  EXPECT_EQ(onnx::parse_decimal("0"), 0u);
  EXPECT_EQ(onnx::parse_decimal("0012"), 12u);
  EXPECT_EQ(onnx::parse_decimal("9223372036854775807"), 9223372036854775807u);
  EXPECT_FALSE(onnx::parse_decimal("9223372036854775808"));
  EXPECT_FALSE(onnx::parse_decimal(" 1"));
  EXPECT_FALSE(onnx::parse_decimal("1e3"));
}

}  // namespace
}  // namespace onemodel
