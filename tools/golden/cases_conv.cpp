// Convolutions (exact-mode.md, "Convolution"; ops-conv.md; kernels-depthwise.md): a small network
// (3x3 and 1x1, grouped, depthwise at stride 1 and 2, Relu, MaxPool, AveragePool, a residual Add,
// GlobalAveragePool), sweeps of the spatial size through the kernels' tails, padding, dilation,
// stride and channel-multiplier variants, and weights that are infinite where they meet padding.
#include <string>

#include "tools/golden/golden_case.hpp"
#include "tools/golden/prng.hpp"

namespace onemodel::golden {
namespace {

Tensor random_tensor(Prng& prng, const Shape& shape, float scale = 1.0f) {
  return float_tensor(shape, symmetric_values(prng, shape.element_count(), scale));
}

std::vector<IrAttribute> conv_attrs(std::int64_t kernel, std::vector<std::int64_t> pads, std::int64_t stride,
                                    std::int64_t group, std::int64_t dilation = 1) {
  return {attr_ints("kernel_shape", {kernel, kernel}), attr_ints("pads", std::move(pads)),
          attr_ints("strides", {stride, stride}), attr_int("group", group),
          attr_ints("dilations", {dilation, dilation})};
}

GoldenGraph conv_network() {
  Prng prng = prng_for("conv_network");
  GraphBuilder g;
  // Weights scaled by 1/4 keep activations near 1 through the layers.
  const std::string x = g.input("x", random_tensor(prng, Shape{2, 8, 21, 21}));
  const std::string w1 = g.constant("w1", random_tensor(prng, Shape{16, 8, 3, 3}, 0.25f));
  const std::string b1 = g.constant("b1", random_tensor(prng, Shape{16}));
  const std::string w2 = g.constant("w2", random_tensor(prng, Shape{16, 16, 1, 1}, 0.25f));
  const std::string b2 = g.constant("b2", random_tensor(prng, Shape{16}));
  const std::string w3 = g.constant("w3", random_tensor(prng, Shape{16, 4, 3, 3}, 0.25f));
  const std::string wd1 = g.constant("wd1", random_tensor(prng, Shape{16, 1, 3, 3}, 0.25f));
  const std::string bd1 = g.constant("bd1", random_tensor(prng, Shape{16}));
  const std::string wd2 = g.constant("wd2", random_tensor(prng, Shape{16, 1, 3, 3}, 0.25f));

  const std::string c1 = g.node("Conv", {x, w1, b1}, conv_attrs(3, {1, 1, 1, 1}, 1, 1), "conv3x3");
  const std::string r1 = g.node("Relu", {c1}, {}, "relu1");
  const std::string c2 = g.node("Conv", {r1, w2, b2}, conv_attrs(1, {0, 0, 0, 0}, 1, 1), "conv1x1");
  const std::string c3 = g.node("Conv", {c2, w3}, conv_attrs(3, {1, 1, 1, 1}, 1, 4), "grouped");
  const std::string d1 = g.node("Conv", {c3, wd1, bd1}, conv_attrs(3, {1, 1, 1, 1}, 1, 16), "depthwise_s1");
  const std::string r2 = g.node("Relu", {d1}, {}, "relu2");
  const std::string a1 = g.node("Add", {r2, r1}, {}, "residual");
  const std::string d2 = g.node("Conv", {a1, wd2}, conv_attrs(3, {1, 1, 1, 1}, 2, 16), "depthwise_s2");
  const std::string mp = g.node("MaxPool", {d2}, {attr_ints("kernel_shape", {2, 2}), attr_ints("strides", {2, 2})},
                                "maxpool");
  const std::string ap1 = g.node("AveragePool", {a1},
                                 {attr_ints("kernel_shape", {3, 3}), attr_ints("strides", {1, 1}),
                                  attr_ints("pads", {1, 1, 1, 1}), attr_int("count_include_pad", 0)},
                                 "avgpool_exclude_pad");
  const std::string ap2 = g.node("AveragePool", {a1},
                                 {attr_ints("kernel_shape", {3, 3}), attr_ints("strides", {2, 2}),
                                  attr_ints("pads", {1, 1, 1, 1}), attr_int("count_include_pad", 1)},
                                 "avgpool_include_pad");
  const std::string gap = g.node("GlobalAveragePool", {mp}, {}, "global_avgpool");
  for (const std::string& out : {r1, c2, c3, d1, a1, d2, mp, ap1, ap2, gap}) g.output(out);
  return g.finish();
}

// 3x3 "same" convolutions over every spatial size 1..24 (the kernels' row and column tails).
GoldenGraph conv_size_sweep() {
  Prng prng = prng_for("conv_size_sweep");
  GraphBuilder g;
  for (std::int64_t s = 1; s <= 24; ++s) {
    const std::string tag = std::to_string(s);
    const std::string x = g.input("x_" + tag, random_tensor(prng, Shape{1, 3, s, s + 2}));
    const std::string w = g.constant("w_" + tag, random_tensor(prng, Shape{5, 3, 3, 3}, 0.5f));
    const std::string b = g.constant("b_" + tag, random_tensor(prng, Shape{5}));
    g.output(g.node("Conv", {x, w, b}, conv_attrs(3, {1, 1, 1, 1}, 1, 1), "conv_" + tag));
  }
  return g.finish();
}

// Depthwise 3x3 at stride 1 and 2 over widths 1..40 (kernels-depthwise.md: vector lanes hold
// output columns, so every width tail matters).
GoldenGraph depthwise_sweep() {
  Prng prng = prng_for("depthwise_sweep");
  GraphBuilder g;
  for (std::int64_t w = 1; w <= 40; ++w) {
    for (std::int64_t stride : {1, 2}) {
      const std::string tag = std::to_string(w) + "_s" + std::to_string(stride);
      const std::string x = g.input("x_" + tag, random_tensor(prng, Shape{1, 6, 5, w}));
      const std::string k = g.constant("w_" + tag, random_tensor(prng, Shape{6, 1, 3, 3}, 0.5f));
      g.output(g.node("Conv", {x, k}, conv_attrs(3, {1, 1, 1, 1}, stride, 6), "dw_" + tag));
    }
  }
  return g.finish();
}

// Geometry variants: asymmetric padding, dilation, stride 2 in a dense convolution, a kernel wider
// than the input, a strided 1x1, a depthwise convolution with channel multiplier 2, batch 3.
GoldenGraph conv_variants() {
  Prng prng = prng_for("conv_variants");
  GraphBuilder g;
  const std::string x = g.input("x", random_tensor(prng, Shape{3, 4, 13, 11}));
  const auto conv = [&](const std::string& name, const Shape& w_shape, std::vector<IrAttribute> attrs, bool bias) {
    const std::string w = g.constant("w_" + name, random_tensor(prng, w_shape, 0.5f));
    std::vector<std::string> ins = {x, w};
    if (bias) ins.push_back(g.constant("b_" + name, random_tensor(prng, Shape{w_shape[0]})));
    g.output(g.node("Conv", ins, std::move(attrs), name));
  };
  conv("asym_pad_5x5_s2", Shape{6, 4, 5, 5}, conv_attrs(5, {2, 1, 0, 2}, 2, 1), true);
  conv("dilated_3x3", Shape{5, 4, 3, 3}, conv_attrs(3, {2, 2, 2, 2}, 1, 1, 2), false);
  conv("kernel_wider_than_input", Shape{2, 4, 15, 15}, conv_attrs(15, {7, 7, 7, 7}, 1, 1), true);
  conv("strided_1x1", Shape{7, 4, 1, 1}, conv_attrs(1, {0, 0, 0, 0}, 2, 1), true);
  conv("depthwise_multiplier2_5x5_s2", Shape{8, 1, 5, 5}, conv_attrs(5, {2, 2, 2, 2}, 2, 4), true);
  conv("grouped_2", Shape{6, 2, 3, 3}, conv_attrs(3, {0, 1, 0, 1}, 1, 2), false);
  conv("rect_kernel", Shape{3, 4, 1, 3},
       {attr_ints("kernel_shape", {1, 3}), attr_ints("pads", {0, 1, 0, 1}), attr_ints("strides", {1, 2})}, true);
  return g.finish();
}

// An infinite weight meets padding: the padding tap is a real product with +0, so the output is
// NaN there (exact-mode.md, "Convolution"), stored as the canonical NaN (rule 4).
GoldenGraph conv_specials() {
  Prng prng = prng_for("conv_specials");
  const std::vector<float> specials = special_values();
  GraphBuilder g;
  std::vector<float> xv = symmetric_values(prng, 2 * 3 * 9 * 9);
  for (float& v : xv) {
    if (prng.below(11) == 0) v = specials[prng.below(static_cast<std::uint32_t>(specials.size()))];
  }
  const std::string x = g.input("x", float_tensor(Shape{1, 6, 9, 9}, xv));
  std::vector<float> wv = symmetric_values(prng, 4 * 6 * 3 * 3, 0.5f);
  wv[0] = float_from_bits(0x7F800000u);  // +inf at the top-left tap of output channel 0
  const std::string w = g.input("w", float_tensor(Shape{4, 6, 3, 3}, wv));
  g.output(g.node("Conv", {x, w}, conv_attrs(3, {1, 1, 1, 1}, 1, 1), "dense"));
  std::vector<float> dv = symmetric_values(prng, 6 * 9, 0.5f);
  dv[4] = float_from_bits(0xFF800000u);
  const std::string dw = g.input("dw", float_tensor(Shape{6, 1, 3, 3}, dv));
  g.output(g.node("Conv", {x, dw}, conv_attrs(3, {1, 1, 1, 1}, 2, 6), "depthwise"));
  g.output(g.node("MaxPool", {x}, {attr_ints("kernel_shape", {3, 3}), attr_ints("pads", {1, 1, 1, 1})}, "maxpool"));
  return g.finish();
}

GoldenGraph conv_large() {
  Prng prng = prng_for("conv_large");
  GraphBuilder g;
  const std::string x = g.input("x", random_tensor(prng, Shape{1, 64, 56, 56}));
  const std::string w = g.constant("w", random_tensor(prng, Shape{64, 64, 3, 3}, 0.125f));
  const std::string b = g.constant("b", random_tensor(prng, Shape{64}));
  const std::string c = g.node("Conv", {x, w, b}, conv_attrs(3, {1, 1, 1, 1}, 1, 1), "conv3x3");
  const std::string wd = g.constant("wd", random_tensor(prng, Shape{64, 1, 3, 3}, 0.5f));
  const std::string d = g.node("Conv", {c, wd}, conv_attrs(3, {1, 1, 1, 1}, 2, 64), "depthwise_s2");
  const std::string w1 = g.constant("w1", random_tensor(prng, Shape{128, 64, 1, 1}, 0.125f));
  g.output(c);
  g.output(d);
  g.output(g.node("Conv", {d, w1}, conv_attrs(1, {0, 0, 0, 0}, 1, 1), "conv1x1"));
  return g.finish();
}

}  // namespace

void add_conv_cases(CaseList& cases) {
  cases.push_back({"conv_network", true, conv_network});
  cases.push_back({"conv_size_sweep", true, conv_size_sweep});
  cases.push_back({"depthwise_sweep", true, depthwise_sweep});
  cases.push_back({"conv_variants", true, conv_variants});
  cases.push_back({"conv_specials", true, conv_specials});
  cases.push_back({"conv_large", false, conv_large});
}

}  // namespace onemodel::golden
