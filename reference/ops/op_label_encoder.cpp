// LabelEncoder (ai.onnx.ml, versions 1, 2 and 4): each element looked up among keys and replaced
// by the parallel value, or by the default when absent (spec/ops/ml.md section 4).
//
// Version 1: `classes_strings` with `default_int64` maps strings to their index (the first one
// found), with `default_string` maps int64 indexes to strings. Versions 2 and 4: one keys_* and
// one values_* attribute of equal length (version 4 adds keys_tensor, values_tensor and
// default_tensor, and the types int32, int16 and double); a repeated key maps to its last value.
// Float keys: version 2 compares bits; version 4 matches every NaN to a NaN key and -0 to +0.
// Lookups and copies only: exact.
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/graph/node_info.hpp"
#include "core/graph/op_kernel.hpp"
#include "core/graph/tensor_bytes.hpp"

namespace onemodel {
namespace {

bool label_type(DType t) noexcept {
  return t == DType::String || t == DType::I64 || t == DType::F32 || t == DType::I32 || t == DType::I16 ||
         t == DType::F64;
}

// The lookup key of one element: its bytes, floats normalised for version 4.
std::string numeric_key(DType type, const std::byte* p, bool value_equality) {
  if (type == DType::F32 && value_equality) {
    float v;
    std::memcpy(&v, p, 4);
    if (std::isnan(v)) v = std::numeric_limits<float>::quiet_NaN();
    if (v == 0.0f) v = 0.0f;
    std::string key(4, '\0');
    std::memcpy(key.data(), &v, 4);
    return key;
  }
  if (type == DType::F64 && value_equality) {
    double v;
    std::memcpy(&v, p, 8);
    if (std::isnan(v)) v = std::numeric_limits<double>::quiet_NaN();
    if (v == 0.0) v = 0.0;
    std::string key(8, '\0');
    std::memcpy(key.data(), &v, 8);
    return key;
  }
  const std::size_t size = dtype_size(type);
  return std::string(reinterpret_cast<const char*>(p), size);
}

std::vector<std::string> keys_of(const Tensor& t, bool value_equality) {
  if (t.dtype() == DType::String) return t.to_vector<std::string>();
  const Tensor dense = t.contiguous();
  const std::span<const std::byte> bytes = tensor_bytes(dense);
  const std::size_t size = dtype_size(t.dtype());
  std::vector<std::string> keys(static_cast<std::size_t>(t.element_count()));
  for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = numeric_key(t.dtype(), bytes.data() + i * size, value_equality);
  return keys;
}

class LabelEncoder final : public OpKernel {
 public:
  // `values` holds one more element than `keys`: the default, last.
  LabelEncoder(const Tensor& keys, Tensor values, bool last_wins, bool value_equality)
      : key_type_(keys.dtype()), values_(std::move(values)), value_equality_(value_equality) {
    string_elements = true;
    const std::vector<std::string> list = keys_of(keys, value_equality);
    for (std::size_t k = 0; k < list.size(); ++k) {
      if (last_wins) index_.insert_or_assign(list[k], k);
      else index_.emplace(list[k], k);
    }
    default_index_ = list.size();
  }
  void infer(InferContext& context) const override {
    if (context.input_type(0) != key_type_) {
      context.node().fail_invalid("input 0 has element type " + std::string(dtype_name(context.input_type(0))) +
                                  ", the keys are " + std::string(dtype_name(key_type_)));
    }
    context.set_output(0, values_.dtype(), context.input_shape(0));
  }
  void run(RunContext& context) const override {
    const Tensor& out = context.output(0);
    const std::vector<std::string> keys = keys_of(context.input(0), value_equality_);
    std::vector<std::size_t> found(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
      const auto it = index_.find(keys[i]);
      found[i] = it == index_.end() ? default_index_ : it->second;
    }
    if (values_.dtype() == DType::String) {
      const std::span<const std::string> values = values_.data<std::string>();
      const std::span<std::string> y = out.mutable_data<std::string>();
      for (std::size_t i = 0; i < found.size(); ++i) y[i] = values[found[i]];
      return;
    }
    const std::span<const std::byte> values = tensor_bytes(values_);
    const std::span<std::byte> y = mutable_tensor_bytes(out);
    const std::size_t size = dtype_size(values_.dtype());
    for (std::size_t i = 0; i < found.size(); ++i) std::memcpy(y.data() + i * size, values.data() + found[i] * size, size);
  }

 private:
  DType key_type_;
  Tensor values_;
  bool value_equality_;
  std::unordered_map<std::string, std::size_t> index_;
  std::size_t default_index_ = 0;
};

Tensor int64_tensor(const std::vector<std::int64_t>& v) {
  const std::int64_t n = static_cast<std::int64_t>(v.size());
  return Tensor::from_values<std::int64_t>(DType::I64, Shape{n}, std::span<const std::int64_t>(v));
}
Tensor float_tensor(const std::vector<float>& v) {
  const std::int64_t n = static_cast<std::int64_t>(v.size());
  return Tensor::from_values<float>(DType::F32, Shape{n}, std::span<const float>(v));
}
Tensor string_tensor(const std::vector<std::string>& v) {
  const std::int64_t n = static_cast<std::int64_t>(v.size());
  return Tensor::from_strings(Shape{n}, v);
}

// `values` with `fallback` appended, as one contiguous 1-D tensor.
Tensor with_default(const Tensor& values, const Tensor& fallback) {
  const std::int64_t n = values.element_count();
  Tensor all = Tensor::empty(values.dtype(), Shape{n + 1});
  if (values.dtype() == DType::String) {
    const std::vector<std::string> v = values.to_vector<std::string>();
    const std::span<std::string> y = all.mutable_data<std::string>();
    for (std::size_t i = 0; i < v.size(); ++i) y[i] = v[i];
    y[v.size()] = fallback.to_vector<std::string>()[0];
    return all;
  }
  const std::size_t size = dtype_size(values.dtype());
  const std::span<std::byte> y = mutable_tensor_bytes(all);
  values.copy_to(y.first(static_cast<std::size_t>(n) * size));
  fallback.copy_to(y.subspan(static_cast<std::size_t>(n) * size, size));
  return all;
}

// The one keys_* (or values_*) attribute of versions 2 and 4, as a 1-D tensor.
Tensor one_list(const NodeInfo& node, const char* prefix, bool tensors) {
  const std::string p(prefix);
  int given = 0;
  Tensor result;
  if (node.has(p + "_strings")) {
    ++given;
    result = string_tensor(node.get_strings(p + "_strings", {}));
  }
  if (node.has(p + "_int64s")) {
    ++given;
    result = int64_tensor(node.get_ints(p + "_int64s", {}));
  }
  if (node.has(p + "_floats")) {
    ++given;
    result = float_tensor(node.get_floats(p + "_floats", {}));
  }
  if (tensors && node.has(p + "_tensor")) {
    ++given;
    result = *node.get_tensor(p + "_tensor");
    if (result.rank() != 1) node.fail_invalid(p + "_tensor must be 1-D, it is " + result.shape().to_string());
  }
  if (given != 1) node.fail_invalid("exactly one " + p + "_* attribute is required, found " + std::to_string(given));
  if (!label_type(result.dtype())) {
    node.fail_unsupported(p + " of element type " + std::string(dtype_name(result.dtype())));
  }
  return result;
}

// The default for values of `type`: default_tensor (version 4), else the default_* attribute of
// that type, else ONNX's: "_Unused", -1, -0.0f.
Tensor default_value(const NodeInfo& node, DType type, bool tensors) {
  if (tensors && node.has("default_tensor")) {
    Tensor d = *node.get_tensor("default_tensor");
    if (d.dtype() != type || d.element_count() != 1) {
      node.fail_invalid("default_tensor must hold one element of the values' type " + std::string(dtype_name(type)));
    }
    return d;
  }
  switch (type) {
    case DType::String: return string_tensor({node.get_string("default_string", "_Unused")});
    case DType::I64: return int64_tensor({node.get_int("default_int64", -1)});
    case DType::F32: return float_tensor({node.get_float("default_float", -0.0f)});
    default: break;
  }
  // int32, int16, double values come only from values_tensor; their default is ONNX's.
  Tensor d = Tensor::empty(type, Shape{1});
  if (type == DType::I32) d.mutable_data<std::int32_t>()[0] = -1;
  else if (type == DType::I16) d.mutable_data<std::int16_t>()[0] = -1;
  else d.mutable_data<double>()[0] = -0.0;
  return d;
}

}  // namespace

std::unique_ptr<OpKernel> make_label_encoder(const NodeInfo& node) {
  if (node.opset() == 1) {
    const std::vector<std::string> classes = node.get_strings("classes_strings", {});
    std::vector<std::int64_t> indexes(classes.size());
    for (std::size_t i = 0; i < indexes.size(); ++i) indexes[i] = static_cast<std::int64_t>(i);
    const bool to_int = node.has("default_int64");
    if (to_int == node.has("default_string")) {
      node.fail_invalid("exactly one of default_int64 and default_string is required");
    }
    if (to_int) {
      return std::make_unique<LabelEncoder>(string_tensor(classes),
                                            with_default(int64_tensor(indexes), int64_tensor({node.get_int("default_int64", -1)})),
                                            false, false);
    }
    return std::make_unique<LabelEncoder>(int64_tensor(indexes),
                                          with_default(string_tensor(classes), string_tensor({node.get_string("default_string", "")})),
                                          false, false);
  }
  const bool tensors = node.opset() >= 4;
  const Tensor keys = one_list(node, "keys", tensors);
  const Tensor values = one_list(node, "values", tensors);
  if (keys.element_count() != values.element_count()) {
    node.fail_invalid(std::to_string(keys.element_count()) + " keys and " + std::to_string(values.element_count()) +
                      " values");
  }
  return std::make_unique<LabelEncoder>(keys, with_default(values, default_value(node, values.dtype(), tensors)), true,
                                        tensors);
}

}  // namespace onemodel
