// Reading a whole file as bytes: memory-mapped from `map_threshold` bytes on (one mapping,
// shared by every view), read into memory below it. Throws ModelError(Io).
//
// Only regular files are read: a directory, FIFO, device or socket is refused without blocking
// (the file is opened non-blocking and its type checked on the descriptor; spec/onnx-import.md
// "Files"). With `single_link`, a file with more than one hard link is refused too (external
// data, spec/onnx-import.md section 5 rule 3).
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <filesystem>
#include <string>

#include "onemodel/bytes.hpp"

namespace onemodel {

inline constexpr std::uint64_t kMapThresholdBytes = 1u << 20;  // spec/format.md section 5

ByteView load_file_bytes(const std::filesystem::path& path,
                         std::uint64_t map_threshold = kMapThresholdBytes, bool single_link = false);

// Opens a regular file for reading (blocking reads) and fills `st`; the rules above. Throws
// ModelError(Io). The caller closes the descriptor.
int open_regular_file(const std::filesystem::path& path, struct stat& st, bool single_link);

// Drops the resident pages of `view` when it lies inside a file mapping made by load_file_bytes
// (whole pages only); does nothing for bytes read into memory. Used once a model's weights have
// been copied out, so the file's pages and the copies are not resident together (peak memory,
// bench-method.md "Peak RSS"). The view stays valid: its pages are re-read from the file if used.
void release_file_pages(const ByteView& view) noexcept;

// Reads the first `count` bytes (fewer if the file is shorter). Throws ModelError(Io).
std::string read_file_prefix(const std::filesystem::path& path, std::size_t count);

}  // namespace onemodel
