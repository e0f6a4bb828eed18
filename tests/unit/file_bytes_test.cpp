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

#include "core/io/file_bytes.hpp"

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

}  // namespace
}  // namespace onemodel
