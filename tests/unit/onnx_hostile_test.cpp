// Every generated hostile ONNX file is refused with exactly the kind its name gives
// (spec/onnx-import.md section 8), with a field path, and without a crash (the Checked build
// runs them under AddressSanitizer and UndefinedBehaviorSanitizer).
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include <unistd.h>

#include "onemodel/onnx_import.hpp"
#include "tests/support/onnx_hostile.hpp"

namespace onemodel {
namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("onemodel_hostile_" + std::to_string(::getpid())) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST(OnnxHostile, AtLeastFortyCasesWithUniqueNamesAndEveryKind) {
  const auto cases = testing::hostile_onnx_models();
  EXPECT_GE(cases.size(), 40u);
  std::set<std::string> names;
  std::set<ModelErrorKind> kinds;
  for (const auto& c : cases) {
    EXPECT_TRUE(names.insert(c.name).second) << c.name;
    kinds.insert(c.kind);
    const std::string prefix = std::string(to_string(c.kind)) + "-";
    EXPECT_EQ(c.name.rfind(prefix, 0), 0u) << c.name << " does not start with " << prefix;
  }
  EXPECT_EQ(kinds.size(), 4u);
}

TEST(OnnxHostile, EachIsRefusedWithItsKind) {
  for (const auto& c : testing::hostile_onnx_models()) {
    SCOPED_TRACE(c.name);
    const fs::path path = testing::write_hostile_case(c, fresh_dir(c.name));
    try {
      (void)import_onnx_file(path);
      ADD_FAILURE() << c.name << " was accepted";
    } catch (const ModelError& e) {
      EXPECT_EQ(e.kind(), c.kind) << e.describe();
      EXPECT_EQ(e.input_name(), path.string());
      if (c.has_field_path) {
        EXPECT_FALSE(e.field_path().empty()) << e.describe();
      }
    }
  }
  fs::remove_all(fs::temp_directory_path() / ("onemodel_hostile_" + std::to_string(::getpid())));
}

// The same bytes given as a byte array: the non-external cases fail the same way; the
// external ones fail with ExternalData because no directory is named.
TEST(OnnxHostile, BytesInputGivesTheSameKind) {
  for (const auto& c : testing::hostile_onnx_models()) {
    SCOPED_TRACE(c.name);
    auto owner = std::make_shared<std::string>(c.bytes);
    ByteView view{reinterpret_cast<const std::byte*>(owner->data()), owner->size(), owner};
    try {
      (void)import_onnx_bytes(view, c.name);
      ADD_FAILURE() << c.name << " was accepted";
    } catch (const ModelError& e) {
      EXPECT_EQ(e.kind(), c.kind) << e.describe();
      EXPECT_EQ(e.input_name(), c.name);
    }
  }
}

}  // namespace
}  // namespace onemodel
