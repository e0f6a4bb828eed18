// int8 graphs (issue 14; spec-source int8.md): exact mode runs a QDQ graph as written (float
// simulation on the exact kernels, int8.md "Graph rewrites": the qdq pass is skipped in exact mode)
// and the integer operators are exact by nature ("Product kernel": the same bits on every
// instruction set and thread count). Shapes span several of the product kernel's fixed chunks
// (Mc = 48 rows, Nc = 64 columns) so that two threads split the work.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "tools/golden/golden_case.hpp"
#include "tools/golden/prng.hpp"

namespace onemodel::golden {
namespace {

Tensor random_float(Prng& prng, const Shape& shape, float scale = 1.0f) {
  return float_tensor(shape, symmetric_values(prng, shape.element_count(), scale));
}

// 8-bit values uniform over the whole range of the type.
Tensor random_u8(Prng& prng, const Shape& shape) {
  std::vector<std::uint8_t> v(static_cast<std::size_t>(shape.element_count()));
  for (std::uint8_t& x : v) x = static_cast<std::uint8_t>(prng.below(256));
  return Tensor::from_values<std::uint8_t>(DType::U8, shape, std::span<const std::uint8_t>(v));
}

Tensor random_i8(Prng& prng, const Shape& shape) {
  std::vector<std::int8_t> v(static_cast<std::size_t>(shape.element_count()));
  for (std::int8_t& x : v) x = static_cast<std::int8_t>(static_cast<std::int32_t>(prng.below(256)) - 128);
  return Tensor::from_values<std::int8_t>(DType::I8, shape, std::span<const std::int8_t>(v));
}

Tensor u8_scalar(std::uint8_t v) { return Tensor::from_values<std::uint8_t>(DType::U8, Shape{}, {v}); }
Tensor i8_scalar(std::int8_t v) { return Tensor::from_values<std::int8_t>(DType::I8, Shape{}, {v}); }
Tensor f32_scalar(float v) { return float_tensor(Shape{}, {v}); }

Tensor i8_zeros(std::int64_t n) {
  const std::vector<std::int8_t> v(static_cast<std::size_t>(n), 0);
  return Tensor::from_values<std::int8_t>(DType::I8, Shape{n}, std::span<const std::int8_t>(v));
}

// Integers in [-range, range).
Tensor random_i32(Prng& prng, const Shape& shape, std::uint32_t range) {
  std::vector<std::int32_t> v(static_cast<std::size_t>(shape.element_count()));
  for (std::int32_t& x : v) x = static_cast<std::int32_t>(prng.below(2 * range)) - static_cast<std::int32_t>(range);
  return Tensor::from_values<std::int32_t>(DType::I32, shape, std::span<const std::int32_t>(v));
}

// n positive scales k / 2^shift with k in 1..64: exact in float32, spread over a factor of 64.
Tensor scales(Prng& prng, std::int64_t n, int shift) {
  std::vector<float> v(static_cast<std::size_t>(n));
  for (float& s : v) s = static_cast<float>(1 + prng.below(64)) / static_cast<float>(1u << shift);
  return float_tensor(Shape{n}, v);
}

std::vector<IrAttribute> conv_attrs(std::int64_t kernel, std::int64_t pad, std::int64_t stride, std::int64_t group,
                                    std::int64_t dilation = 1) {
  return {attr_ints("kernel_shape", {kernel, kernel}), attr_ints("pads", {pad, pad, pad, pad}),
          attr_ints("strides", {stride, stride}), attr_int("group", group), attr_ints("dilations", {dilation, dilation})};
}

// A static QDQ network as onnxruntime.quantization writes it (int8.md "Graph rewrites", the qdq
// row): uint8 activations per tensor, int8 weights per output channel, float bias; each Conv's
// input and weight are DequantizeLinear outputs and its output goes through QuantizeLinear.
GoldenGraph int8_qdq_conv_chain() {
  Prng prng = prng_for("int8_qdq_conv_chain");
  GraphBuilder g(21);
  const std::string x = g.input("x", random_float(prng, Shape{2, 8, 19, 17}));
  const std::string s_act = g.constant("s_act", f32_scalar(1.0f / 64));
  const std::string z_act = g.constant("z_act", u8_scalar(128));
  // One quantized convolution: DQ(x_q) and DQ(w_q per channel) -> Conv(+ bias) -> Relu -> Q.
  const auto qconv = [&](const std::string& name, const std::string& xq, const Shape& w_shape, std::vector<IrAttribute> attrs) {
    const std::string wq = g.constant(name + "_wq", random_i8(prng, w_shape));
    const std::string ws = g.constant(name + "_ws", scales(prng, w_shape[0], 14));
    const std::string wz = g.constant(name + "_wz", i8_zeros(w_shape[0]));
    const std::string b = g.constant(name + "_b", random_float(prng, Shape{w_shape[0]}, 0.25f));
    const std::string xf = g.node("DequantizeLinear", {xq, s_act, z_act}, {}, name + "_x");
    const std::string wf = g.node("DequantizeLinear", {wq, ws, wz}, {attr_int("axis", 0)}, name + "_w");
    const std::string c = g.node("Conv", {xf, wf, b}, std::move(attrs), name);
    const std::string r = g.node("Relu", {c}, {}, name + "_relu");
    return g.node("QuantizeLinear", {r, s_act, z_act}, {}, name + "_q");
  };
  const std::string x_q = g.node("QuantizeLinear", {x, s_act, z_act}, {}, "x_q");
  const std::string c1 = qconv("conv3x3", x_q, Shape{32, 8, 3, 3}, conv_attrs(3, 1, 1, 1));
  const std::string c2 = qconv("depthwise_s2", c1, Shape{32, 1, 3, 3}, conv_attrs(3, 1, 2, 32));
  const std::string c3 = qconv("conv1x1", c2, Shape{72, 32, 1, 1}, conv_attrs(1, 0, 1, 1));
  const std::string c4 = qconv("grouped", c3, Shape{24, 18, 3, 3}, conv_attrs(3, 1, 1, 4));
  const std::string y = g.node("DequantizeLinear", {c4, s_act, z_act}, {}, "y");
  for (const std::string& q : {x_q, c1, c2, c3, c4}) g.output(q, 2);
  g.output(y);
  return g.finish();
}

// A dynamically quantized two-layer perceptron as quantize_dynamic writes it: DynamicQuantizeLinear
// -> MatMulInteger (uint8 activations, int8 weights) -> Cast -> Mul(activation scale * weight
// scale) -> Add(bias); the second layer's weight is a graph input (packed per product).
GoldenGraph int8_dynamic_matmul_chain() {
  Prng prng = prng_for("int8_dynamic_matmul_chain");
  GraphBuilder g(21);
  const std::string x = g.input("x", random_float(prng, Shape{3, 40, 96}));
  const auto layer = [&](const std::string& name, const std::string& in, const std::string& w, const std::string& w_zp,
                         std::int64_t n, float w_scale) {
    const std::string q = name + "_q", s = name + "_s", z = name + "_z";
    g.node_outputs("DynamicQuantizeLinear", {in}, {}, {q, s, z});
    const std::string acc = g.node("MatMulInteger", {q, w, z, w_zp}, {}, name + "_acc");
    const std::string f = g.node("Cast", {acc}, {attr_int("to", 1)}, name + "_float");
    const std::string scale = g.node("Mul", {s, g.constant(name + "_ws", f32_scalar(w_scale))}, {}, name + "_scale");
    const std::string m = g.node("Mul", {f, scale}, {}, name + "_mul");
    const std::string y = g.node("Add", {m, g.constant(name + "_b", random_float(prng, Shape{n}, 0.5f))}, {}, name);
    g.output(q, 2);
    g.output(acc, 6);
    g.output(y);
    return y;
  };
  const std::string w1 = g.constant("w1", random_i8(prng, Shape{96, 80}));
  const std::string h = layer("fc1", x, w1, g.constant("w1_zp", i8_scalar(0)), 80, 1.0f / 512);
  const std::string r = g.node("Relu", {h}, {}, "relu");
  const std::string w2 = g.input("w2", random_u8(prng, Shape{80, 130}));
  layer("fc2", r, w2, g.constant("w2_zp", u8_scalar(131)), 130, 1.0f / 1024);
  return g.finish();
}

// QLinearConv and QLinearMatMul with per-channel (per-column) weight scales and zero points,
// int32 bias, both activation types.
GoldenGraph int8_qlinear_per_channel() {
  Prng prng = prng_for("int8_qlinear_per_channel");
  GraphBuilder g(21);
  const std::string xs = g.constant("xs", f32_scalar(1.0f / 32));
  const std::string ys = g.constant("ys", f32_scalar(1.0f / 4));
  // Dense 3x3 convolution, uint8 activations, int8 weights, 32 output channels.
  {
    const std::string x = g.input("conv_x", random_u8(prng, Shape{2, 16, 15, 13}));
    const std::string w = g.constant("conv_w", random_i8(prng, Shape{32, 16, 3, 3}));
    const std::string out =
        g.node("QLinearConv",
               {x, xs, g.constant("conv_xz", u8_scalar(121)), w, g.constant("conv_ws", scales(prng, 32, 13)),
                g.constant("conv_wz", i8_zeros(32)), ys, g.constant("conv_yz", u8_scalar(100)),
                g.constant("conv_b", random_i32(prng, Shape{32}, 20000))},
               conv_attrs(3, 1, 1, 1), "qconv_dense");
    g.output(out, 2);
    // Depthwise on its output, stride 2, per-channel scales, no bias.
    const std::string wd = g.constant("dw_w", random_i8(prng, Shape{32, 1, 3, 3}));
    g.output(g.node("QLinearConv",
                    {out, ys, g.constant("dw_xz", u8_scalar(100)), wd, g.constant("dw_ws", scales(prng, 32, 10)),
                     g.constant("dw_wz", i8_zeros(32)), g.constant("dw_ys", f32_scalar(1.0f / 2)),
                     g.constant("dw_yz", u8_scalar(128))},
                    conv_attrs(3, 1, 2, 32), "qconv_depthwise"),
             2);
  }
  // int8 activations, a grouped dilated convolution.
  {
    const std::string x = g.input("gconv_x", random_i8(prng, Shape{1, 12, 21, 18}));
    const std::string w = g.input("gconv_w", random_i8(prng, Shape{18, 4, 3, 3}));
    g.output(g.node("QLinearConv",
                    {x, xs, g.constant("gconv_xz", i8_scalar(-3)), w, g.constant("gconv_ws", scales(prng, 18, 12)),
                     g.constant("gconv_wz", i8_zeros(18)), ys, g.constant("gconv_yz", i8_scalar(5)),
                     g.constant("gconv_b", random_i32(prng, Shape{18}, 5000))},
                    conv_attrs(3, 2, 1, 3, 2), "qconv_grouped_dilated"),
             3);
  }
  // QLinearMatMul: uint8 x int8 with per-column scales and zero points, 70 x 200 x 90.
  {
    const std::string a = g.input("mm_a", random_u8(prng, Shape{70, 200}));
    const std::string b = g.constant("mm_b", random_i8(prng, Shape{200, 90}));
    std::vector<std::int8_t> bz(90);
    for (std::int8_t& z : bz) z = static_cast<std::int8_t>(static_cast<std::int32_t>(prng.below(21)) - 10);
    g.output(g.node("QLinearMatMul",
                    {a, xs, g.constant("mm_az", u8_scalar(133)), b, g.constant("mm_bs", scales(prng, 90, 14)),
                     g.constant("mm_bz", Tensor::from_values<std::int8_t>(DType::I8, Shape{90}, std::span<const std::int8_t>(bz))),
                     ys, g.constant("mm_yz", u8_scalar(128))},
                    {}, "qmatmul_per_column"),
             2);
    // int8 x int8, batched b as a graph input, per-tensor scales.
    const std::string a8 = g.input("mm8_a", random_i8(prng, Shape{3, 37, 64}));
    const std::string b8 = g.input("mm8_b", random_i8(prng, Shape{3, 64, 50}));
    g.output(g.node("QLinearMatMul",
                    {a8, xs, g.constant("mm8_az", i8_scalar(7)), b8, g.constant("mm8_bs", f32_scalar(1.0f / 128)),
                     g.constant("mm8_bz", i8_scalar(-2)), g.constant("mm8_ys", f32_scalar(1.0f / 8)),
                     g.constant("mm8_yz", i8_scalar(0))},
                    {}, "qmatmul_int8_batched"),
             3);
  }
  return g.finish();
}

// ConvInteger with groups, a depthwise one, a wide 1x1 and a strided dilated one (int32 results).
// Each tensor is drawn in its own statement: the order in which a call's arguments are evaluated
// is unspecified, and it differs between the x86-64 and aarch64 builds, which would change which
// values each tensor gets.
GoldenGraph int8_conv_integer() {
  Prng prng = prng_for("int8_conv_integer");
  GraphBuilder g(21);
  enum class Kind { U8, I8 };
  const auto draw = [&](Kind kind, const Shape& shape) { return kind == Kind::U8 ? random_u8(prng, shape) : random_i8(prng, shape); };
  const auto conv = [&](const std::string& name, Kind xk, const Shape& x_shape, Kind wk, const Shape& w_shape, Tensor xz,
                        Tensor wz, std::vector<IrAttribute> attrs, bool w_constant) {
    Tensor x = draw(xk, x_shape);
    Tensor w = draw(wk, w_shape);
    const std::string xi = g.input(name + "_x", std::move(x));
    const std::string wi = w_constant ? g.constant(name + "_w", w) : g.input(name + "_w", std::move(w));
    g.output(g.node("ConvInteger", {xi, wi, g.constant(name + "_xz", xz), g.constant(name + "_wz", wz)}, std::move(attrs), name),
             6);
  };
  conv("grouped", Kind::U8, Shape{2, 8, 14, 12}, Kind::U8, Shape{12, 4, 3, 3}, u8_scalar(128), u8_scalar(120),
       conv_attrs(3, 1, 2, 2), true);
  conv("depthwise", Kind::I8, Shape{1, 24, 17, 16}, Kind::I8, Shape{24, 1, 3, 3}, i8_scalar(-5), i8_scalar(0),
       conv_attrs(3, 1, 1, 24), true);
  conv("depthwise_s2_u8_i8", Kind::U8, Shape{2, 16, 13, 15}, Kind::I8, Shape{16, 1, 3, 3}, u8_scalar(17), i8_scalar(3),
       conv_attrs(3, 1, 2, 16), false);
  conv("wide_1x1", Kind::U8, Shape{1, 64, 9, 9}, Kind::I8, Shape{72, 64, 1, 1}, u8_scalar(0), i8_scalar(0),
       conv_attrs(1, 0, 1, 1), true);
  conv("dilated_i8_u8", Kind::I8, Shape{1, 6, 16, 16}, Kind::U8, Shape{10, 6, 3, 3}, i8_scalar(1), u8_scalar(128),
       conv_attrs(3, 2, 1, 1, 2), false);
  return g.finish();
}

}  // namespace

void add_int8_cases(CaseList& cases) {
  cases.push_back({"int8_qdq_conv_chain", true, int8_qdq_conv_chain});
  cases.push_back({"int8_dynamic_matmul_chain", true, int8_dynamic_matmul_chain});
  cases.push_back({"int8_qlinear_per_channel", true, int8_qlinear_per_channel});
  cases.push_back({"int8_conv_integer", true, int8_conv_integer});
}

}  // namespace onemodel::golden
