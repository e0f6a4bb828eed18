// The shared shape of the float32 Reduce* overrides (op_reduce_<name>.cpp): the axes and geometry
// of reference/ops/reduce_helpers.hpp (spec/ops/norms.md section 6) and the kernels of
// optimized/kernels/reduce/. After extent-1 dimensions are dropped, geometries of the form
// (kept) x (reduced) x (kept), each part possibly empty, run the kernel: row layout (canonical
// 16-partial sum) when nothing is kept after the reduced run, column layout (sequential from +0)
// otherwise: exactly the reference's orders, so the bits are the reference's in both modes.
// Other element types, strided inputs and reduced runs separated by kept ones run the reference.
#pragma once

#include <cmath>
#include <cstdint>

#include "optimized/kernels/reduce/reduce.hpp"
#include "optimized/ops/optimized_kernel.hpp"
#include "reference/math/exact_math.hpp"
#include "reference/ops/reduce_helpers.hpp"

namespace onemodel::opt {

// Finishing of an output from its sum (or extreme) and its number of terms.
enum class ReduceFinish { None, Mean, Sqrt, Log };

class ReduceF32Override final : public OptimizedKernel {
 public:
  ReduceF32Override(const NodeInfo& node, const OptimizedConfig& config, reduce::AxesFrom from, ReduceKind kind,
                    ReduceTerm term, ReduceFinish finish)
      : OptimizedKernel(node, config), options_(reduce::read_options(node, from)), kind_(kind), term_(term),
        finish_(finish) {}

  void run(RunContext& context) const override {
    const Tensor& x = context.input(0);
    if (x.dtype() != DType::F32 || !x.is_contiguous()) return run_reference(context);
    const Shape& shape = x.shape();
    bool flags[kMaxRank] = {};
    if (!reduced_flags(context, shape.rank(), flags)) return run_reference(context);
    // (kept) x (reduced) x (kept) after dropping extent-1 dimensions.
    std::int64_t outer = 1, reduced = 1, inner = 1;
    int phase = 0;  // 0: leading kept, 1: reduced, 2: trailing kept
    for (int d = 0; d < shape.rank(); ++d) {
      const std::int64_t e = shape[d];
      if (e == 1) continue;
      const bool r = flags[d];
      if (r) {
        if (phase == 2) return run_reference(context);  // a second reduced run
        phase = 1;
        reduced *= e;
      } else if (phase == 0) {
        outer *= e;
      } else {
        phase = 2;
        inner *= e;
      }
    }
    const Tensor& y = context.output(0);
    if (y.element_count() == 0) return;
    float* out = y.mutable_data<float>().data();
    reduce_f32(kernel_context(context), kind_, term_, x.data<float>().data(), out, static_cast<std::size_t>(outer),
               static_cast<std::size_t>(reduced), static_cast<std::size_t>(inner));
    // spec/ops/norms.md section 6, "Terms and finishing"; every NaN stored canonical.
    const std::size_t outputs = static_cast<std::size_t>(outer * inner);
    const float count = static_cast<float>(reduced);
    for (std::size_t o = 0; o < outputs; ++o) {
      float v = out[o];
      if (finish_ == ReduceFinish::Mean) v = reduced == 0 ? 0.0f : v / count;
      else if (finish_ == ReduceFinish::Sqrt) v = std::sqrt(v);
      else if (finish_ == ReduceFinish::Log) v = exact::log(v);  // the library's log
      out[o] = canonical_nan_f32(v);
    }
  }

 private:
  static constexpr int kMaxRank = 16;

  // The reduced axes of spec/ops/norms.md section 6 ("Axes") without allocating: the attribute or
  // the int64 input; empty means every axis, or none with noop_with_empty_axes. Returns false for
  // anything unusual (out-of-range or repeated axes, other index types, high ranks): the reference
  // then runs and reports the error exactly as it does.
  bool reduced_flags(const RunContext& context, int rank, bool* flags) const {
    if (rank > kMaxRank) return false;
    const std::int64_t* axes = options_.attribute_axes.data();
    std::size_t count = options_.attribute_axes.size();
    if (options_.from == reduce::AxesFrom::Input) {
      count = 0;
      if (context.has_input(1)) {
        const Tensor& a = context.input(1);
        if (a.dtype() != DType::I64 || !a.is_contiguous()) return false;
        axes = a.data<std::int64_t>().data();
        count = static_cast<std::size_t>(a.element_count());
      }
    }
    if (count == 0) {
      for (int d = 0; d < rank; ++d) flags[d] = !options_.noop_with_empty_axes;
      return true;
    }
    for (std::size_t i = 0; i < count; ++i) {
      const std::int64_t v = axes[i];
      if (v < -rank || v >= rank) return false;
      const int d = static_cast<int>(v < 0 ? v + rank : v);
      if (flags[d]) return false;
      flags[d] = true;
    }
    return true;
  }

  reduce::Options options_;
  ReduceKind kind_;
  ReduceTerm term_;
  ReduceFinish finish_;
};

}  // namespace onemodel::opt
