// NumPy .npy files (format versions 1.0, 2.0 and 3.0 read, 1.0 written) for the command line's
// `run` and for tests: little-endian, C order, the element types the tensor library stores
// (spec/conformance.md section 5). BFloat16 has no NumPy type: it is written as '<u2' (its raw
// bits) and a '<u2' file can be read as BFloat16 bits by the caller.
#pragma once

#include <cstddef>
#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "onemodel/tensor.hpp"

namespace onemodel::conformance {

// A file or byte string that is not a .npy file this library reads: bad magic, truncated or
// malformed header, Fortran order, big-endian, an unsupported dtype, a size that does not match.
class NpyError : public std::runtime_error {
 public:
  explicit NpyError(const std::string& message) : std::runtime_error(message) {}
};

// The NumPy descr for a stored type ("<f4", "|b1", ...); BF16 gives "<u2".
std::string npy_descr(DType type);

// Parses a whole .npy file held in memory. Throws NpyError; sizes are checked before allocating.
Tensor parse_npy(std::span<const std::byte> bytes);
// Reads a file (NpyError names the file, also when it cannot be opened).
Tensor read_npy(const std::filesystem::path& path);

// The .npy bytes of a tensor of any layout (elements in row-major order), version 1.0 header.
std::vector<std::byte> npy_bytes(const Tensor& tensor);
// Writes npy_bytes to a file; throws NpyError when the file cannot be written.
void write_npy(const std::filesystem::path& path, const Tensor& tensor);

}  // namespace onemodel::conformance
