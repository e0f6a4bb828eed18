// Compact weights (see compact_weights.hpp). The rounding is tensors.md section 10 through
// core/tensor/half.cpp (spec/half-precision.md sections 2 and 4), so a compacted weight is
// exactly what a binary32 model whose weights were rounded beforehand would hold after widening.
#include "core/session/compact_weights.hpp"

#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "core/io/file_bytes.hpp"
#include "onemodel/half.hpp"

namespace onemodel {
namespace {

// The tensors compact_weights made, by the address of their bytes, so tensor_from_ir can hand an
// engine the same buffer instead of a copy (shared_compact_tensor). Entries leave with their owner.
struct CompactRegistry {
  std::mutex mutex;
  std::unordered_map<const std::byte*, std::weak_ptr<const CompactBytes>> by_data;
};

CompactRegistry& registry() {
  static CompactRegistry* r = new CompactRegistry;  // never destroyed: owners may outlive statics
  return *r;
}

const std::byte* bytes_of(const CompactBytes& owner) noexcept {
  return reinterpret_cast<const std::byte*>(owner.tensor.data<std::uint16_t>().data());
}

void register_compact_bytes(const std::shared_ptr<const CompactBytes>& owner) {
  CompactRegistry& r = registry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  r.by_data[bytes_of(*owner)] = owner;
}

constexpr std::int32_t kFloat = 1;
constexpr std::int32_t kFloat16 = 10;
constexpr std::int32_t kBFloat16 = 16;

bool is_default_domain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

// fp16.md: the weights of MatMul, Gemm and Conv (input 1).
bool is_product_op(const IrNode& node) {
  return is_default_domain(node.domain) &&
         (node.op_type == "MatMul" || node.op_type == "Gemm" || node.op_type == "Conv");
}

const IrValue* value_of(const IrGraph& graph, const std::string& name) {
  const auto it = graph.value_index.find(name);
  if (it == graph.value_index.end() || it->second < 0 || static_cast<std::size_t>(it->second) >= graph.values.size()) {
    return nullptr;
  }
  return &graph.values[static_cast<std::size_t>(it->second)];
}

// "Read by nothing else" (fp16.md): the value has one reader, a product, which reads it at input
// 1 and at no other input. consumers (graph-resolution.md section 7) counts subgraph readers too.
bool read_only_as_weight(const IrGraph& graph, const IrValue& value) {
  if (value.consumers.size() != 1) return false;
  const auto node_index = static_cast<std::size_t>(value.consumers[0]);
  if (node_index >= graph.nodes.size()) return false;
  const IrNode& node = graph.nodes[node_index];
  if (!is_product_op(node) || node.inputs.size() < 2 || node.inputs[1] != value.name) return false;
  for (std::size_t i = 0; i < node.inputs.size(); ++i) {
    if (i != 1 && node.inputs[i] == value.name) return false;
  }
  for (const IrAttribute& attribute : node.attributes) {
    if (!attribute.graphs.empty()) return false;
  }
  return true;
}

bool is_graph_output(const IrGraph& graph, const std::string& name) {
  for (const IrValueInfo& output : graph.outputs) {
    if (output.name == name) return true;
  }
  return false;
}

std::int64_t element_count(const IrTensor& tensor) {
  std::int64_t count = 1;
  for (std::int64_t d : tensor.dims) count *= d;  // import checked the product (< 2^60)
  return count;
}

// spec/half-precision.md section 2 and fp16.md: binary16 ends at 65504; a tensor holding NaN,
// infinity or any larger magnitude is left binary32.
bool fits_binary16(const float* values, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    std::uint32_t bits;
    std::memcpy(&bits, values + i, sizeof bits);
    if ((bits & 0x7FFFFFFFu) > 0x477FE000u) return false;  // 0x477FE000 is 65504; NaN and inf are above
  }
  return true;
}

}  // namespace

bool is_compactable_weight(const IrGraph& graph, const IrTensor& initializer) {
  if (initializer.data_type != kFloat || initializer.compact) return false;
  const std::int64_t count = element_count(initializer);
  if (count < kCompactMinValues || initializer.data.size != static_cast<std::size_t>(count) * sizeof(float)) {
    return false;
  }
  const IrValue* value = value_of(graph, initializer.name);
  // A graph input's default (Source::Input) may be replaced by the caller: not a weight.
  if (value == nullptr || value->source != IrValue::Source::Initializer) return false;
  return !is_graph_output(graph, initializer.name) && read_only_as_weight(graph, *value);
}

CompactionReport compact_weights(IrModel& model, WeightStorage storage) {
  CompactionReport report;
  if (storage == WeightStorage::Original) return report;
  IrGraph& graph = model.graph;
  for (IrTensor& initializer : graph.initializers) {
    if (!is_compactable_weight(graph, initializer)) continue;
    const auto count = static_cast<std::size_t>(element_count(initializer));
    // The bytes may be unaligned (a view into a protobuf): widen through an aligned copy, one
    // block at a time so no second binary32 copy of the tensor exists.
    constexpr std::size_t kBlock = 4096;
    std::vector<float> block(std::min(count, kBlock));
    if (storage == WeightStorage::Binary16) {
      bool fits = true;
      for (std::size_t i = 0; i < count && fits; i += kBlock) {
        const std::size_t n = std::min(kBlock, count - i);
        std::memcpy(block.data(), initializer.data.data + i * sizeof(float), n * sizeof(float));
        fits = fits_binary16(block.data(), n);
      }
      if (!fits) {
        ++report.kept_float32;
        continue;
      }
    }
    // The 16-bit copy is a tensor the engines share instead of copying (shared_compact_tensor),
    // so a compact weight exists once in memory even while the session is being made.
    const DType type = storage == WeightStorage::Binary16 ? DType::F16 : DType::BF16;
    auto owner = std::make_shared<CompactBytes>(Tensor::empty(type, Shape{std::span<const std::int64_t>(initializer.dims)}));
    std::uint16_t* bits = owner->tensor.mutable_data<std::uint16_t>().data();
    for (std::size_t i = 0; i < count; i += kBlock) {
      const std::size_t n = std::min(kBlock, count - i);
      std::memcpy(block.data(), initializer.data.data + i * sizeof(float), n * sizeof(float));
      const std::span<const float> in(block.data(), n);
      const std::span<std::uint16_t> out(bits + i, n);
      // tensors.md section 10: round to nearest even (spec/half-precision.md sections 2 and 4).
      if (storage == WeightStorage::Binary16) {
        floats_to_half_bits(in, out);
      } else {
        floats_to_bfloat16_bits(in, out);
      }
    }
    // fp16.md "frees the binary32 copy": the file's resident pages under the old view go now
    // (release_file_pages leaves heap bytes alone), and the view itself is dropped below.
    release_file_pages(initializer.data);
    // Little-endian raw layout (spec/onnx-import.md section 3), as the host stores uint16.
    const std::byte* data = reinterpret_cast<const std::byte*>(bits);
    register_compact_bytes(owner);
    initializer.data = ByteView{data, count * sizeof(std::uint16_t), owner};
    initializer.data_type = storage == WeightStorage::Binary16 ? kFloat16 : kBFloat16;
    initializer.compact = true;
    ++report.compacted;
    report.bytes_before += count * sizeof(float);
    report.bytes_after += count * sizeof(std::uint16_t);
  }
  return report;
}

CompactBytes::~CompactBytes() {
  if (!tensor.defined() || tensor.element_count() == 0) return;
  CompactRegistry& r = registry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  const auto it = r.by_data.find(bytes_of(*this));
  if (it != r.by_data.end() && it->second.expired()) r.by_data.erase(it);
}

std::optional<Tensor> shared_compact_tensor(const IrTensor& tensor) {
  if (!tensor.compact || tensor.data.empty()) return std::nullopt;
  CompactRegistry& r = registry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  const auto it = r.by_data.find(tensor.data.data);
  if (it == r.by_data.end()) return std::nullopt;
  const std::shared_ptr<const CompactBytes> owner = it->second.lock();
  if (!owner || static_cast<std::int32_t>(owner->tensor.dtype()) != tensor.data_type ||
      static_cast<std::size_t>(owner->tensor.element_count()) * sizeof(std::uint16_t) != tensor.data.size) {
    return std::nullopt;
  }
  return owner->tensor;
}

std::string check_compact_marks(const IrModel& model, std::ptrdiff_t& index) {
  const IrGraph& graph = model.graph;
  index = -1;
  for (std::size_t i = 0; i < graph.initializers.size(); ++i) {
    const IrTensor& t = graph.initializers[i];
    if (!t.compact) continue;
    index = static_cast<std::ptrdiff_t>(i);
    if (t.data_type != kFloat16 && t.data_type != kBFloat16) {
      return "initializer '" + t.name + "' is marked compact but is not float16 or bfloat16";
    }
    const IrValue* value = value_of(graph, t.name);
    if (value == nullptr || value->source != IrValue::Source::Initializer || is_graph_output(graph, t.name) ||
        !read_only_as_weight(graph, *value)) {
      return "initializer '" + t.name + "' is marked compact but is not read only as input 1 of MatMul, Gemm or Conv";
    }
  }
  index = -1;
  return "";
}

}  // namespace onemodel
