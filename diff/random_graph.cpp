#include "diff/random_graph.hpp"

#include <cstring>
#include <limits>

#include "diff/graph_builder.hpp"

namespace onemodel::diff {
namespace {

IrAttribute int_attribute(const std::string& name, std::int64_t v) {
  IrAttribute a;
  a.name = name;
  a.type = AttrType::Int;
  a.i = v;
  return a;
}

IrAttribute float_attribute(const std::string& name, float v) {
  IrAttribute a;
  a.name = name;
  a.type = AttrType::Float;
  a.f = v;
  return a;
}

IrAttribute ints_attribute(const std::string& name, std::vector<std::int64_t> v) {
  IrAttribute a;
  a.name = name;
  a.type = AttrType::Ints;
  a.ints = std::move(v);
  return a;
}

struct Value {
  std::string name;
  std::vector<std::int64_t> shape;
};

std::int64_t count_of(const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (std::int64_t e : shape) n *= e;
  return n;
}

class Generator {
 public:
  explicit Generator(ByteSource& source) : source_(source) {}

  RandomGraph make() {
    RandomGraph out;
    const bool image = source_.in_range(0, 3) == 0;
    std::vector<std::int64_t> shape;
    if (image) {
      shape = {1, source_.in_range(1, 6), source_.in_range(1, 12), source_.in_range(1, 19)};
    } else if (source_.in_range(0, 2) == 0) {
      shape = {source_.in_range(1, 3), source_.in_range(1, 7), source_.in_range(1, 40)};
    } else {
      shape = {source_.in_range(1, 9), source_.in_range(1, 70)};
    }
    const Tensor x = tensor(shape);
    builder_.input("x", DType::F32, x.shape());
    out.feeds.emplace_back("x", x);
    Value current{"x", shape};
    const int steps = source_.in_range(1, 6);
    for (int s = 0; s < steps; ++s) {
      current = step(current, out.description);
      if (source_.in_range(0, 4) == 0 && s + 1 < steps) builder_.output(current.name, DType::F32);
    }
    builder_.output(current.name, DType::F32);
    out.model = builder_.build();
    return out;
  }

 private:
  Tensor tensor(const std::vector<std::int64_t>& shape) {
    std::vector<float> v(static_cast<std::size_t>(count_of(shape)));
    for (float& f : v) f = source_.value();
    return Tensor::from_values<float>(DType::F32, Shape(std::span<const std::int64_t>(shape)), v);
  }

  std::string constant(const std::vector<std::int64_t>& shape) {
    const std::string name = numbered("w");
    builder_.initializer(name, tensor(shape));
    return name;
  }

  std::string fresh() { return numbered("v"); }

  // The prefix and the counter appended apart: g++ 12 -O3 reports a false -Wrestrict (GCC bug
  // 105329) on "w" + std::to_string(n), which stops the Release -Werror build.
  std::string numbered(const char* prefix) {
    std::string name(prefix);
    name += std::to_string(next_++);
    return name;
  }

  Value step(const Value& in, std::string& description) {
    const std::size_t rank = in.shape.size();
    const std::int64_t last = in.shape.back();
    const int choice = source_.in_range(0, 15);
    const std::string out = fresh();
    static const char* const kUnary[] = {"Relu", "Neg", "Abs", "Sigmoid", "Tanh", "Exp", "Erf", "Sqrt", "Log"};
    if (choice <= 8) {
      builder_.node(kUnary[choice], {in.name}, {out});
      description += std::string(kUnary[choice]) + " ";
      return {out, in.shape};
    }
    if (choice == 9) {
      static const char* const kBinary[] = {"Add", "Sub", "Mul", "Div"};
      const char* op = kBinary[source_.in_range(0, 3)];
      std::vector<std::int64_t> other;
      switch (source_.in_range(0, 3)) {
        case 0: other = in.shape; break;
        case 1: other = {last}; break;
        case 2: other = {}; break;
        default: other = std::vector<std::int64_t>(rank, 1); other[0] = in.shape[0]; break;
      }
      const std::string c = constant(other);
      if (source_.in_range(0, 1) == 0) {
        builder_.node(op, {in.name, c}, {out});
      } else {
        builder_.node(op, {c, in.name}, {out});
      }
      description += std::string(op) + " ";
      return {out, in.shape};
    }
    if (choice == 10 && rank != 4) {
      const std::int64_t k = source_.in_range(1, 40);
      builder_.node("MatMul", {in.name, constant({last, k})}, {out});
      description += "MatMul ";
      std::vector<std::int64_t> shape = in.shape;
      shape.back() = k;
      return {out, shape};
    }
    if (choice == 11) {
      builder_.node("Softmax", {in.name}, {out}, {int_attribute("axis", -1)});
      description += "Softmax ";
      return {out, in.shape};
    }
    if (choice == 12) {
      builder_.node("LayerNormalization", {in.name, constant({last}), constant({last})}, {out},
                    {int_attribute("axis", -1), float_attribute("epsilon", 1e-5f)});
      description += "LayerNormalization ";
      return {out, in.shape};
    }
    if (choice == 13) {
      IrAttribute keep = int_attribute("keepdims", 1);
      const std::string axes = numbered("axes");
      builder_.initializer(axes, Tensor::from_values<std::int64_t>(DType::I64, Shape{1}, {-1}));
      builder_.node("ReduceSum", {in.name, axes}, {out}, {keep});
      description += "ReduceSum ";
      std::vector<std::int64_t> shape = in.shape;
      shape.back() = 1;
      return {out, shape};
    }
    if (choice == 14 && rank >= 2) {
      std::vector<std::int64_t> perm(rank);
      for (std::size_t i = 0; i < rank; ++i) perm[i] = static_cast<std::int64_t>(i);
      std::swap(perm[rank - 1], perm[rank - 2]);
      builder_.node("Transpose", {in.name}, {out}, {ints_attribute("perm", perm)});
      description += "Transpose ";
      std::vector<std::int64_t> shape = in.shape;
      std::swap(shape[rank - 1], shape[rank - 2]);
      return {out, shape};
    }
    if (choice == 15 && rank == 4) {
      // Regular, grouped or depthwise convolution with small kernels, strides, pads, dilations.
      const std::int64_t channels = in.shape[1];
      const bool depthwise = source_.in_range(0, 1) == 0;
      const std::int64_t group = depthwise ? channels : 1;
      const std::int64_t out_channels = depthwise ? channels * source_.in_range(1, 2) : source_.in_range(1, 8);
      const std::int64_t kh = source_.in_range(1, 3), kw = source_.in_range(1, 5);
      const std::int64_t sh = source_.in_range(1, 2), sw = source_.in_range(1, 3);
      const std::int64_t ph = source_.in_range(0, 2), pw = source_.in_range(0, 2);
      const std::int64_t oh = (in.shape[2] + 2 * ph - kh) / sh + 1;
      const std::int64_t ow = (in.shape[3] + 2 * pw - kw) / sw + 1;
      if (oh >= 1 && ow >= 1) {
        std::vector<std::string> inputs{in.name, constant({out_channels, channels / group, kh, kw})};
        if (source_.in_range(0, 1) == 0) inputs.push_back(constant({out_channels}));
        builder_.node("Conv", inputs, {out},
                      {int_attribute("group", group), ints_attribute("kernel_shape", {kh, kw}),
                       ints_attribute("strides", {sh, sw}), ints_attribute("pads", {ph, pw, ph, pw})});
        description += depthwise ? "DepthwiseConv " : "Conv ";
        return {out, {in.shape[0], out_channels, oh, ow}};
      }
    }
    builder_.node("Relu", {in.name}, {out});
    description += "Relu ";
    return {out, in.shape};
  }

  ByteSource& source_;
  graph_builder::GraphBuilder builder_{17};
  int next_ = 0;
};

}  // namespace

int ByteSource::in_range(int lo, int hi) noexcept {
  const unsigned span = static_cast<unsigned>(hi - lo + 1);
  return lo + static_cast<int>(byte() % span);
}

float ByteSource::value() noexcept {
  const std::uint8_t kind = byte();
  if (kind < 216) return static_cast<float>(static_cast<int>(byte()) - 128) / 16.0f;
  switch (kind % 8) {
    case 0: return std::numeric_limits<float>::quiet_NaN();
    case 1: return std::numeric_limits<float>::infinity();
    case 2: return -std::numeric_limits<float>::infinity();
    case 3: return -0.0f;
    case 4: return std::numeric_limits<float>::denorm_min() * static_cast<float>(byte());
    case 5: return 3.0e38f;
    default: {
      std::uint32_t bits = 0;
      for (int i = 0; i < 4; ++i) bits = (bits << 8) | byte();
      float f;
      std::memcpy(&f, &bits, 4);
      return f;
    }
  }
}

RandomGraph random_graph(ByteSource& source) { return Generator(source).make(); }

}  // namespace onemodel::diff
