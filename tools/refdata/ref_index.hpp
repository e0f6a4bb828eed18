// The index of a reference directory (../shared/spec-source/oracles.md, "Reference outputs":
// `reference/<os>-<arch>/<model>/<variant>/b<batch>/` holding inputs/*.npy, outputs/*.npy and
// index.json with the dtypes, shapes and SHA-256 of every file, the model's SHA-256 and the ONNX
// Runtime version and session options). The layout of index.json, format "onemodel-reference-1":
//
//   {"format": "onemodel-reference-1", "model": M, "variant": V, "batch": B,
//    "model_file": "/abs/path.onnx", "model_sha256": HEX64,
//    "onnxruntime": {"version": "1.31.1", ...settings...},
//    "inputs":  [{"name": N, "file": "inputs/N.npy",  "dtype": "int64",   "shape": [..], "sha256": HEX64}],
//    "outputs": [{"name": N, "file": "outputs/N.npy", "dtype": "float32", "shape": [..], "sha256": HEX64,
//                 "ort_noise_scaled": 1.2e-6}]}
// Optional keys: "inputs_version" (an integer the generator bumps when its inputs change),
// "int8_image_inputs" (a string naming how a static int8 image model's inputs were drawn:
// tools/oracles/make_reference.py INT8_IMAGE_INPUTS) and,
// per output, "ort_noise_scaled" (ONNX Runtime's ORT_ENABLE_ALL vs ORT_DISABLE_ALL scaled difference).
//
// Read with the project's strict JSON reader (core/json/json_reader.hpp). Refusals are ModelError
// naming index.json (or the data file), the JSON byte offset and a field path ("index.outputs[0].file"):
//   Io            a file cannot be read
//   Malformed     not JSON (core/json syntax errors)
//   InvalidModel  a missing, repeated, unknown or mistyped key; a duplicate tensor name; a bad
//                 extent or hex digest; a data file whose SHA-256, dtype or shape differs from the index
//   Unsupported   another "format", an unknown dtype name, an index file above 16 MiB
//   ExternalData  a `file` that is absolute, contains "..", or resolves outside the directory
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "onemodel/tensor.hpp"

namespace onemodel::refdata {

inline constexpr std::string_view kRefFormat = "onemodel-reference-1";

struct RefTensorEntry {
  std::string name;
  std::string file;             // as written in the index, relative to the directory
  std::filesystem::path path;   // directory / file, checked to stay inside the directory
  DType dtype = DType::F32;
  std::vector<std::int64_t> shape;
  std::string sha256;           // 64 lowercase hex digits
  double ort_noise_scaled = -1;  // outputs, optional: ORT enabled vs disabled; -1 when absent
};

struct RefIndex {
  std::filesystem::path dir;
  std::string model;
  std::string variant;
  std::int64_t batch = 0;
  std::string model_file;     // absolute
  std::string model_sha256;   // 64 lowercase hex digits
  std::string ort_version;    // onnxruntime.version
  std::vector<RefTensorEntry> inputs;
  std::vector<RefTensorEntry> outputs;
};

// The index's dtype names: "float32", "int64", "bool", ... (NumPy's names).
DType index_dtype(std::string_view name);  // throws ModelError(Unsupported)
std::string_view index_dtype_name(DType type) noexcept;

// Parses index.json text; `dir` is the directory the entries are relative to. The paths are
// checked lexically here (absolute, "..", empty parts); symbolic links are checked on loading.
RefIndex parse_ref_index(std::string_view text, const std::filesystem::path& dir);
// Reads DIR/index.json.
RefIndex read_ref_index(const std::filesystem::path& dir);

}  // namespace onemodel::refdata
