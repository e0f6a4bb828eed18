// The axis and keepdims walk shared by the Reduce* operators (spec/ops/norms.md section 6), and
// the generic kernels built on it. Each Reduce* operator file supplies its terms and finishing
// (a small descriptor struct) and its opset variants.
//
// Order (normative in exact mode, spec/ops/norms.md section 6, "Geometry"): each output reduces
// the sequence of its reduced index tuples in row-major order. Sums are sequential from +0 when
// the last run of the merged geometry is kept (column layout) and the canonical 16-partial sum over
// the sequence when it is reduced (row layout); products multiply sequentially from 1; maxima and
// minima scan sequentially.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "core/graph/op_kernel.hpp"
#include "onemodel/session_error.hpp"
#include "reference/ops/canonical_sum.hpp"
#include "reference/ops/norm_helpers.hpp"

namespace onemodel::reduce {

// Where the axes come from: the `axes` attribute (older opsets) or the optional second input.
enum class AxesFrom { Attribute, Input };

struct Options {
  AxesFrom from = AxesFrom::Attribute;
  std::vector<std::int64_t> attribute_axes;
  bool keepdims = true;
  bool noop_with_empty_axes = false;
};

// Reads keepdims, noop_with_empty_axes (input form only) and the axes attribute (attribute form).
Options read_options(const NodeInfo& node, AxesFrom from);

// The geometry of one reduction: input extents and strides split into kept and reduced
// dimensions (in input order), the output shape, and the layout.
struct Plan {
  Shape output_shape;
  std::vector<std::int64_t> kept_extents, kept_strides;
  std::vector<std::int64_t> reduced_extents, reduced_strides;
  std::int64_t terms = 1;   // elements per output (product of the reduced extents)
  bool row_layout = false;  // the last run of the merged geometry is reduced
};

// The reduced-axis flags from explicit axes (negative counted from the end; out of range or
// repeated is InvalidModel for attributes and InvalidInput for input values), or every axis when
// `axes` is empty, or none when it is empty and noop_with_empty_axes is set.
std::vector<bool> reduced_flags(const NodeInfo& node, const std::vector<std::int64_t>& axes, int rank,
                                bool noop_with_empty_axes, bool from_input);

Plan make_plan(const Shape& input, const std::vector<bool>& reduced, bool keepdims);

// The axes in force: the attribute, or the values of input 1 (absent: empty). Returns false when
// the input's value is not known yet (infer then asks for run-time values).
bool current_axes(const NodeInfo& node, const Options& options, const Tensor* axes_input, bool has_axes_input,
                  std::vector<std::int64_t>& axes);

// Calls f(output_index, base_offset) for every output in row-major order.
template <class F>
void for_each_output(const Plan& plan, F&& f) {
  const std::int64_t outputs = plan.output_shape.element_count();
  const std::size_t k = plan.kept_extents.size();
  std::vector<std::int64_t> index(k, 0);
  std::int64_t base = 0;
  for (std::int64_t o = 0; o < outputs; ++o) {
    f(o, base);
    for (std::size_t d = k; d-- > 0;) {
      base += plan.kept_strides[d];
      if (++index[d] < plan.kept_extents[d]) break;
      base -= plan.kept_strides[d] * plan.kept_extents[d];
      index[d] = 0;
    }
  }
}

// Calls g(offset) for every term of the output at `base`, reduced tuples in row-major order.
template <class G>
void for_each_term(const Plan& plan, std::int64_t base, G&& g) {
  // A fixed array, not a vector: a plan has at most kMaxRank reduced dimensions, and GCC 12 at -O3
  // reported a false -Wfree-nonheap-object on the vector once the float64 instantiations came in.
  const std::size_t r = plan.reduced_extents.size();
  std::array<std::int64_t, kMaxRank> index{};
  std::int64_t offset = base;
  for (std::int64_t q = 0; q < plan.terms; ++q) {
    g(offset);
    for (std::size_t d = r; d-- > 0;) {
      offset += plan.reduced_strides[d];
      if (++index[d] < plan.reduced_extents[d]) break;
      offset -= plan.reduced_strides[d] * plan.reduced_extents[d];
      index[d] = 0;
    }
  }
}

// ---- arithmetic of the element types (spec/ops/norms.md section 6, "Other types") ----

// Integers wrap around (computed modulo 2^64, then narrowed: C++20 conversions are modular).
template <class T>
T add(T a, T b) noexcept {
  if constexpr (std::is_floating_point_v<T>) return a + b;
  else return static_cast<T>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}
template <class T>
T mul(T a, T b) noexcept {
  if constexpr (std::is_floating_point_v<T>) return a * b;
  else return static_cast<T>(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b));
}
// |x|; the minimum signed value wraps to itself.
template <class T>
T absolute(T x) noexcept {
  if constexpr (std::is_floating_point_v<T>) return std::fabs(x);
  else if constexpr (std::is_unsigned_v<T>) return x;
  else return x < 0 ? static_cast<T>(std::uint64_t{0} - static_cast<std::uint64_t>(x)) : x;
}
template <class T>
T store_value(T v) noexcept {
  if constexpr (std::is_floating_point_v<T>) return norms::store(v);
  else return v;
}

// The element types of spec/ops/norms.md section 1 for the Reduce family, and the float subsets.
inline std::vector<DType> all_types() {
  return {DType::F32, DType::F64, DType::I32, DType::I64, DType::U32, DType::U64, DType::I8, DType::U8};
}
inline std::vector<DType> float_types() { return {DType::F32, DType::F64}; }
inline std::vector<DType> f32_only() { return {DType::F32}; }
// ReduceMax and ReduceMin from opset 20 also take bool (spec/ops/norms.md section 6).
inline std::vector<DType> all_types_and_bool() {
  std::vector<DType> types = all_types();
  types.push_back(DType::Bool);
  return types;
}

// Calls f(T{}) with T the storage type of `type` (one of all_types()).
template <class F>
void dispatch(DType type, F&& f) {
  switch (type) {
    case DType::F32: f(float{}); break;
    case DType::F64: f(double{}); break;
    case DType::I32: f(std::int32_t{}); break;
    case DType::I64: f(std::int64_t{}); break;
    case DType::U32: f(std::uint32_t{}); break;
    case DType::U64: f(std::uint64_t{}); break;
    case DType::I8: f(std::int8_t{}); break;
    case DType::U8: f(std::uint8_t{}); break;
    default: throw SessionError(SessionErrorKind::Unsupported, "element type not handled");
  }
}

// The part every Reduce* kernel shares: reading the axes and stating the output.
class ReduceKernelBase : public OpKernel {
 public:
  ReduceKernelBase(Options options, std::vector<DType> types) : options_(std::move(options)), types_(std::move(types)) {}

  void infer(InferContext& context) const override;

 protected:
  // The plan for the input and axes of this run.
  Plan plan_for(const RunContext& context) const;

 private:
  Options options_;
  std::vector<DType> types_;
};

// A signed 128-bit integer (GCC and Clang on every target the library builds for): the exact sum of
// up to 2^31 integer elements of at most 64 bits never overflows it.
__extension__ typedef __int128 ExactIntegerSum;

// Sums (Sum, Mean, L1, L2, SumSquare, LogSum): Op::term<T>(x) is added, then
// Op::finish<T>(sum, count) gives the output. Sequential from +0 in the column layout, the
// canonical sum in the row layout (integers: sequential, the order cannot matter for wrapping sums).
// An Op declaring kExactIntegerSum (Mean) gets integer elements summed exactly instead, without
// wrapping, and finishes them with Op::finish_exact<T>(sum, count).
template <class Op>
concept HasExactIntegerSum = requires { Op::kExactIntegerSum; };
// Named through T so that the lookup waits for an instantiation that uses it.
template <class Op, class T>
T finish_exact_of(ExactIntegerSum sum, std::int64_t count) noexcept {
  return Op::template finish_exact<T>(sum, count);
}
template <class Op>
class SumKernel final : public ReduceKernelBase {
 public:
  using ReduceKernelBase::ReduceKernelBase;
  void run(RunContext& context) const override {
    const Plan plan = plan_for(context);
    const Tensor x = context.input(0).contiguous();
    dispatch(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* in = x.data<T>().data();
      T* out = context.output(0).mutable_data<T>().data();
      for_each_output(plan, [&](std::int64_t o, std::int64_t base) {
        T sum{};  // +0
        bool summed = false;
        if constexpr (std::is_floating_point_v<T>) {
          if (plan.row_layout) {
            CanonicalSum16<T> canonical;
            for_each_term(plan, base, [&](std::int64_t i) { canonical.add(Op::term(in[i])); });
            sum = canonical.result();
            summed = true;
          }
        }
        if constexpr (!std::is_floating_point_v<T> && HasExactIntegerSum<Op>) {
          ExactIntegerSum exact = 0;
          for_each_term(plan, base, [&](std::int64_t i) { exact += static_cast<ExactIntegerSum>(in[i]); });
          out[o] = finish_exact_of<Op, T>(exact, plan.terms);
          return;
        }
        if (!summed) {
          for_each_term(plan, base, [&](std::int64_t i) { sum = add(sum, Op::term(in[i])); });
        }
        out[o] = store_value(Op::finish(sum, plan.terms));
      });
    });
  }
};

// Products (ReduceProd): sequential from 1.
class ProdKernel final : public ReduceKernelBase {
 public:
  using ReduceKernelBase::ReduceKernelBase;
  void run(RunContext& context) const override;
};

// Maxima and minima: a sequential scan; the running value starts as the first element and is
// replaced only by a strictly better one (NaN is ignored unless first). Empty: -inf / +inf
// (integers: the lowest / highest value). bool is scanned as the bytes 0 and 1 (any nonzero byte
// read as 1): the maximum is "any", the minimum "all"; empty gives false / true.
template <bool IsMax>
class ExtremeKernel final : public ReduceKernelBase {
 public:
  using ReduceKernelBase::ReduceKernelBase;
  void run(RunContext& context) const override {
    const Plan plan = plan_for(context);
    const Tensor x = context.input(0).contiguous();
    if (x.dtype() == DType::Bool) {
      const std::uint8_t* in = x.data<std::uint8_t>().data();
      std::uint8_t* out = context.output(0).mutable_data<std::uint8_t>().data();
      for_each_output(plan, [&](std::int64_t o, std::int64_t base) {
        std::uint8_t best = IsMax ? 0 : 1;
        for_each_term(plan, base, [&](std::int64_t i) {
          const std::uint8_t v = in[i] != 0 ? 1 : 0;
          if (IsMax ? v > best : v < best) best = v;
        });
        out[o] = best;
      });
      return;
    }
    dispatch(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* in = x.data<T>().data();
      T* out = context.output(0).mutable_data<T>().data();
      for_each_output(plan, [&](std::int64_t o, std::int64_t base) {
        T best{};
        if constexpr (std::numeric_limits<T>::has_infinity) {
          best = IsMax ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
        } else {
          best = IsMax ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
        }
        bool first = true;
        for_each_term(plan, base, [&](std::int64_t i) {
          const T v = in[i];
          if (first || (IsMax ? v > best : v < best)) best = v;
          first = false;
        });
        out[o] = store_value(best);
      });
    });
  }
};

}  // namespace onemodel::reduce

namespace onemodel::reduce {

// A Reduce* kernel of type K serving `types`, its axes from the attribute or the input.
template <class K>
std::unique_ptr<OpKernel> make_kernel(const NodeInfo& node, AxesFrom from, std::vector<DType> types) {
  return std::make_unique<K>(read_options(node, from), std::move(types));
}

}  // namespace onemodel::reduce
