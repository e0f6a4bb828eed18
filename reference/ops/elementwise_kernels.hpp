// Generic element-wise kernels shared by the operator files (spec/ops/elementwise.md sections 1
// to 3): a function applied to each element (unary), to each broadcast pair (binary), or folded
// left to right over the broadcast inputs (variadic). Each operator file supplies the function,
// written for the arithmetic type V of the element (float for 16-bit floats).
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "reference/ops/elementwise_broadcast.hpp"
#include "reference/ops/elementwise_dispatch.hpp"
#include "reference/ops/element_reader.hpp"

namespace onemodel::ew {

// Input types of a node must agree (the ONNX type constraint T shared by these inputs).
inline void require_same_type(const InferContext& context, std::size_t a, std::size_t b) {
  if (context.input_type(a) != context.input_type(b)) {
    context.node().fail_invalid("inputs " + std::to_string(a) + " and " + std::to_string(b) +
                                " have different element types (" + std::string(dtype_name(context.input_type(a))) +
                                ", " + std::string(dtype_name(context.input_type(b))) + ")");
  }
}

// y = fn(x). ToBool: the output is Bool (IsNaN, IsInf).
template <class List, class Fn, bool ToBool = false>
class UnaryKernel final : public OpKernel {
 public:
  UnaryKernel(Fn fn, bool exact_defined, bool float64_exact_defined = true) : fn_(fn) {
    supports_exact = exact_defined;
    float64_exact = float64_exact_defined;
    if (!ToBool) in_place_input = 0;  // run() copies the input out before writing
  }
  void infer(InferContext& context) const override {
    require(context, 0, List{});
    context.set_output(0, ToBool ? DType::Bool : context.input_type(0), context.input_shape(0));
  }
  void run(RunContext& context) const override {
    const Tensor& out = context.output(0);
    dispatch(context.input(0).dtype(), List{}, [&](auto tag) {
      using E = decltype(tag);
      using S = typename E::storage;
      // Element i is read before element i is written, so the output may be the input's own
      // storage (in_place_input); an input laid out otherwise is copied out first.
      const Tensor& x = context.input(0);
      std::vector<S> copy;
      std::span<const S> in;
      if (x.is_contiguous()) {
        in = x.data<S>();
      } else {
        copy = x.to_vector<S>();
        in = copy;
      }
      if constexpr (ToBool) {
        auto o = out.mutable_data<std::uint8_t>();
        for (std::size_t i = 0; i < in.size(); ++i) o[i] = fn_(E::load(in[i])) ? 1 : 0;
      } else {
        auto o = out.mutable_data<S>();
        for (std::size_t i = 0; i < in.size(); ++i) o[i] = E::store(fn_(E::load(in[i])));
      }
    });
  }

 private:
  Fn fn_;
};

// y = fn(a, b) over the broadcast shape; a and b have one type. ToBool: the output is Bool
// (comparisons, And, Or, Xor).
template <class List, class Fn, bool ToBool = false>
class BinaryKernel final : public OpKernel {
 public:
  explicit BinaryKernel(Fn fn, bool exact_defined) : fn_(fn) { supports_exact = exact_defined; }
  void infer(InferContext& context) const override {
    require(context, 0, List{});
    require(context, 1, List{});
    require_same_type(context, 0, 1);
    context.set_output(0, ToBool ? DType::Bool : context.input_type(0), broadcast_inputs(context, {0, 1}));
  }
  void run(RunContext& context) const override {
    const Tensor& out = context.output(0);
    dispatch(context.input(0).dtype(), List{}, [&](auto tag) {
      using E = decltype(tag);
      using S = typename E::storage;
      ElementReader<S> a(context.input(0), out.shape());
      ElementReader<S> b(context.input(1), out.shape());
      if constexpr (ToBool) {
        auto o = out.mutable_data<std::uint8_t>();
        for (std::size_t i = 0; i < o.size(); ++i) {
          const S x = a.next();
          o[i] = fn_(E::load(x), E::load(b.next())) ? 1 : 0;
        }
      } else {
        auto o = out.mutable_data<S>();
        for (std::size_t i = 0; i < o.size(); ++i) {
          const S x = a.next();
          o[i] = E::store(fn_(E::load(x), E::load(b.next())));
        }
      }
    });
  }

 private:
  Fn fn_;
};

// spec/ops/elementwise.md section 2: Max, Min, Sum, Mean fold their inputs left to right; each
// step is rounded to the element type. Mean divides the folded sum by the input count.
template <class List, class Fn, bool Mean = false>
class VariadicKernel final : public OpKernel {
 public:
  explicit VariadicKernel(Fn fn) : fn_(fn) {}
  void infer(InferContext& context) const override {
    if (context.input_count() == 0) context.node().fail_invalid("needs at least one input");
    for (std::size_t i = 0; i < context.input_count(); ++i) {
      if (!context.has_input(i)) context.node().fail_invalid("input " + std::to_string(i) + " is omitted");
      require(context, i, List{});
      require_same_type(context, 0, i);
    }
    context.set_output(0, context.input_type(0), broadcast_all_inputs(context));
  }
  void run(RunContext& context) const override {
    const Tensor& out = context.output(0);
    dispatch(context.input(0).dtype(), List{}, [&](auto tag) {
      using E = decltype(tag);
      using S = typename E::storage;
      // The fold runs in the output itself (no input shares its storage: no in_place_input).
      auto acc = out.mutable_data<S>();
      ElementReader<S> first(context.input(0), out.shape());
      for (std::size_t i = 0; i < acc.size(); ++i) acc[i] = first.next();
      for (std::size_t k = 1; k < context.input_count(); ++k) {
        ElementReader<S> next(context.input(k), out.shape());
        for (std::size_t i = 0; i < acc.size(); ++i) acc[i] = E::store(fn_(E::load(acc[i]), E::load(next.next())));
      }
      if constexpr (Mean) {
        using V = typename E::value;
        const V count = static_cast<V>(context.input_count());
        for (std::size_t i = 0; i < acc.size(); ++i) acc[i] = E::store(E::load(acc[i]) / count);
      }
    });
  }

 private:
  Fn fn_;
};

template <class List, class Fn>
std::unique_ptr<OpKernel> make_unary(Fn fn, bool exact_defined = true) {
  return std::make_unique<UnaryKernel<List, Fn>>(fn, exact_defined);
}
// A unary function exact in binary32 whose float64 form uses the platform's double functions
// (std::exp, ...): float64 nodes are refused in exact mode (OpKernel::float64_exact).
template <class List, class Fn>
std::unique_ptr<OpKernel> make_unary_f64_inexact(Fn fn) {
  return std::make_unique<UnaryKernel<List, Fn>>(fn, true, false);
}
template <class List, class Fn>
std::unique_ptr<OpKernel> make_predicate(Fn fn) {
  return std::make_unique<UnaryKernel<List, Fn, true>>(fn, true);
}
template <class List, class Fn>
std::unique_ptr<OpKernel> make_binary(Fn fn, bool exact_defined = true) {
  return std::make_unique<BinaryKernel<List, Fn>>(fn, exact_defined);
}
template <class List, class Fn>
std::unique_ptr<OpKernel> make_comparison(Fn fn) {
  return std::make_unique<BinaryKernel<List, Fn, true>>(fn, true);
}

}  // namespace onemodel::ew
