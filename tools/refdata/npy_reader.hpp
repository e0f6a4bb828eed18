// A strict reader of NumPy .npy files for the reference directories
// (../shared/spec-source/oracles.md, "Reference outputs": NumPy format 1.0, little-endian,
// C order). Versions 1.0, 2.0 and 3.0 are read; the element types are those the tensor library
// stores and NumPy names: <f2 <f4 <f8 |i1 |u1 <i2 <u2 <i4 <u4 <i8 <u8 |b1.
//
// Every refusal is a ModelError (include/onemodel/error.hpp) naming the file, the byte offset and
// the field ("npy.magic", "npy.version", "npy.header", "npy.data"):
//   Io            the file cannot be read
//   Malformed     too short for the preamble, bad magic, header length past the end of the file,
//                 header syntax, a non-ASCII header byte, a negative extent, a missing key
//   InvalidModel  a repeated key; data shorter or longer than the shape and dtype need; a bool
//                 byte other than 0 or 1
//   Unsupported   a format version other than 1.0/2.0/3.0, big-endian, Fortran order, an unknown
//                 descr, a shape beyond the tensor limits (rank 8, 2^31-1 elements and bytes,
//                 spec/tensors.md section 3), which also covers element counts that overflow
// Sizes are checked before anything is allocated.
#pragma once

#include <cstddef>
#include <filesystem>
#include <span>
#include <string>

#include "onemodel/tensor.hpp"

namespace onemodel::refdata {

// The DType of a NumPy descr ("<f4", "|b1", ...). Throws ModelError(Unsupported) naming `file`.
DType npy_descr_dtype(const std::string& descr, const std::string& file);

// Parses a whole .npy file held in memory; `file` names it in errors.
Tensor parse_npy(std::span<const std::byte> bytes, const std::string& file);

// Reads and parses a file.
Tensor read_npy_file(const std::filesystem::path& path);

}  // namespace onemodel::refdata
