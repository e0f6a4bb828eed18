// spec/ops/norms.md section 6: axes, keepdims, noop_with_empty_axes and the reduction geometry.
#include "reference/ops/reduce_helpers.hpp"

#include <string>

#include "onemodel/session_error.hpp"

namespace onemodel::reduce {

Options read_options(const NodeInfo& node, AxesFrom from) {
  Options o;
  o.from = from;
  o.keepdims = node.get_int("keepdims", 1) != 0;
  if (from == AxesFrom::Attribute) {
    o.attribute_axes = node.get_ints("axes", {});
  } else {
    o.noop_with_empty_axes = node.get_int("noop_with_empty_axes", 0) != 0;
  }
  return o;
}

std::vector<bool> reduced_flags(const NodeInfo& node, const std::vector<std::int64_t>& axes, int rank,
                                bool noop_with_empty_axes, bool from_input) {
  // spec/ops/norms.md section 6, Axes: empty means every axis, or none with noop_with_empty_axes.
  if (axes.empty()) return std::vector<bool>(static_cast<std::size_t>(rank), !noop_with_empty_axes);
  auto fail = [&](const std::string& message) {
    if (from_input) throw SessionError(SessionErrorKind::InvalidInput, node.ir().op_type + ": " + message, node.name());
    node.fail_invalid(message);
  };
  std::vector<bool> flags(static_cast<std::size_t>(rank), false);
  for (std::int64_t a : axes) {
    if (a < -static_cast<std::int64_t>(rank) || a >= rank) {
      fail("axis " + std::to_string(a) + " outside [" + std::to_string(-rank) + ", " + std::to_string(rank) + ")");
    }
    const std::size_t d = static_cast<std::size_t>(a < 0 ? a + rank : a);
    if (flags[d]) fail("axis " + std::to_string(a) + " given twice");
    flags[d] = true;
  }
  return flags;
}

Plan make_plan(const Shape& input, const std::vector<bool>& reduced, bool keepdims) {
  Plan plan;
  const Strides strides = contiguous_strides(input);
  std::vector<std::int64_t> out_extents;
  for (int d = 0; d < input.rank(); ++d) {
    const std::size_t k = static_cast<std::size_t>(d);
    if (reduced[k]) {
      plan.reduced_extents.push_back(input[d]);
      plan.reduced_strides.push_back(strides[k]);
      plan.terms *= input[d];
      if (keepdims) out_extents.push_back(1);
    } else {
      plan.kept_extents.push_back(input[d]);
      plan.kept_strides.push_back(strides[k]);
      out_extents.push_back(input[d]);
    }
  }
  plan.output_shape = Shape(std::span<const std::int64_t>(out_extents.data(), out_extents.size()));
  // Geometry: extent-1 dimensions are dropped; the layout is that of the last remaining run.
  for (int d = input.rank() - 1; d >= 0; --d) {
    if (input[d] == 1) continue;
    plan.row_layout = reduced[static_cast<std::size_t>(d)];
    break;
  }
  return plan;
}

namespace {

std::vector<std::int64_t> read_axes(const NodeInfo& node, const Tensor& t) {
  std::vector<std::int64_t> out;
  if (t.dtype() == DType::I64) {
    out = t.to_vector<std::int64_t>();
  } else if (t.dtype() == DType::I32) {
    for (std::int32_t v : t.to_vector<std::int32_t>()) out.push_back(v);
  } else {
    throw SessionError(SessionErrorKind::InvalidInput, node.ir().op_type + ": axes must be int64", node.name());
  }
  return out;
}

}  // namespace

bool current_axes(const NodeInfo& node, const Options& options, const Tensor* axes_input, bool has_axes_input,
                  std::vector<std::int64_t>& axes) {
  if (options.from == AxesFrom::Attribute) {
    axes = options.attribute_axes;
    return true;
  }
  axes.clear();
  if (!has_axes_input) return true;
  if (axes_input == nullptr) return false;
  axes = read_axes(node, *axes_input);
  return true;
}

void ReduceKernelBase::infer(InferContext& context) const {
  // spec/ops/norms.md section 1: other element types are Unsupported, naming the operator.
  bool served = false;
  for (DType t : types_) served = served || t == context.input_type(0);
  if (!served) {
    throw SessionError(SessionErrorKind::Unsupported,
                       context.node().ir().op_type + ": input 0 has element type " +
                           std::string(dtype_name(context.input_type(0))) + ", which this operator does not support",
                       context.node().name());
  }
  const bool has_axes = options_.from == AxesFrom::Input && context.has_input(1);
  std::vector<std::int64_t> axes;
  if (!current_axes(context.node(), options_, has_axes ? context.input_value(1) : nullptr, has_axes, axes)) {
    context.require_runtime_values();
    return;
  }
  const Shape& shape = context.input_shape(0);
  const auto flags = reduced_flags(context.node(), axes, shape.rank(), options_.noop_with_empty_axes,
                                   options_.from == AxesFrom::Input);
  context.set_output(0, context.input_type(0), make_plan(shape, flags, options_.keepdims).output_shape);
}

Plan ReduceKernelBase::plan_for(const RunContext& context) const {
  const bool has_axes = options_.from == AxesFrom::Input && context.has_input(1);
  std::vector<std::int64_t> axes;
  (void)current_axes(context.node(), options_, has_axes ? &context.input(1) : nullptr, has_axes, axes);
  const Shape& shape = context.input(0).shape();
  const auto flags = reduced_flags(context.node(), axes, shape.rank(), options_.noop_with_empty_axes,
                                   options_.from == AxesFrom::Input);
  return make_plan(shape, flags, options_.keepdims);
}

void ProdKernel::run(RunContext& context) const {
  const Plan plan = plan_for(context);
  const Tensor x = context.input(0).contiguous();
  dispatch(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* in = x.data<T>().data();
    T* out = context.output(0).mutable_data<T>().data();
    for_each_output(plan, [&](std::int64_t o, std::int64_t base) {
      T product = static_cast<T>(1);
      for_each_term(plan, base, [&](std::int64_t i) { product = mul(product, in[i]); });
      out[o] = store_value(product);
    });
  });
}

}  // namespace onemodel::reduce
