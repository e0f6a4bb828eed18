// Pad (spec/ops/shape-indexing.md section 4). pads = [begin_0 .. begin_{k-1}, end_0 .. end_{k-1}]
// for the listed axes (every axis unless an `axes` input is given, opset 18+); other axes get 0;
// a negative pad crops. Attributes before opset 11 (Pad_2: `pads`, `paddings` in opset 1, `value`),
// inputs from 11 (Pad_11: pads, optional constant_value, optional axes). Modes: constant (fill,
// default 0), edge (nearest edge element), reflect (mirror without repeating the edge, continued
// periodically with period 2*(n-1); an extent of 1 repeats its element), wrap (opset 19: negative
// pads crop first, then the kept part repeats with its own length as the period, as ONNX Runtime
// 1.31.1 does; spec/ops/shape-indexing.md section 4). A non-constant mode on an empty axis that
// needs elements, or wrap on an axis cropped to nothing that needs elements, is InvalidModel.
#include <array>
#include <cstring>
#include <span>

#include "core/graph/op_kernel.hpp"
#include "core/tensor/checked_math.hpp"
#include "reference/ops/axis_helpers.hpp"
#include "reference/ops/elementwise_dispatch.hpp"
#include "reference/ops/strided_copy.hpp"

namespace onemodel {
namespace {

using namespace shape_ops;

constexpr std::size_t kMaxElementBytes = 8;  // the widest stored element (int64, uint64, double)

enum class PadMode { Constant, Edge, Reflect, Wrap };

std::int64_t positive_mod(std::int64_t a, std::int64_t m) {
  const std::int64_t r = a % m;
  return r < 0 ? r + m : r;
}

// The part of an axis of extent n that a wrap repeats: negative pads crop [crop_begin, n - crop_end)
// first (spec/ops/shape-indexing.md section 4, from ONNX Runtime 1.31.1).
// A negative pad's crop, at most n + 1 (pads come from the file: -INT64_MIN would overflow, and any
// crop beyond n leaves nothing either way).
std::int64_t wrap_crop(std::int64_t pad, std::int64_t n) { return pad >= 0 ? 0 : (pad < -n ? n + 1 : -pad); }
std::int64_t wrap_kept(std::int64_t n, std::int64_t begin, std::int64_t end) {
  return n - wrap_crop(begin, n) - wrap_crop(end, n);
}

// The input coordinate an output coordinate reads on one axis of extent n with pads begin and
// end, or -1 for the fill value (constant mode). `i` is the output coordinate minus the begin pad.
std::int64_t source_coordinate(PadMode mode, std::int64_t i, std::int64_t n, std::int64_t begin, std::int64_t end) {
  if (mode == PadMode::Wrap) {
    // Period = the kept extent m (> 0 whenever an element is read: infer refuses the rest); the
    // kept part starts at crop_begin. With no negative pad this is i mod n.
    const std::int64_t crop_begin = wrap_crop(begin, n);
    const std::int64_t kept = wrap_kept(n, begin, end);
    return kept <= 0 ? -1 : crop_begin + positive_mod(i - crop_begin, kept);
  }
  if (i >= 0 && i < n) return i;
  switch (mode) {
    case PadMode::Constant: return -1;
    case PadMode::Edge: return i < 0 ? 0 : n - 1;
    case PadMode::Wrap: return -1;  // handled above
    case PadMode::Reflect: {
      if (n == 1) return 0;
      const std::int64_t period = 2 * (n - 1);
      const std::int64_t j = positive_mod(i, period);
      return j < n ? j : period - j;
    }
  }
  return -1;
}

struct PadSpec {
  std::array<std::int64_t, kMaxRank> begin{}, end{};  // per axis of the data (rank <= kMaxRank)
};

PadSpec resolve_pads(const NodeInfo& node, int rank, std::span<const std::int64_t> pads,
                     const std::span<const std::int64_t>* axes) {
  PadSpec spec;
  // Every axis is listed at most once, so at most rank of them.
  std::array<int, kMaxRank> listed{};
  std::size_t k = 0;
  if (axes != nullptr) {
    std::array<bool, kMaxRank> seen{};
    for (std::int64_t a : *axes) {
      const int axis = normalize_axis(node, a, rank);
      if (seen[static_cast<std::size_t>(axis)]) node.fail_invalid("axis listed twice");
      seen[static_cast<std::size_t>(axis)] = true;
      listed[k++] = axis;
    }
  } else {
    for (int d = 0; d < rank; ++d) listed[k++] = d;
  }
  if (pads.size() != 2 * k) node.fail_invalid("pads has " + std::to_string(pads.size()) + " entries, expected " + std::to_string(2 * k));
  for (std::size_t i = 0; i < k; ++i) {
    spec.begin[static_cast<std::size_t>(listed[i])] = pads[i];
    spec.end[static_cast<std::size_t>(listed[i])] = pads[k + i];
  }
  return spec;
}

class Pad final : public OpKernel {
 public:
  // Attribute form (opsets 1-10) when `attribute_pads` is set.
  Pad(PadMode mode, std::optional<std::vector<std::int64_t>> attribute_pads, double attribute_value)
      : mode_(mode), attribute_pads_(std::move(attribute_pads)), attribute_value_(attribute_value) {}

  void infer(InferContext& context) const override {
    const NodeInfo& node = context.node();
    IntValues pad_values, axis_values;
    std::span<const std::int64_t> pads, axes;
    bool has_axes = false;
    if (attribute_pads_) {
      pads = *attribute_pads_;
    } else {
      const Tensor* p = value_or_defer(context, 1);
      const Tensor* a = context.has_input(3) ? value_or_defer(context, 3) : nullptr;
      if (p == nullptr || (context.has_input(3) && a == nullptr)) return;
      pad_values.read(node, *p, "pads");
      pads = pad_values.span();
      if (a != nullptr) {
        axis_values.read(node, *a, "axes");
        axes = axis_values.span();
        has_axes = true;
      }
    }
    const Shape& in = context.input_shape(0);
    const PadSpec spec = resolve_pads(node, in.rank(), pads, has_axes ? &axes : nullptr);
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
    IntValues pad_values, axis_values;
    std::span<const std::int64_t> pads, axes;
    const bool has_axes = !attribute_pads_ && context.has_input(3);
    if (attribute_pads_) {
      pads = *attribute_pads_;
    } else {
      pad_values.read(node, context.input(1), "pads");
      pads = pad_values.span();
      if (has_axes) {
        axis_values.read(node, context.input(3), "axes");
        axes = axis_values.span();
      }
    }
    const PadSpec spec = resolve_pads(node, data.rank(), pads, has_axes ? &axes : nullptr);
    const std::size_t esize = dtype_size(data.dtype());
    const std::array<std::byte, kMaxElementBytes> fill = fill_bytes(context, data.dtype(), esize);
    // Row-major strides of the data, in elements.
    std::array<std::int64_t, kMaxRank> strides{};
    std::int64_t stride = 1;
    for (int d = data.rank() - 1; d >= 0; --d) {
      strides[static_cast<std::size_t>(d)] = stride;
      stride *= data.shape()[d];
    }
    std::span<const std::byte> src = tensor_bytes(data);
    std::span<std::byte> dst = mutable_tensor_bytes(out);
    for_each_index(out.shape(), [&](const auto& index, std::int64_t flat) {
      std::int64_t from = 0;
      for (int d = 0; d < data.rank(); ++d) {
        const std::size_t k = static_cast<std::size_t>(d);
        const std::int64_t c =
            source_coordinate(mode_, index[k] - spec.begin[k], data.shape()[d], spec.begin[k], spec.end[k]);
        if (c < 0) {
          std::memcpy(dst.data() + static_cast<std::size_t>(flat) * esize, fill.data(), esize);
          return;
        }
        from += c * strides[static_cast<std::size_t>(d)];
      }
      move_element(dst, flat, src, from, esize);
    });
  }

 private:
  // The constant-mode value as element bytes: the constant_value input (its first element), or the
  // attribute `value` converted to the element type, or zero.
  std::array<std::byte, kMaxElementBytes> fill_bytes(const RunContext& context, DType type, std::size_t esize) const {
    std::array<std::byte, kMaxElementBytes> bytes{};  // esize <= 8 bytes for every stored type
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

PadMode parse_mode(const NodeInfo& node) {
  const std::string mode = node.get_string("mode", "constant");
  if (mode == "constant") return PadMode::Constant;
  if (mode == "edge") return PadMode::Edge;
  if (mode == "reflect") return PadMode::Reflect;
  if (mode == "wrap" && node.opset() >= 19) return PadMode::Wrap;
  node.fail_invalid("mode '" + mode + "'");
}

}  // namespace

std::unique_ptr<OpKernel> make_pad_2(const NodeInfo& node) {
  const char* name = node.opset() < 2 ? "paddings" : "pads";
  if (!node.has(name)) node.fail_invalid(std::string("attribute '") + name + "' is required");
  return std::make_unique<Pad>(parse_mode(node), node.get_ints(name), node.get_float("value", 0.0f));
}

std::unique_ptr<OpKernel> make_pad_11(const NodeInfo& node) {
  return std::make_unique<Pad>(parse_mode(node), std::nullopt, 0.0);
}

}  // namespace onemodel
