// Helpers shared by NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (spec/ops/losses.md
// sections 1-3): the attributes, the shape and type checks, and the gather-weight-reduce step that
// turns log-probabilities [N, C, d1..dk] and targets [N, d1..dk] into the loss.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/graph/op_kernel.hpp"
#include "onemodel/session_error.hpp"
#include "reference/ops/axis_helpers.hpp"
#include "reference/ops/canonical_sum.hpp"
#include "reference/ops/norm_helpers.hpp"

namespace onemodel::losses {

enum class Reduction { None, Sum, Mean };

// spec/ops/losses.md section 1: the attributes both operators read.
struct LossAttributes {
  Reduction reduction = Reduction::Mean;
  bool has_ignore_index = false;
  std::int64_t ignore_index = 0;
};

inline LossAttributes read_loss_attributes(const NodeInfo& node) {
  LossAttributes a;
  const std::string reduction = node.get_string("reduction", "mean");
  if (reduction == "none") a.reduction = Reduction::None;
  else if (reduction == "sum") a.reduction = Reduction::Sum;
  else if (reduction == "mean") a.reduction = Reduction::Mean;
  else node.fail_invalid("reduction must be none, sum or mean, not '" + reduction + "'");
  a.has_ignore_index = node.has("ignore_index");
  a.ignore_index = node.get_int("ignore_index", 0);
  return a;
}

// spec/ops/losses.md section 2: input 0 is [N, C, d1..dk] (float32 or float64), input 1 is
// [N, d1..dk] (int32 or int64), the optional input 2 is [C] of input 0's type. Sets output 0
// (the loss: the target's shape for reduction none, else a scalar) and returns nothing.
inline void infer_loss_output(InferContext& context, const LossAttributes& attributes) {
  const NodeInfo& node = context.node();
  context.require_type(0, {DType::F32, DType::F64});
  context.require_type(1, {DType::I32, DType::I64});
  const Shape& x = context.input_shape(0);
  const Shape& target = context.input_shape(1);
  if (x.rank() < 2) node.fail_invalid("input must be [N, C, d1..dk] with rank 2 or more, not " + x.to_string());
  bool match = target.rank() == x.rank() - 1 && target[0] == x[0];
  for (int d = 1; match && d < target.rank(); ++d) match = target[d] == x[d + 1];
  if (!match) node.fail_invalid("target shape " + target.to_string() + " is not input shape " + x.to_string() + " without C");
  if (context.has_input(2)) {
    if (context.input_type(2) != context.input_type(0)) node.fail_invalid("weight must have the input's element type");
    const Shape& w = context.input_shape(2);
    if (w.rank() != 1 || w[0] != x[1]) node.fail_invalid("weight shape " + w.to_string() + " is not [C] with C = " + std::to_string(x[1]));
  }
  context.set_output(0, context.input_type(0), attributes.reduction == Reduction::None ? target : Shape{});
}

// spec/ops/losses.md section 3, for T = float or double. `log_prob` is [N, C, inner] row-major
// (inner = d1*...*dk), `targets` is [N, inner], `weight` is C values or nullptr. Writes the loss
// (N*inner values for reduction none, else one) into `out`, every NaN canonical.
template <class T>
void negative_log_likelihood(const NodeInfo& node, const LossAttributes& attributes, const T* log_prob,
                             std::int64_t n_count, std::int64_t classes, std::int64_t inner,
                             const std::vector<std::int64_t>& targets, const T* weight, T* out) {
  // Every target is checked before anything is written (section 2: a target outside [0, C) that
  // is not ignore_index is InvalidInput).
  for (std::int64_t t : targets) {
    if (attributes.has_ignore_index && t == attributes.ignore_index) continue;
    if (t < 0 || t >= classes) {
      throw SessionError(SessionErrorKind::InvalidInput,
                         node.ir().op_type + ": target " + std::to_string(t) + " outside [0, " +
                             std::to_string(classes) + ") and not ignore_index",
                         node.name());
    }
  }
  CanonicalSum16<T> loss_sum;
  CanonicalSum16<T> weight_sum;
  std::int64_t counted = 0;
  for (std::int64_t n = 0; n < n_count; ++n) {
    for (std::int64_t i = 0; i < inner; ++i) {
      const std::int64_t p = n * inner + i;  // position in the loss shape [N, d1..dk], row-major
      const std::int64_t c = targets[static_cast<std::size_t>(p)];
      T loss = T(0);
      T w = T(0);
      if (!(attributes.has_ignore_index && c == attributes.ignore_index)) {
        const T negated = -log_prob[(n * classes + c) * inner + i];
        w = weight != nullptr ? weight[c] : T(1);
        loss = weight != nullptr ? negated * w : negated;
        ++counted;
      }
      if (attributes.reduction == Reduction::None) {
        out[p] = norms::store(loss);
      } else {
        loss_sum.add(loss);
        weight_sum.add(w);
      }
    }
  }
  if (attributes.reduction == Reduction::Sum) out[0] = norms::store(loss_sum.result());
  if (attributes.reduction == Reduction::Mean) {
    // Section 3: with weights the denominator is the Sum16 of the gathered weights (ignored
    // positions contribute +0); without, the number of positions not ignored, converted to T.
    const T denominator = weight != nullptr ? weight_sum.result() : static_cast<T>(counted);
    out[0] = norms::store(loss_sum.result() / denominator);
  }
}

// Product of extents [from, rank) of `shape`.
inline std::int64_t inner_extent(const Shape& shape, int from) noexcept {
  return norms::extent_product(shape, from, shape.rank());
}

}  // namespace onemodel::losses
