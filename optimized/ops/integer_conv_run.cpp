#include "optimized/ops/integer_conv_run.hpp"

#include "core/graph/tensor_bytes.hpp"
#include "optimized/kernels/int8gemm/int8_gemm.hpp"

namespace onemodel::opt {

void run_integer_conv(const RunContext& context, const quant::IntegerConvGeometry& g, std::size_t x_input,
                      std::size_t w_input, std::int32_t zx, const std::vector<std::int32_t>& zw, std::int32_t* y,
                      const OptimizedConfig& config) {
  const Tensor x = context.input(x_input).contiguous();
  const Tensor w = context.input(w_input).contiguous();
  const conv_geometry::Axis& ad = g.axes[0];
  const conv_geometry::Axis& ah = g.axes[1];
  const conv_geometry::Axis& aw = g.axes[2];
  const std::int64_t c_per_group = g.c / g.group, m_per_group = g.m / g.group;
  const std::int64_t taps = ad.kernel * ah.kernel * aw.kernel;
  const std::int64_t k = c_per_group * taps;
  const std::int64_t plane_out = ad.out * ah.out * aw.out;
  const std::int64_t plane_in = ad.in * ah.in * aw.in;
  if (g.n == 0 || g.m == 0 || plane_out == 0) return;
  const auto* xb = x.element_count() == 0 ? nullptr : reinterpret_cast<const std::uint8_t*>(tensor_bytes(x).data());
  const auto* wb = w.element_count() == 0 ? nullptr : reinterpret_cast<const std::uint8_t*>(tensor_bytes(w).data());
  // The padding byte: the input's zero point in its own type, so a padding tap is (zx - zx) = 0.
  const auto pad = static_cast<std::uint8_t>(zx);
  std::vector<std::uint8_t> columns(static_cast<std::size_t>(k * plane_out));
  for (std::int64_t n = 0; n < g.n; ++n) {
    for (std::int64_t grp = 0; grp < g.group; ++grp) {
      // B = the windows: row (c, kd, ky, kx), column the output position.
      for (std::int64_t c = 0; c < c_per_group; ++c) {
        const std::uint8_t* plane = xb + (n * g.c + grp * c_per_group + c) * plane_in;
        for (std::int64_t kd = 0; kd < ad.kernel; ++kd) {
          for (std::int64_t ky = 0; ky < ah.kernel; ++ky) {
            for (std::int64_t kx = 0; kx < aw.kernel; ++kx) {
              const std::int64_t row = c * taps + (kd * ah.kernel + ky) * aw.kernel + kx;
              std::uint8_t* out = columns.data() + row * plane_out;
              for (std::int64_t od = 0; od < ad.out; ++od) {
                const std::int64_t id = od * ad.stride - ad.pad_before + kd * ad.dilation;
                for (std::int64_t oy = 0; oy < ah.out; ++oy) {
                  const std::int64_t iy = oy * ah.stride - ah.pad_before + ky * ah.dilation;
                  for (std::int64_t ox = 0; ox < aw.out; ++ox) {
                    const std::int64_t ix = ox * aw.stride - aw.pad_before + kx * aw.dilation;
                    const bool inside = id >= 0 && id < ad.in && iy >= 0 && iy < ah.in && ix >= 0 && ix < aw.in;
                    *out++ = inside ? plane[(id * ah.in + iy) * aw.in + ix] : pad;
                  }
                }
              }
            }
          }
        }
      }
      const int8::Operand b{columns.data(), x.dtype() == DType::I8, static_cast<std::size_t>(plane_out)};
      const int8::PackedB packed = int8::pack_b(b, static_cast<std::size_t>(k), static_cast<std::size_t>(plane_out), config.isa);
      const int8::Operand a{wb + grp * m_per_group * k, w.dtype() == DType::I8, static_cast<std::size_t>(k)};
      std::vector<std::int32_t> za;
      if (zw.size() == 1) {
        za = zw;
      } else {
        za.assign(zw.begin() + grp * m_per_group, zw.begin() + (grp + 1) * m_per_group);
      }
      const std::vector<std::int32_t> zb{zx};
      int8::gemm(static_cast<std::size_t>(m_per_group), a, za, packed, zb, y + (n * g.m + grp * m_per_group) * plane_out,
                 static_cast<std::size_t>(plane_out), config.pool, config.isa);
    }
  }
}

}  // namespace onemodel::opt
