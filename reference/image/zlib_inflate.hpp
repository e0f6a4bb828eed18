// The zlib stream (RFC 1950) around DEFLATE data (RFC 1951), as PNG stores its image data
// (spec/ops/image.md section 2.3). Written for untrusted input: every code, length and distance is
// checked, the output never grows past `limit` bytes (a stream that would is Corrupt: PNG knows the
// exact size it needs), and the Adler-32 check value must match.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace onemodel::image {

std::vector<std::uint8_t> zlib_inflate(std::span<const std::uint8_t> stream, std::size_t limit);

}  // namespace onemodel::image
