// GridSample (opsets 16 and 20): spec/ops/grid-sample.md. X (N, C, d_1..d_r), grid
// (N, o_1..o_r, r) of normalized positions whose last axis lists the spatial coordinates
// innermost first (x, then y, ...); Y (N, C, o_1..o_r). Modes nearest, (n-)linear, (n-)cubic,
// padding zeros, border, reflection, align_corners. Every step is +, -, *, /, floor, round to
// nearest even or a comparison in the element type, in the order the page states: exact.
#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/graph/node_info.hpp"
#include "core/graph/op_kernel.hpp"
#include "reference/ops/axis_helpers.hpp"
#include "reference/ops/elementwise_dispatch.hpp"

namespace onemodel {
namespace {

using GridTypes = ew::Types<ew::F32, ew::F64>;

enum class Mode { Nearest, Linear, Cubic };
enum class Padding { Zeros, Border, Reflection };

Mode read_mode(const NodeInfo& node) {
  const bool old_names = node.opset() < 20;
  const std::string mode = node.get_string("mode", old_names ? "bilinear" : "linear");
  if (mode == "nearest") return Mode::Nearest;
  if (mode == (old_names ? "bilinear" : "linear")) return Mode::Linear;
  if (mode == (old_names ? "bicubic" : "cubic")) return Mode::Cubic;
  node.fail_invalid("mode '" + mode + "' is not one of nearest, " + (old_names ? "bilinear, bicubic" : "linear, cubic") +
                    " (opset " + std::to_string(node.opset()) + ")");
}

Padding read_padding(const NodeInfo& node) {
  const std::string padding = node.get_string("padding_mode", "zeros");
  if (padding == "zeros") return Padding::Zeros;
  if (padding == "border") return Padding::Border;
  if (padding == "reflection") return Padding::Reflection;
  node.fail_invalid("padding_mode '" + padding + "' is not one of zeros, border, reflection");
}

// Section 3: reflect x by the nearer border until it lies in [lo, hi].
template <class T>
T reflect(T x, T lo, T hi) {
  const T range = hi - lo;
  if (range <= T(0)) return lo;
  if (x < lo) {
    const T dx = lo - x;
    const T n = std::floor(dx / range);
    const T r = dx - n * range;
    return std::fmod(n, T(2)) == T(0) ? lo + r : hi - r;
  }
  if (x > hi) {
    const T dx = x - hi;
    const T n = std::floor(dx / range);
    const T r = dx - n * range;
    return std::fmod(n, T(2)) == T(0) ? hi - r : lo + r;
  }
  return x;
}

// Section 4: Keys' cubic convolution weights, A = -0.75, for the four taps around a sample at
// distance t in [0, 1) past its floor, each polynomial in Horner form as written.
template <class T>
std::array<T, 4> cubic_weights(T t) {
  const T a = T(-0.75);
  const T t1 = t + T(1), t2 = T(1) - t, t3 = T(2) - t;
  return {((a * t1 - T(5) * a) * t1 + T(8) * a) * t1 - T(4) * a, ((a + T(2)) * t - (a + T(3))) * t * t + T(1),
          ((a + T(2)) * t2 - (a + T(3))) * t2 * t2 + T(1), ((a * t3 - T(5) * a) * t3 + T(8) * a) * t3 - T(4) * a};
}

class GridSample final : public OpKernel {
 public:
  explicit GridSample(const NodeInfo& node)
      : mode_(read_mode(node)), padding_(read_padding(node)), align_corners_(node.get_int("align_corners", 0) != 0) {
    const std::int64_t align = node.get_int("align_corners", 0);
    if (align != 0 && align != 1) node.fail_invalid("align_corners must be 0 or 1, got " + std::to_string(align));
  }

  void infer(InferContext& context) const override {
    ew::require(context, 0, GridTypes{});
    ew::require(context, 1, GridTypes{});
    const Shape& x = context.input_shape(0);
    const Shape& grid = context.input_shape(1);
    check(context.node(), x, grid);
    std::vector<std::int64_t> out{x[0], x[1]};
    for (int i = 1; i < grid.rank() - 1; ++i) out.push_back(grid[i]);
    context.set_output(0, context.input_type(0), shape_ops::make_shape(context.node(), out));
  }

  void run(RunContext& context) const override {
    const Tensor x = context.input(0).contiguous();
    const Tensor grid = context.input(1).contiguous();
    check(context.node(), x.shape(), grid.shape());
    ew::dispatch(x.dtype(), GridTypes{}, [&](auto tag) {
      using E = decltype(tag);
      run_typed<typename E::value>(x, grid, context.output(0));
    });
  }

 private:
  void check(const NodeInfo& node, const Shape& x, const Shape& grid) const {
    const int r = x.rank() - 2;
    if (r < 1) node.fail_invalid("X needs a batch, a channel and at least one spatial axis, got " + x.to_string());
    if (node.opset() < 20 && r != 2) node.fail_invalid("opset 16 takes 4-D X, got " + x.to_string());
    if (grid.rank() != r + 2 || grid[0] != x[0] || grid[grid.rank() - 1] != r) {
      node.fail_invalid("grid " + grid.to_string() + " does not match X " + x.to_string() + " (want (N, o_1..o_r, r) with N = " +
                        std::to_string(x[0]) + ", r = " + std::to_string(r) + ")");
    }
    if (mode_ == Mode::Cubic && r != 2) node.fail_unsupported("cubic mode on other than 2 spatial axes");
  }

  template <class T>
  T denormalize(T g, std::int32_t size) const {
    const T s = static_cast<T>(size);
    return align_corners_ ? (g + T(1)) / T(2) * (s - T(1)) : ((g + T(1)) * s - T(1)) / T(2);
  }

  // The value at integer position idx[0..r) of one (n, c) plane, per the padding mode.
  template <class T>
  T pixel(const T* plane, const std::int32_t* dims, int r, const std::int64_t* idx) const {
    std::int64_t offset = 0;
    for (int i = 0; i < r; ++i) {
      std::int64_t k = idx[i];
      const std::int64_t d = dims[i];
      if (k < 0 || k >= d) {
        if (padding_ == Padding::Zeros) return T(0);
        if (padding_ == Padding::Border) {
          k = k < 0 ? 0 : d - 1;
        } else {
          const T lo = align_corners_ ? T(0) : T(-0.5);
          const T hi = align_corners_ ? static_cast<T>(d - 1) : static_cast<T>(d) - T(0.5);
          k = static_cast<std::int64_t>(reflect(static_cast<T>(k), lo, hi));
          if (k < 0) k = 0;
          if (k >= d) k = d - 1;
        }
      }
      offset = offset * d + k;
    }
    return plane[offset];
  }

  // Section 4: separable interpolation, the innermost axis first: along axis `axis` the taps'
  // values are the interpolations over the axes after it, added in tap order.
  template <class T>
  T interpolate(const T* plane, const std::int32_t* dims, int r, const T* pos, int axis, std::int64_t* idx) const {
    const T base = std::floor(pos[axis]);
    const T t = pos[axis] - base;
    const std::int64_t first = static_cast<std::int64_t>(base) - (mode_ == Mode::Cubic ? 1 : 0);
    const int taps = mode_ == Mode::Cubic ? 4 : 2;
    std::array<T, 4> w{};
    if (mode_ == Mode::Cubic) {
      w = cubic_weights(t);
    } else {
      w[0] = T(1) - t;
      w[1] = t;
    }
    T sum = T(0);
    for (int j = 0; j < taps; ++j) {
      idx[axis] = first + j;
      const T v = axis + 1 == r ? pixel(plane, dims, r, idx) : interpolate(plane, dims, r, pos, axis + 1, idx);
      sum = j == 0 ? w[0] * v : sum + w[static_cast<std::size_t>(j)] * v;
    }
    return sum;
  }

  template <class T>
  void run_typed(const Tensor& x, const Tensor& grid, const Tensor& out) const {
    const Shape& xs = x.shape();
    const int r = xs.rank() - 2;
    std::array<std::int32_t, kMaxRank> dims{};
    std::int64_t plane_size = 1;
    for (int i = 0; i < r; ++i) {
      dims[static_cast<std::size_t>(i)] = xs[i + 2];
      plane_size *= xs[i + 2];
    }
    std::int64_t points = 1;
    for (int i = 1; i < grid.shape().rank() - 1; ++i) points *= grid.shape()[i];
    std::vector<T> gvals(static_cast<std::size_t>(grid.element_count()));
    ew::dispatch(grid.dtype(), GridTypes{}, [&](auto tag) {
      using G = decltype(tag);
      const auto g = grid.data<typename G::storage>();
      for (std::size_t i = 0; i < gvals.size(); ++i) gvals[i] = static_cast<T>(G::load(g[i]));
    });
    ew::dispatch(x.dtype(), GridTypes{}, [&](auto tag) {
      using E = decltype(tag);
      const auto in = x.data<typename E::storage>();
      const auto o = out.mutable_data<typename E::storage>();
      std::vector<T> plane(static_cast<std::size_t>(plane_size));
      std::array<T, kMaxRank> pos{};
      std::array<std::int64_t, kMaxRank> idx{};
      for (std::int64_t n = 0; n < xs[0]; ++n) {
        for (std::int64_t c = 0; c < xs[1]; ++c) {
          const std::size_t plane_at = static_cast<std::size_t>((n * xs[1] + c) * plane_size);
          for (std::int64_t i = 0; i < plane_size; ++i) plane[static_cast<std::size_t>(i)] = static_cast<T>(E::load(in[plane_at + static_cast<std::size_t>(i)]));
          for (std::int64_t p = 0; p < points; ++p) {
            const T* g = &gvals[static_cast<std::size_t>((n * points + p) * r)];
            for (int i = 0; i < r; ++i) {
              // The grid lists the innermost axis first.
              T v = denormalize(g[r - 1 - i], dims[static_cast<std::size_t>(i)]);
              if (mode_ == Mode::Nearest) v = std::nearbyint(v);
              const T lo = align_corners_ ? T(0) : T(-0.5);
              const T hi = align_corners_ ? static_cast<T>(dims[static_cast<std::size_t>(i)] - 1)
                                          : static_cast<T>(dims[static_cast<std::size_t>(i)]) - T(0.5);
              if (v < lo || v > hi) {
                // Cubic with border padding leaves the position and clamps each tap (section 3).
                if (padding_ == Padding::Border && mode_ != Mode::Cubic) {
                  v = v < T(0) ? T(0) : (v > static_cast<T>(dims[static_cast<std::size_t>(i)] - 1) ? static_cast<T>(dims[static_cast<std::size_t>(i)] - 1) : v);
                } else if (padding_ == Padding::Reflection) {
                  v = reflect(v, lo, hi);
                }
              }
              pos[static_cast<std::size_t>(i)] = v;
            }
            // Section 3: a NaN position gives NaN; a position beyond +-2^31 (left so only by zeros
            // padding) reads nothing but padding.
            bool nan = false, far = false;
            for (int i = 0; i < r; ++i) {
              const T v = pos[static_cast<std::size_t>(i)];
              nan = nan || std::isnan(v);
              far = far || !(v > T(-2147483648.0) && v < T(2147483648.0));
            }
            T value;
            if (nan) {
              value = std::numeric_limits<T>::quiet_NaN();
            } else if (far) {
              value = T(0);
            } else if (mode_ == Mode::Nearest) {
              for (int i = 0; i < r; ++i) idx[static_cast<std::size_t>(i)] = static_cast<std::int64_t>(pos[static_cast<std::size_t>(i)]);
              value = pixel(plane.data(), dims.data(), r, idx.data());
            } else {
              value = interpolate(plane.data(), dims.data(), r, pos.data(), 0, idx.data());
            }
            o[static_cast<std::size_t>((n * xs[1] + c) * points + p)] = E::store(static_cast<typename E::value>(value));
          }
        }
      }
    });
  }

  Mode mode_;
  Padding padding_;
  bool align_corners_;
};

}  // namespace

std::unique_ptr<OpKernel> make_grid_sample(const NodeInfo& node) { return std::make_unique<GridSample>(node); }

}  // namespace onemodel
