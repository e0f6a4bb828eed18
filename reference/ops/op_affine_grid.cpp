// AffineGrid (opset 20): spec/ops/grid-sample.md section 5. theta (N, 2, 3) or (N, 3, 4), size
// (N, C, H, W) or (N, C, D, H, W) int64; the grid (N, H, W, 2) or (N, D, H, W, 3) of
// theta * [x, y, (z,) 1] over positions evenly spaced in [-1, 1]. Computed in binary64 in a stated
// order and rounded once: exact.
#include <array>
#include <string>
#include <vector>

#include "core/graph/node_info.hpp"
#include "core/graph/op_kernel.hpp"
#include "reference/ops/axis_helpers.hpp"
#include "reference/ops/elementwise_dispatch.hpp"

namespace onemodel {
namespace {

using AffineTypes = ew::Types<ew::F32, ew::F64, ew::F16, ew::BF16>;

// Section 5: position i of an axis of n samples.
double base_position(std::int64_t i, std::int64_t n, bool align_corners) {
  if (align_corners) return n == 1 ? -1.0 : -1.0 + static_cast<double>(i) * (2.0 / static_cast<double>(n - 1));
  const double step = 2.0 / static_cast<double>(n);
  return -1.0 + step / 2.0 + static_cast<double>(i) * step;
}

class AffineGrid final : public OpKernel {
 public:
  explicit AffineGrid(const NodeInfo& node) : align_corners_(node.get_int("align_corners", 0)) {
    if (align_corners_ != 0 && align_corners_ != 1) {
      node.fail_invalid("align_corners must be 0 or 1, got " + std::to_string(align_corners_));
    }
  }

  void infer(InferContext& context) const override {
    ew::require(context, 0, AffineTypes{});
    const Tensor* size = shape_ops::value_or_defer(context, 1);
    if (size == nullptr) return;
    const std::vector<std::int64_t> s = sizes(context.node(), context.input_shape(0), *size);
    std::vector<std::int64_t> out{s[0]};
    out.insert(out.end(), s.begin() + 2, s.end());
    out.push_back(static_cast<std::int64_t>(s.size()) - 2);
    context.set_output(0, context.input_type(0), shape_ops::make_shape(context.node(), out));
  }

  void run(RunContext& context) const override {
    const Tensor theta = context.input(0).contiguous();
    const std::vector<std::int64_t> s = sizes(context.node(), theta.shape(), context.input(1));
    const int r = static_cast<int>(s.size()) - 2;  // 2 or 3 spatial axes
    const Tensor& out = context.output(0);
    ew::dispatch(theta.dtype(), AffineTypes{}, [&](auto tag) {
      using E = decltype(tag);
      const auto t = theta.data<typename E::storage>();
      const auto o = out.mutable_data<typename E::storage>();
      const std::int64_t depth = r == 3 ? s[2] : 1, height = s[static_cast<std::size_t>(r)], width = s[static_cast<std::size_t>(r + 1)];
      std::size_t at = 0;
      for (std::int64_t n = 0; n < s[0]; ++n) {
        const std::size_t row = static_cast<std::size_t>(n * r * (r + 1));
        for (std::int64_t d = 0; d < depth; ++d) {
          for (std::int64_t h = 0; h < height; ++h) {
            for (std::int64_t w = 0; w < width; ++w) {
              // The homogeneous position, innermost axis first: (x, y[, z], 1).
              const std::array<double, 3> p{base_position(w, width, align_corners_ != 0),
                                            base_position(h, height, align_corners_ != 0),
                                            base_position(d, depth, align_corners_ != 0)};
              for (int j = 0; j < r; ++j) {
                const std::size_t k = row + static_cast<std::size_t>(j * (r + 1));
                double v = static_cast<double>(E::load(t[k])) * p[0];
                for (int c = 1; c < r; ++c) v += static_cast<double>(E::load(t[k + static_cast<std::size_t>(c)])) * p[static_cast<std::size_t>(c)];
                v += static_cast<double>(E::load(t[k + static_cast<std::size_t>(r)]));
                o[at++] = E::store(static_cast<typename E::value>(v));
              }
            }
          }
        }
      }
    });
  }

 private:
  static std::vector<std::int64_t> sizes(const NodeInfo& node, const Shape& theta, const Tensor& size) {
    const std::vector<std::int64_t> s = shape_ops::read_ints(node, size, "size");
    if (s.size() != 4 && s.size() != 5) node.fail_invalid("size must hold 4 (2-D) or 5 (3-D) values, got " + std::to_string(s.size()));
    const int r = static_cast<int>(s.size()) - 2;
    for (std::int64_t v : s) {
      if (v < 0) node.fail_invalid("size holds the negative extent " + std::to_string(v));
    }
    if (theta.rank() != 3 || theta[0] != s[0] || theta[1] != r || theta[2] != r + 1) {
      node.fail_invalid("theta " + theta.to_string() + " does not match size (want (" + std::to_string(s[0]) + ", " +
                        std::to_string(r) + ", " + std::to_string(r + 1) + "))");
    }
    return s;
  }

  std::int64_t align_corners_;
};

}  // namespace

std::unique_ptr<OpKernel> make_affine_grid(const NodeInfo& node) { return std::make_unique<AffineGrid>(node); }

}  // namespace onemodel
