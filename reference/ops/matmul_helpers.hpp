// Shape rules of MatMul and MatMulInteger (spec/ops/products-conv.md section 4, ONNX MatMul =
// numpy.matmul): a 1-D first operand gets a leading 1 and a 1-D second operand a trailing 1, both
// removed from the result; the batch axes (all but the last two) broadcast numpy-style.
#pragma once

#include <cstdint>
#include <vector>

#include "core/graph/node_info.hpp"
#include "onemodel/shape.hpp"
#include "onemodel/tensor_error.hpp"

namespace onemodel::products {

struct MatMulShape {
  std::int64_t m = 1, k = 1, n = 1;
  Shape batch;                       // broadcast batch axes
  std::vector<std::int64_t> a_batch_strides;  // in matrices, 0 where broadcast
  std::vector<std::int64_t> b_batch_strides;
  Shape out;
};

inline MatMulShape matmul_shape(const NodeInfo& node, const Shape& a, const Shape& b) {
  if (a.rank() < 1 || b.rank() < 1) node.fail_invalid("MatMul operands must have rank 1 or more");
  MatMulShape s;
  const bool a1 = a.rank() == 1, b1 = b.rank() == 1;
  std::vector<std::int64_t> ad(a.extents().begin(), a.extents().end());
  std::vector<std::int64_t> bd(b.extents().begin(), b.extents().end());
  if (a1) ad.insert(ad.begin(), 1);
  if (b1) bd.push_back(1);
  s.m = ad[ad.size() - 2];
  s.k = ad[ad.size() - 1];
  if (bd[bd.size() - 2] != s.k) {
    node.fail_invalid("inner dimensions differ: " + a.to_string() + " times " + b.to_string());
  }
  s.n = bd[bd.size() - 1];
  const std::size_t ra = ad.size() - 2, rb = bd.size() - 2;
  const std::size_t r = std::max(ra, rb);
  std::vector<std::int64_t> batch(r), as(r), bs(r);
  for (std::size_t i = 0; i < r; ++i) {
    const std::int64_t ea = i + ra >= r ? ad[i + ra - r] : 1;
    const std::int64_t eb = i + rb >= r ? bd[i + rb - r] : 1;
    if (ea != eb && ea != 1 && eb != 1) {
      node.fail_invalid("batch dimensions do not broadcast: " + a.to_string() + " and " + b.to_string());
    }
    batch[i] = std::max(ea, eb);
    if (ea == 0 || eb == 0) batch[i] = 0;
  }
  // Strides in whole matrices, right to left.
  std::int64_t sa = 1, sb = 1;
  for (std::size_t i = r; i-- > 0;) {
    const std::int64_t ea = i + ra >= r ? ad[i + ra - r] : 1;
    const std::int64_t eb = i + rb >= r ? bd[i + rb - r] : 1;
    as[i] = ea == 1 ? 0 : sa;
    bs[i] = eb == 1 ? 0 : sb;
    sa *= ea;
    sb *= eb;
  }
  s.batch = Shape(std::span<const std::int64_t>(batch));
  s.a_batch_strides = as;
  s.b_batch_strides = bs;
  std::vector<std::int64_t> out = batch;
  if (!a1) out.push_back(s.m);
  if (!b1) out.push_back(s.n);
  s.out = Shape(std::span<const std::int64_t>(out));
  return s;
}

// The offsets (in matrices) of A and B for batch index `flat` of the broadcast batch.
inline void batch_offsets(const MatMulShape& s, std::int64_t flat, std::int64_t& a_off, std::int64_t& b_off) {
  a_off = 0;
  b_off = 0;
  for (int i = s.batch.rank(); i-- > 0;) {
    const std::int64_t e = s.batch[i];
    const std::int64_t idx = flat % e;
    flat /= e;
    a_off += idx * s.a_batch_strides[static_cast<std::size_t>(i)];
    b_off += idx * s.b_batch_strides[static_cast<std::size_t>(i)];
  }
}

}  // namespace onemodel::products
