// The OneModel model format (spec/format.md): reading, writing and converting. Throws ModelError.
#pragma once

#include <cstddef>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "onemodel/bytes.hpp"
#include "onemodel/ir.hpp"

// The shared library exports what this header declares and nothing else (CMakeLists.txt:
// the library is compiled with -fvisibility=hidden; docs/design.md "Installed package").
#pragma GCC visibility push(default)

namespace onemodel {

// True when the first eight bytes are the ASCII magic `ONEMODEL` (spec/format.md section 5).
bool is_onemodel_bytes(std::span<const std::byte> first_bytes) noexcept;

IrModel read_onemodel_file(const std::filesystem::path& path);
IrModel read_onemodel_bytes(const ByteView& bytes, const std::string& input_name);

// Deterministic: the same model gives the same bytes (spec/format.md section 4).
std::vector<std::byte> write_onemodel_bytes(const IrModel& model);
void write_onemodel_file(const IrModel& model, const std::filesystem::path& path);

// Imports an ONNX file (external data included) and writes it in the OneModel format.
void convert_onnx_to_onemodel(const std::filesystem::path& onnx_path,
                              const std::filesystem::path& output_path);

// Loads either kind, told apart by the first eight bytes.
IrModel load_model_file(const std::filesystem::path& path);

}  // namespace onemodel

#pragma GCC visibility pop
