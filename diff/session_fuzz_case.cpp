#include "diff/session_fuzz_case.hpp"

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "diff/owned_bytes.hpp"
#include "onemodel/dtype.hpp"
#include "onemodel/error.hpp"
#include "onemodel/model_format.hpp"
#include "onemodel/onnx_import.hpp"
#include "onemodel/tensor_error.hpp"

namespace onemodel::diff {
namespace {

// FNV-1a over the file, then splitmix64: a value stream that depends on every byte of the file,
// so that a mutation of the model also varies its inputs, and a saved input replays exactly.
std::vector<std::uint8_t> value_stream(std::span<const std::uint8_t> file) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (std::uint8_t b : file) h = (h ^ b) * 0x100000001b3ULL;
  std::vector<std::uint8_t> out(std::size_t{1} << 16);
  for (std::size_t i = 0; i < out.size(); i += 8) {
    h += 0x9e3779b97f4a7c15ULL;
    std::uint64_t z = h;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    for (std::size_t k = 0; k < 8; ++k) out[i + k] = static_cast<std::uint8_t>(z >> (8 * k));
  }
  return out;
}

// Why the inputs cannot be made, or "" when `shape` was filled.
std::string input_shape(const IrValueInfo& input, ByteSource& s, std::map<std::string, std::int64_t>& symbols,
                        std::vector<std::int64_t>& shape) {
  const IrType& type = input.type;
  if (type.kind != IrType::Kind::Tensor) return "input '" + input.name + "' is not a tensor";
  if (!type.has_shape) {
    shape.assign(static_cast<std::size_t>(s.in_range(0, 3)), 0);
    for (auto& e : shape) e = s.in_range(1, 3);
    return {};
  }
  shape.clear();
  for (const IrDim& d : type.shape) {
    switch (d.kind) {
      case IrDim::Kind::Value:
        if (d.value < 0 || d.value > kMaxSessionFeedElements) return "input '" + input.name + "' has a large extent";
        shape.push_back(d.value);
        break;
      case IrDim::Kind::Param: {
        // Zero-size extents are legal and often refused late, so one symbol in eight gets 0.
        auto [it, added] = symbols.try_emplace(d.param, 0);
        if (added) it->second = s.in_range(0, 7) == 0 ? 0 : s.in_range(1, 3);
        shape.push_back(it->second);
        break;
      }
      case IrDim::Kind::Unknown: shape.push_back(s.in_range(1, 3)); break;
    }
  }
  return {};
}

}  // namespace

OpFuzzCase build_session_case(std::span<const std::uint8_t> file) {
  OpFuzzCase c;
  const ByteView bytes = diff::owned_bytes(file.data(), file.size());
  const bool onemodel_file = is_onemodel_bytes(bytes.span());
  try {
    c.model = onemodel_file ? read_onemodel_bytes(bytes, "fuzz.onemodel") : import_onnx_bytes(bytes, "fuzz.onnx");
  } catch (const ModelError& e) {
    c.model_error = e.describe();
    return c;
  }
  c.description = std::string(onemodel_file ? "OneModel" : "ONNX") + " file of " + std::to_string(file.size()) +
                  " bytes, " + std::to_string(c.model.graph.nodes.size()) + " nodes; inputs";

  const std::vector<std::uint8_t> stream = value_stream(file);
  ByteSource s(stream.data(), stream.size());
  std::set<std::string> initialized;
  for (const IrTensor& t : c.model.graph.initializers) initialized.insert(t.name);
  std::map<std::string, std::int64_t> symbols;
  std::int64_t total = 0;
  for (const IrValueInfo& input : c.model.graph.inputs) {
    if (initialized.count(input.name) != 0) continue;  // an initializer's default is used
    std::vector<std::int64_t> shape;
    if (std::string why = input_shape(input, s, symbols, shape); !why.empty()) {
      c.model_error = "not runnable: " + why;
      return c;
    }
    std::int64_t count = 1;
    for (std::int64_t e : shape) {
      count *= e;  // each extent <= 2^16 and the running count <= 2^16 below: no overflow
      if (count > kMaxSessionFeedElements) break;
    }
    total += count;
    if (total > kMaxSessionFeedElements) {
      c.model_error = "not runnable: the inputs hold more than 2^16 elements";
      return c;
    }
    DType type;
    try {
      type = dtype_from_onnx(input.type.elem_type);
    } catch (const TensorError&) {
      c.model_error = "not runnable: input '" + input.name + "' has an element type the library does not store";
      return c;
    }
    c.description += " " + input.name + "[";
    for (std::size_t i = 0; i < shape.size(); ++i) {
      if (i) c.description += ",";
      c.description += std::to_string(shape[i]);  // apart: g++ 12 -O3 gives a false -Wrestrict on "," + string
    }
    c.description += "]";
    c.feeds.emplace_back(input.name, fuzz_tensor(s, type, shape));
  }
  return c;
}

}  // namespace onemodel::diff
