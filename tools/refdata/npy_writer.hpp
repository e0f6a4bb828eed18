// Writing a tensor as a .npy file (format 1.0, little-endian, C order) for `onemodel check
// --dump`. The bytes are those of np.save, made by the library's existing encoder
// (core/conformance/npy.hpp); this wrapper only turns its errors into the ModelError(Io) that the
// reference-data tools report.
#pragma once

#include <filesystem>

#include "onemodel/tensor.hpp"

namespace onemodel::refdata {

// Writes `tensor` (any layout; elements in row-major order) to `path`, replacing the file.
void write_npy_file(const std::filesystem::path& path, const Tensor& tensor);

}  // namespace onemodel::refdata
