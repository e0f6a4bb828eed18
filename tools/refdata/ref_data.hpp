// A reference directory loaded and verified (../shared/spec-source/oracles.md, "Reference
// outputs"): every input and output file is read, its SHA-256 compared with the index, and its
// dtype and shape compared with the index's entry. Refusals are those of ref_index.hpp and
// npy_reader.hpp (ModelError with its kind, the file and why).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "tools/refdata/ref_index.hpp"

namespace onemodel::refdata {

struct RefData {
  RefIndex index;
  std::vector<Tensor> inputs;   // index.inputs[i]
  std::vector<Tensor> outputs;  // index.outputs[i]
};

RefData load_ref_data(const std::filesystem::path& dir);

// The SHA-256 (64 lowercase hex) of a whole file; ModelError(Io) when it cannot be read.
std::string file_sha256(const std::filesystem::path& path);

}  // namespace onemodel::refdata
