// Pad (spec/ops/shape-indexing.md section 4). pads = [begin_0 .. begin_{k-1}, end_0 .. end_{k-1}]
// for the listed axes (every axis unless an `axes` input is given, opset 18+); other axes get 0;
// a negative pad crops. Attributes before opset 11 (Pad_2: `pads`, `paddings` in opset 1, `value`),
// inputs from 11 (Pad_11: pads, optional constant_value, optional axes). Modes: constant (fill,
// default 0), edge (nearest edge element), reflect (mirror without repeating the edge, continued
// periodically with period 2*(n-1); an extent of 1 repeats its element), wrap (opset 19: negative
// pads crop first, then the kept part repeats with its own length as the period, as ONNX Runtime
// 1.31.1 does; spec/ops/shape-indexing.md section 4). A non-constant mode on an empty axis that
// needs elements, or wrap on an axis cropped to nothing that needs elements, is InvalidModel.
#include <cstring>

#include "core/graph/op_kernel.hpp"
#include "core/tensor/checked_math.hpp"
#include "reference/ops/axis_helpers.hpp"
#include "reference/ops/elementwise_dispatch.hpp"
#include "reference/ops/pad_geometry.hpp"
#include "reference/ops/strided_copy.hpp"

namespace onemodel {
namespace {

using namespace shape_ops;

class Pad final : public OpKernel {
 public:
  // Attribute form (opsets 1-10) when `attribute_pads` is set.
  // `strings`: the node's opset lets data be STRING (ONNX Pad 13 onward; spec/tensors.md section 8).
  Pad(PadMode mode, std::optional<std::vector<std::int64_t>> attribute_pads, double attribute_value, bool strings)
      : mode_(mode), attribute_pads_(std::move(attribute_pads)), attribute_value_(attribute_value) {
    string_elements = strings;
  }

  void infer(InferContext& context) const override {
    const NodeInfo& node = context.node();
    std::vector<std::int64_t> pads;
    std::vector<std::int64_t> axes;
    bool has_axes = false;
    if (attribute_pads_) {
      pads = *attribute_pads_;
    } else {
      const Tensor* p = value_or_defer(context, 1);
      const Tensor* a = context.has_input(3) ? value_or_defer(context, 3) : nullptr;
      if (p == nullptr || (context.has_input(3) && a == nullptr)) return;
      pads = read_ints(node, *p, "pads");
      if (a != nullptr) {
        axes = read_ints(node, *a, "axes");
        has_axes = true;
      }
    }
    const Shape& in = context.input_shape(0);
    const std::span<const std::int64_t> axes_view(axes);
    const PadSpec spec = resolve_pads(node, in.rank(), pads, has_axes ? &axes_view : nullptr);
    std::vector<std::int64_t> out;
    for (int d = 0; d < in.rank(); ++d) {
      // Pads are any int64: the sum is checked (INT64_MAX pads must not wrap into a small extent).
      const auto grown = detail::checked_add(in[d], spec.begin[static_cast<std::size_t>(d)]);
      const auto total = grown ? detail::checked_add(*grown, spec.end[static_cast<std::size_t>(d)]) : grown;
      if (!total) node.fail_unsupported("pads on axis " + std::to_string(d) + " beyond the library's limits");
      const std::int64_t e = *total;
      if (e < 0) node.fail_invalid("pads crop axis " + std::to_string(d) + " below zero");
      // run() reads output coordinate i at i - begin for i in [0, e): both ends must be int64 too.
      // A begin pad near INT64_MIN with an end pad near INT64_MAX sums to a small extent, yet
      // i - begin wrapped (spec/operator-contract.md section 6).
      if (e > 0 && (!detail::checked_sub(0, spec.begin[static_cast<std::size_t>(d)]) ||
                    !detail::checked_sub(e - 1, spec.begin[static_cast<std::size_t>(d)]))) {
        node.fail_unsupported("pads on axis " + std::to_string(d) + " beyond the library's limits");
      }
      if (in[d] == 0 && e > 0 && mode_ != PadMode::Constant) node.fail_invalid("non-constant mode on an empty axis");
      if (mode_ == PadMode::Wrap && e > 0 &&
          wrap_kept(in[d], spec.begin[static_cast<std::size_t>(d)], spec.end[static_cast<std::size_t>(d)]) <= 0) {
        node.fail_invalid("wrap on axis " + std::to_string(d) + " cropped to nothing by negative pads");
      }
      out.push_back(e);
    }
    context.set_output(0, context.input_type(0), make_shape(node, out));
  }

  void run(RunContext& context) const override {
    const NodeInfo& node = context.node();
    const Tensor data = context.input(0).contiguous();
    const Tensor& out = context.output(0);
    std::vector<std::int64_t> pads;
    std::vector<std::int64_t> axes;
    const bool has_axes = !attribute_pads_ && context.has_input(3);
    if (attribute_pads_) {
      pads = *attribute_pads_;
    } else {
      pads = read_ints(node, context.input(1), "pads");
      if (has_axes) axes = read_ints(node, context.input(3), "axes");
    }
    const std::span<const std::int64_t> axes_view(axes);
    const PadSpec spec = resolve_pads(node, data.rank(), pads, has_axes ? &axes_view : nullptr);
    const std::vector<std::int64_t> strides = row_major_strides(data.shape());
    // Calls put(flat, from) for every output element: `from` the data element it reads, or -1 for
    // the fill value (constant mode).
    const auto each_source = [&](auto&& put) {
      for_each_index(out.shape(), [&](const auto& index, std::int64_t flat) {
        std::int64_t from = 0;
        for (int d = 0; d < data.rank(); ++d) {
          const std::size_t k = static_cast<std::size_t>(d);
          const std::int64_t c =
              source_coordinate(mode_, index[k] - spec.begin[k], data.shape()[d], spec.begin[k], spec.end[k]);
          if (c < 0) return put(flat, std::int64_t{-1});
          from += c * strides[static_cast<std::size_t>(d)];
        }
        put(flat, from);
      });
    };
    if (data.dtype() == DType::String) {
      // STRING elements are assigned (spec/tensors.md section 8); the fill is constant_value's
      // first element, else the empty string (ONNX Pad 13: "by default it is 0, empty string or False").
      const std::string fill = fill_string(context);
      const std::span<const std::string> src = data.data<std::string>();
      const std::span<std::string> dst = out.mutable_data<std::string>();
      each_source([&](std::int64_t flat, std::int64_t from) {
        dst[static_cast<std::size_t>(flat)] = from < 0 ? fill : src[static_cast<std::size_t>(from)];
      });
      return;
    }
    const std::size_t esize = dtype_size(data.dtype());
    const std::vector<std::byte> fill = fill_bytes(context, data.dtype(), esize);
    std::span<const std::byte> src = tensor_bytes(data);
    std::span<std::byte> dst = mutable_tensor_bytes(out);
    each_source([&](std::int64_t flat, std::int64_t from) {
      if (from < 0) {
        std::memcpy(dst.data() + static_cast<std::size_t>(flat) * esize, fill.data(), esize);
      } else {
        move_element(dst, flat, src, from, esize);
      }
    });
  }

 private:
  // The constant-mode value for STRING data (opset 13 on: inputs only).
  static std::string fill_string(const RunContext& context) {
    if (!context.has_input(2)) return {};
    const Tensor& v = context.input(2);
    if (v.dtype() != DType::String) context.node().fail_invalid("constant_value differs in type from data");
    if (v.element_count() < 1) return {};
    return v.contiguous().data<std::string>()[0];
  }

  // The constant-mode value as element bytes: the constant_value input (its first element), or the
  // attribute `value` converted to the element type, or zero.
  std::vector<std::byte> fill_bytes(const RunContext& context, DType type, std::size_t esize) const {
    std::vector<std::byte> bytes(esize, std::byte{0});
    if (!attribute_pads_) {
      if (context.has_input(2)) {
        const Tensor& v = context.input(2);
        if (v.dtype() != type) context.node().fail_invalid("constant_value differs in type from data");
        if (v.element_count() >= 1) {
          const Tensor first = v.contiguous();
          std::memcpy(bytes.data(), tensor_bytes(first).data(), esize);
        }
      }
      return bytes;
    }
    ew::dispatch(type, ew::StoredTypes{}, [&](auto tag) {
      using E = decltype(tag);
      const typename E::storage s = E::store(static_cast<typename E::value>(attribute_value_));
      std::memcpy(bytes.data(), &s, esize);
    });
    return bytes;
  }

  PadMode mode_;
  std::optional<std::vector<std::int64_t>> attribute_pads_;
  double attribute_value_;
};

}  // namespace

std::unique_ptr<OpKernel> make_pad_2(const NodeInfo& node) {
  const char* name = node.opset() < 2 ? "paddings" : "pads";
  if (!node.has(name)) node.fail_invalid(std::string("attribute '") + name + "' is required");
  return std::make_unique<Pad>(parse_mode(node), node.get_ints(name), node.get_float("value", 0.0f), false);
}

std::unique_ptr<OpKernel> make_pad_11(const NodeInfo& node) {
  return std::make_unique<Pad>(parse_mode(node), std::nullopt, 0.0, node.opset() >= 13);
}

}  // namespace onemodel
