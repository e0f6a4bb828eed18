// Hostile OneModel files (tests/support/format_hostile.hpp): each is refused with exactly its
// kind, with a field path or header field name, and without a crash (the Checked build runs
// AddressSanitizer and UndefinedBehaviorSanitizer). spec/format.md section 3.1.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <functional>
#include <unistd.h>
#include <fstream>
#include <memory>
#include <set>

#include "onemodel/error.hpp"
#include "onemodel/model_format.hpp"
#include "tests/support/format_hostile.hpp"

namespace onemodel {
namespace {

ByteView own(const std::vector<std::byte>& bytes) {
  auto owner = std::make_shared<std::vector<std::byte>>(bytes);
  return ByteView{owner->data(), owner->size(), owner};
}

TEST(FormatHostile, TheBaseFileIsValid) {
  const IrModel m = read_onemodel_bytes(own(test::valid_format_file()), "base");
  EXPECT_EQ(m.graph.initializers.size(), 3u);
  EXPECT_EQ(m.graph.nodes.size(), 1u);
}

TEST(FormatHostile, AtLeast64FilesCoveringEveryKind) {
  const auto files = test::make_hostile_format_files();
  EXPECT_GE(files.size(), 64u);
  std::set<std::string> names;
  std::set<ModelErrorKind> kinds;
  for (const auto& f : files) {
    EXPECT_TRUE(names.insert(f.name).second) << "duplicate name " << f.name;
    EXPECT_EQ(f.name.rfind(std::string(to_string(f.kind)) + "-", 0), 0u) << f.name;
    kinds.insert(f.kind);
  }
  EXPECT_EQ(kinds.size(), 3u);  // Malformed, InvalidModel, Unsupported; Io is tested below
}

void expect_refused(const test::HostileFormatFile& f, const std::function<IrModel()>& read) {
  try {
    read();
    ADD_FAILURE() << f.name << ": accepted";
  } catch (const ModelError& e) {
    EXPECT_EQ(e.kind(), f.kind) << f.name << ": " << e.describe();
    EXPECT_FALSE(e.field_path().empty()) << f.name;
    EXPECT_EQ(e.field_path().rfind(f.field_path_prefix, 0), 0u)
        << f.name << ": path " << e.field_path() << ", expected " << f.field_path_prefix << "...";
    if (e.offset()) {
      EXPECT_LE(*e.offset(), std::max<std::size_t>(f.bytes.size(), 64)) << f.name;
    }
  }
}

TEST(FormatHostile, EachIsRefusedWithItsKindFromBytes) {
  for (const auto& f : test::make_hostile_format_files()) {
    SCOPED_TRACE(f.name);
    expect_refused(f, [&] { return read_onemodel_bytes(own(f.bytes), f.name); });
  }
}

TEST(FormatHostile, EachIsRefusedWithItsKindFromAFile) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("onemodel_hostile_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  for (const auto& f : test::make_hostile_format_files()) {
    SCOPED_TRACE(f.name);
    const auto path = dir / (f.name + ".onemodel");
    {
      std::ofstream out(path, std::ios::binary);
      out.write(reinterpret_cast<const char*>(f.bytes.data()), static_cast<std::streamsize>(f.bytes.size()));
    }
    expect_refused(f, [&] { return read_onemodel_file(path); });
    // load_model_file picks the format from the magic; files with the magic must fail the same way.
    if (is_onemodel_bytes(f.bytes)) expect_refused(f, [&] { return load_model_file(path); });
  }
  std::filesystem::remove_all(dir);
}

TEST(FormatHostile, IoErrors) {
  const auto missing = std::filesystem::temp_directory_path() / "onemodel_no_such_dir" / "missing.onemodel";
  try {
    read_onemodel_file(missing);
    FAIL();
  } catch (const ModelError& e) {
    EXPECT_EQ(e.kind(), ModelErrorKind::Io);
  }
  try {
    read_onemodel_file(std::filesystem::temp_directory_path());  // a directory
    FAIL();
  } catch (const ModelError& e) {
    EXPECT_EQ(e.kind(), ModelErrorKind::Io);
  }
  try {
    write_onemodel_file(IrModel{}, missing);
    FAIL();
  } catch (const ModelError& e) {
    EXPECT_EQ(e.kind(), ModelErrorKind::Io);
  }
}

TEST(FormatHostile, NestingAtTheLimitIsAccepted) {
  // The counterpart of the *-nesting-65 files: 64 levels read.
  std::string inner = R"({"name":"leaf"})";
  for (int i = 0; i < 63 - 1; ++i) {
    inner = R"({"nodes":[{"op":"If","attributes":[{"name":"g","type":5,"value":)" + inner + "}]}]}";
  }
  const std::string manifest =
      R"({"format":"onemodel","version":1,"ir_version":8,"opsets":[{"domain":"","version":17}],"graph":{"nodes":[{"op":"If","attributes":[{"name":"g","type":5,"value":)" +
      inner + "}]}]}}";
  std::vector<std::byte> bytes(64, std::byte{0});
  for (char c : manifest) bytes.push_back(static_cast<std::byte>(c));
  const std::size_t data_offset = (bytes.size() + 63) / 64 * 64;
  bytes.resize(data_offset, std::byte{0});
  std::memcpy(bytes.data(), "ONEMODEL", 8);
  const auto put = [&](std::size_t at, std::uint64_t v) {
    for (int i = 0; i < 8; ++i) bytes[at + static_cast<std::size_t>(i)] = static_cast<std::byte>((v >> (8 * i)) & 0xFF);
  };
  bytes[8] = std::byte{1};
  put(16, 64);
  put(24, manifest.size());
  put(32, data_offset);
  put(40, 0);
  put(48, data_offset);
  // Main graph (1) + 63 subgraphs = 64 levels.
  EXPECT_NO_THROW(read_onemodel_bytes(own(bytes), "deep"));
}

}  // namespace
}  // namespace onemodel
