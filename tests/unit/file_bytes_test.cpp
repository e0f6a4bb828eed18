// load_file_bytes and release_file_pages (core/io/file_bytes.hpp): dropping the resident pages of
// a mapped view must never change what the view reads (the pages come back from the file), and
// bytes read into memory must be left alone (advising heap memory away would zero it).
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <future>

#include "core/conformance/npy.hpp"
#include "core/io/file_bytes.hpp"
#include "onemodel/error.hpp"
#include "onemodel/session.hpp"

namespace onemodel {
namespace {

std::filesystem::path write_pattern_file(const std::string& name, std::size_t size) {
  const auto path = std::filesystem::temp_directory_path() / name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  for (std::size_t i = 0; i < size; ++i) out.put(static_cast<char>((i * 131 + 7) & 0xFF));
  return path;
}

void expect_pattern(const ByteView& view, std::size_t offset) {
  for (std::size_t i = 0; i < view.size; ++i) {
    ASSERT_EQ(static_cast<unsigned>(view.data[i]), ((offset + i) * 131 + 7) & 0xFF) << "byte " << i;
  }
}

TEST(FileBytes, ReleasingPagesOfAMappedViewKeepsItsBytes) {
  const std::size_t size = (3u << 20) + 4097;  // above the mapping threshold, ragged end
  const auto path = write_pattern_file("onemodel_file_bytes_mapped.bin", size);
  const ByteView whole = load_file_bytes(path);
  ASSERT_EQ(whole.size, size);
  expect_pattern(whole, 0);  // every page resident now
  const ByteView middle = whole.slice(12345, 2u << 20);
  release_file_pages(middle);
  expect_pattern(middle, 12345);
  release_file_pages(whole);
  expect_pattern(whole, 0);
  std::filesystem::remove(path);
}

TEST(FileBytes, ReleasingPagesOfBytesReadIntoMemoryChangesNothing) {
  const std::size_t size = 300000;  // below the mapping threshold: a heap buffer
  const auto path = write_pattern_file("onemodel_file_bytes_heap.bin", size);
  const ByteView whole = load_file_bytes(path);
  release_file_pages(whole);
  expect_pattern(whole, 0);
  // Heap memory that was never a file at all.
  std::vector<std::byte> heap(1u << 20, std::byte{0x5A});
  release_file_pages(ByteView{heap.data(), heap.size(), nullptr});
  for (std::byte b : heap) ASSERT_EQ(b, std::byte{0x5A});
  std::filesystem::remove(path);
}

TEST(FileBytes, AViewOutlivingItsMappingRegistrationIsNotAdvised) {
  // A view that starts inside one mapping and runs past it is refused as a whole.
  const auto path = write_pattern_file("onemodel_file_bytes_edge.bin", 2u << 20);
  const ByteView whole = load_file_bytes(path);
  ByteView past{whole.data, whole.size + 1, whole.owner};
  release_file_pages(past);  // must not touch anything (no crash, bytes intact)
  expect_pattern(whole, 0);
  std::filesystem::remove(path);
}

// A FIFO or a directory given as a model or an input file is refused at once (spec/onnx-import.md
// section 1): opening a FIFO for reading used to wait for a writer for ever. The call runs on
// another thread; if it has not returned within 10 s the test opens the FIFO's write end (which
// wakes a blocked reader with end of file), so a regression fails instead of hanging.
class NotARegularFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("onemodel_not_regular_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_ / "a-directory.onnx");
    ASSERT_EQ(::mkfifo((dir_ / "fifo.onnx").c_str(), 0600), 0);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // The message of the error `call` throws, "" when it returns; fails when it blocks.
  std::string refusal(const std::function<void()>& call) {
    auto result = std::async(std::launch::async, [call]() -> std::string {
      try {
        call();
      } catch (const ModelError& e) {
        return std::string(to_string(e.kind())) + ": " + e.message();
      } catch (const conformance::NpyError& e) {
        return std::string("Npy: ") + e.what();
      }
      return "";
    });
    if (result.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
      ADD_FAILURE() << "blocked on the FIFO";
      const int fd = ::open((dir_ / "fifo.onnx").c_str(), O_WRONLY | O_NONBLOCK);
      if (fd >= 0) ::close(fd);
    }
    return result.get();
  }

  std::filesystem::path dir_;
};

TEST_F(NotARegularFile, AFifoIsRefusedWithoutBlocking) {
  const auto fifo = dir_ / "fifo.onnx";
  std::string message = refusal([&] { (void)load_file_bytes(fifo); });
  EXPECT_EQ(message, "Io: not a regular file (a FIFO)");
  message = refusal([&] { (void)read_file_prefix(fifo, 8); });
  EXPECT_EQ(message, "Io: not a regular file (a FIFO)");
  message = refusal([&] { (void)Session::load(fifo); });
  EXPECT_EQ(message, "Io: not a regular file (a FIFO)");
  message = refusal([&] { (void)conformance::read_npy(fifo); });
  EXPECT_NE(message.find("not a regular file (a FIFO)"), std::string::npos) << message;
}

TEST_F(NotARegularFile, ADirectoryIsRefused) {
  const auto dir = dir_ / "a-directory.onnx";
  EXPECT_EQ(refusal([&] { (void)load_file_bytes(dir); }), "Io: not a regular file (a directory)");
  EXPECT_EQ(refusal([&] { (void)read_file_prefix(dir, 8); }), "Io: not a regular file (a directory)");
  EXPECT_EQ(refusal([&] { (void)Session::load(dir); }), "Io: not a regular file (a directory)");
  const std::string npy = refusal([&] { (void)conformance::read_npy(dir); });
  EXPECT_NE(npy.find("not a regular file (a directory)"), std::string::npos) << npy;
}

}  // namespace
}  // namespace onemodel
