// The header dictionary of a NumPy .npy file, parsed strictly (the reference-data layout of
// ../shared/spec-source/oracles.md, "Reference outputs": NumPy format, little-endian, C order).
// NumPy writes a Python dict literal: {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }.
// Only those three keys, each exactly once, ASCII only; anything else is refused.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace onemodel::refdata {

struct NpyHeader {
  std::string descr;
  bool fortran_order = false;
  std::vector<std::int64_t> shape;  // every extent checked non-negative and at most 2^31-1
};

// Parses the header text. Throws ModelError naming `file`, with the byte offset of the problem
// (`text_offset` is where the text starts in the file): Malformed for syntax, a non-ASCII byte,
// a negative extent or a missing key; InvalidModel for a repeated key; Unsupported for more than
// eight dimensions or an extent above 2^31-1 (the tensor limits, spec/tensors.md section 3).
NpyHeader parse_npy_header(std::string_view text, const std::string& file, std::uint64_t text_offset);

}  // namespace onemodel::refdata
