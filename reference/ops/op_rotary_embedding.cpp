// RotaryEmbedding (opset 23): spec/ops/attention.md section 7. Each pair (x1, x2) of a head's
// first rotary_embedding_dim elements is rotated by the cached angle of its position:
// real = cos*x1 - sin*x2, imag = sin*x1 + cos*x2, every product and the sum or difference rounded
// on its own (no fused multiply-add), so the operator is exact (ops-coverage.md "Exactness").
#include <cstdint>
#include <string>

#include "core/graph/op_kernel.hpp"
#include "onemodel/session_error.hpp"

namespace onemodel {
namespace {

enum : std::size_t { kX = 0, kCos, kSin, kPositions };

struct RotaryGeometry {
  bool rank3 = false;
  std::int64_t batch = 0, heads = 0, seq = 0, head_size = 0, rotary_dim = 0, half = 0;
  std::int64_t max_position = 0;  // with position_ids: rows of the caches
};

[[noreturn]] void fail_shape(const NodeInfo& node, const std::string& message) {
  node.fail_invalid("RotaryEmbedding: " + message);
}

RotaryGeometry rotary_geometry(const NodeInfo& node, std::int64_t num_heads, std::int64_t rotary_dim,
                               const Shape& x, const Shape& cos, const Shape& sin, const Shape* positions) {
  RotaryGeometry g;
  if (x.rank() == 4) {
    // Section 7: (batch, heads, sequence, head_size).
    g.batch = x[0];
    g.heads = x[1];
    g.seq = x[2];
    g.head_size = x[3];
  } else if (x.rank() == 3) {
    // Section 7: (batch, sequence, heads * head_size) with num_heads given.
    g.rank3 = true;
    if (num_heads <= 0) fail_shape(node, "3-D input needs a positive num_heads");
    if (x[2] % num_heads != 0) fail_shape(node, "hidden size is not a multiple of num_heads");
    g.batch = x[0];
    g.seq = x[1];
    g.heads = num_heads;
    g.head_size = x[2] / num_heads;
  } else {
    fail_shape(node, "input must be 3-D or 4-D");
  }
  g.rotary_dim = rotary_dim == 0 ? g.head_size : rotary_dim;
  if (g.rotary_dim < 0 || g.rotary_dim > g.head_size || g.rotary_dim % 2 != 0) {
    fail_shape(node, "rotary_embedding_dim must be even and at most the head size");
  }
  g.half = g.rotary_dim / 2;
  if (cos.rank() != sin.rank()) fail_shape(node, "cos_cache and sin_cache differ in rank");
  for (int i = 0; i < cos.rank(); ++i) {
    if (cos[i] != sin[i]) fail_shape(node, "cos_cache and sin_cache differ in shape");
  }
  if (positions != nullptr) {
    if (positions->rank() != 2 || (*positions)[0] != g.batch || (*positions)[1] != g.seq) {
      fail_shape(node, "position_ids must be (batch, sequence)");
    }
    if (cos.rank() != 2 || cos[1] != g.half) fail_shape(node, "caches must be (max_position + 1, rotary_dim / 2)");
    g.max_position = cos[0];
  } else if (cos.rank() != 3 || cos[0] != g.batch || cos[1] != g.seq || cos[2] != g.half) {
    fail_shape(node, "without position_ids the caches must be (batch, sequence, rotary_dim / 2)");
  }
  return g;
}

class RotaryEmbedding final : public OpKernel {
 public:
  RotaryEmbedding(std::int64_t num_heads, std::int64_t rotary_dim, bool interleaved)
      : num_heads_(num_heads), rotary_dim_(rotary_dim), interleaved_(interleaved) {}

  void infer(InferContext& context) const override {
    context.require_type(kX, {DType::F32});
    context.require_type(kCos, {DType::F32});
    context.require_type(kSin, {DType::F32});
    const bool has_positions = context.has_input(kPositions);
    if (has_positions) context.require_type(kPositions, {DType::I64});
    rotary_geometry(context.node(), num_heads_, rotary_dim_, context.input_shape(kX), context.input_shape(kCos),
                    context.input_shape(kSin), has_positions ? &context.input_shape(kPositions) : nullptr);
    context.set_output(0, DType::F32, context.input_shape(kX));
  }

  void run(RunContext& context) const override {
    const NodeInfo& node = context.node();
    const Tensor x_t = context.input(kX).contiguous();
    const Tensor cos_t = context.input(kCos).contiguous();
    const Tensor sin_t = context.input(kSin).contiguous();
    Tensor pos_t;
    if (context.has_input(kPositions)) pos_t = context.input(kPositions).contiguous();
    const RotaryGeometry g = rotary_geometry(node, num_heads_, rotary_dim_, x_t.shape(), cos_t.shape(),
                                             sin_t.shape(), pos_t.defined() ? &pos_t.shape() : nullptr);
    const float* x = x_t.data<float>().data();
    const float* cos = cos_t.data<float>().data();
    const float* sin = sin_t.data<float>().data();
    const std::int64_t* positions = pos_t.defined() ? pos_t.data<std::int64_t>().data() : nullptr;
    float* y = context.output(0).mutable_data<float>().data();

    for (std::int64_t b = 0; b < g.batch; ++b) {
      for (std::int64_t s = 0; s < g.seq; ++s) {
        // Section 7: the cache row of (b, s): row position_ids[b][s], or row (b, s) itself.
        std::int64_t row = b * g.seq + s;
        if (positions != nullptr) {
          row = positions[b * g.seq + s];
          if (row < 0 || row >= g.max_position) {
            throw SessionError(SessionErrorKind::InvalidInput,
                               "RotaryEmbedding: position id " + std::to_string(row) + " outside [0, " +
                                   std::to_string(g.max_position) + ")",
                               node.name());
          }
        }
        const float* c = cos + row * g.half;
        const float* sn = sin + row * g.half;
        for (std::int64_t h = 0; h < g.heads; ++h) {
          const std::int64_t start = g.rank3 ? (b * g.seq + s) * g.heads * g.head_size + h * g.head_size
                                             : ((b * g.heads + h) * g.seq + s) * g.head_size;
          const float* in = x + start;
          float* out = y + start;
          for (std::int64_t k = 0; k < g.half; ++k) {
            // Section 7: the pair is (x[2k], x[2k+1]) interleaved, else (x[k], x[k + half]).
            const std::int64_t i1 = interleaved_ ? 2 * k : k;
            const std::int64_t i2 = interleaved_ ? 2 * k + 1 : k + g.half;
            const float x1 = in[i1];
            const float x2 = in[i2];
            const float cos_x1 = c[k] * x1;
            const float sin_x2 = sn[k] * x2;
            const float sin_x1 = sn[k] * x1;
            const float cos_x2 = c[k] * x2;
            out[i1] = canonical_nan_f32(cos_x1 - sin_x2);
            out[i2] = canonical_nan_f32(sin_x1 + cos_x2);
          }
          for (std::int64_t k = g.rotary_dim; k < g.head_size; ++k) out[k] = canonical_nan_f32(in[k]);
        }
      }
    }
  }

 private:
  std::int64_t num_heads_;
  std::int64_t rotary_dim_;
  bool interleaved_;
};

}  // namespace

std::unique_ptr<OpKernel> make_rotary_embedding(const NodeInfo& node) {
  const std::int64_t interleaved = node.get_int("interleaved", 0);
  if (interleaved != 0 && interleaved != 1) node.fail_invalid("RotaryEmbedding: interleaved must be 0 or 1");
  return std::make_unique<RotaryEmbedding>(node.get_int("num_heads", 0), node.get_int("rotary_embedding_dim", 0),
                                           interleaved == 1);
}

}  // namespace onemodel
