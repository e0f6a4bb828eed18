#include "diff/op_fuzz_case.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <map>
#include <memory>

#include "core/graph/op_kernel.hpp"
#include "core/ir/resolve.hpp"
#include "core/tensor/subbyte.hpp"
#include "diff/graph_builder.hpp"
#include "diff/op_harness.hpp"
#include "diff/op_schemas.hpp"
#include "onemodel/error.hpp"
#include "onemodel/half.hpp"

namespace onemodel::diff {
namespace {

constexpr std::array<DType, 13> kStored = {DType::F32, DType::F64, DType::F16, DType::BF16, DType::I8,
                                           DType::I16, DType::I32, DType::I64, DType::U8,  DType::U16,
                                           DType::U32, DType::U64, DType::Bool};

// Every string value some operator of the table reads (auto_pad, Pad/Resize modes, recurrent
// directions and activations, reductions, DepthToSpace modes), plus nonsense.
constexpr const char* kWords[] = {
    "NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID", "constant", "reflect", "edge", "wrap", "nearest",
    "linear", "cubic", "half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel",
    "tf_crop_and_resize", "half_pixel_symmetric", "round_prefer_floor", "round_prefer_ceil", "floor",
    "ceil", "stretch", "not_larger", "not_smaller", "forward", "reverse", "bidirectional", "Relu",
    "Tanh", "Sigmoid", "Affine", "LeakyRelu", "ThresholdedRelu", "ScaledTanh", "HardSigmoid", "Elu",
    "Softsign", "Softplus", "none", "mean", "sum", "add", "mul", "max", "min", "DCR", "CRD", "LEFT",
    "RIGHT", "tanh", "", "bogus"};

// Integers: mostly small (valid axes, extents, indices), sometimes the edges of the 32- and
// 64-bit ranges that size and index arithmetic must survive.
std::int64_t fuzz_int(ByteSource& s) {
  // A byte past the end of the input reads 0: zeros give the plain choices (here 0).
  static constexpr std::int64_t kSmall[] = {0, 1, 2, 3, -1, 4, 5, -2, 6, -3, 7, -4};
  const int kind = s.byte();
  if (kind < 200) return kSmall[kind % 12];
  switch (kind % 12) {
    case 0: return std::numeric_limits<std::int64_t>::min();
    case 1: return std::numeric_limits<std::int64_t>::max();
    case 2: return std::numeric_limits<std::int32_t>::min();
    case 3: return std::numeric_limits<std::int32_t>::max();
    case 4: return std::int64_t{1} << 31;
    case 5: return std::int64_t{1} << 32;
    case 6: return -(std::int64_t{1} << 62);
    case 7: return std::int64_t{1} << 62;
    case 8: return static_cast<std::int64_t>(s.byte()) - 128;
    case 9: return std::int64_t{65535};
    default: {
      std::uint64_t bits = 0;
      for (int i = 0; i < 8; ++i) bits = (bits << 8) | s.byte();
      std::int64_t v;
      std::memcpy(&v, &bits, 8);
      return v;
    }
  }
}

// A float32 from ByteSource::value() (NaN, infinities, -0, subnormals, 3e38, raw bits) plus
// values near the edges of float16 and the integer types, for Cast and the quantizers.
float fuzz_float(ByteSource& s) {
  if (s.in_range(0, 15) != 15) return s.value();
  switch (s.in_range(0, 5)) {
    case 0: return 65504.0f;
    case 1: return 65520.0f;
    case 2: return 2147483648.0f;
    case 3: return -9.3e18f;
    case 4: return std::numeric_limits<float>::min();
    default: return 0.5f;
  }
}

// A tensor drawn from this alone (one in four tensors) is made of the values whose handling
// differs between careless kernels: NaNs of both signs and with payloads (signalling too), signed
// zeros, infinities and subnormals.
float special_float(ByteSource& s) {
  static constexpr std::uint32_t kBits[] = {0x7FC00000u, 0xFFC00000u, 0x7FA00001u, 0xFF800001u, 0x7F800000u,
                                            0xFF800000u, 0x80000000u, 0x00000000u, 0x00000001u, 0x807FFFFFu,
                                            0x3F800000u, 0xBF800000u, 0x7F7FFFFFu, 0x00800000u, 0x7FFFFFFFu,
                                            0x80000001u};
  const std::uint32_t bits = kBits[s.in_range(0, 15)];
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

template <class T>
void put(std::vector<std::byte>& out, T v) {
  std::byte b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  out.insert(out.end(), b, b + sizeof(T));
}

void put_element(std::vector<std::byte>& out, DType type, ByteSource& s, bool special) {
  if (special && (type == DType::F32 || type == DType::F16 || type == DType::BF16 || type == DType::F64)) {
    const float f = special_float(s);
    if (type == DType::F32) put(out, f);
    if (type == DType::F64) put(out, static_cast<double>(f));
    if (type == DType::F16) put(out, float_to_half_bits(f));
    if (type == DType::BF16) put(out, float_to_bfloat16_bits(f));
    return;
  }
  switch (type) {
    case DType::F32: put(out, fuzz_float(s)); break;
    case DType::F64: {
      double d = fuzz_float(s);
      if (s.in_range(0, 31) == 0) d = std::numeric_limits<double>::denorm_min() * s.byte();
      put(out, d);
      break;
    }
    case DType::F16: put(out, s.in_range(0, 15) == 0 ? static_cast<std::uint16_t>(s.byte() | (s.byte() << 8))
                                                     : float_to_half_bits(fuzz_float(s)));
      break;
    case DType::BF16: put(out, float_to_bfloat16_bits(fuzz_float(s))); break;
    case DType::Bool: put(out, static_cast<std::uint8_t>(s.byte() & 1)); break;
    case DType::I8: put(out, static_cast<std::int8_t>(fuzz_int(s))); break;
    case DType::U8: put(out, static_cast<std::uint8_t>(fuzz_int(s))); break;
    case DType::I16: put(out, static_cast<std::int16_t>(fuzz_int(s))); break;
    case DType::U16: put(out, static_cast<std::uint16_t>(fuzz_int(s))); break;
    case DType::I32: put(out, static_cast<std::int32_t>(fuzz_int(s))); break;
    case DType::U32: put(out, static_cast<std::uint32_t>(fuzz_int(s))); break;
    case DType::I64: put(out, fuzz_int(s)); break;
    case DType::U64: put(out, static_cast<std::uint64_t>(fuzz_int(s))); break;
    case DType::String: break;  // never drawn: the fuzzed operators move bytes
    // 8-bit floats: any byte is a value or a NaN (spec/tensors.md section 2.1).
    case DType::F8E4M3FN:
    case DType::F8E4M3FNUZ:
    case DType::F8E5M2:
    case DType::F8E5M2FNUZ:
    case DType::F8E8M0: put(out, s.byte()); break;
    // Sub-byte types: one element per byte, in range (spec/tensors.md section 2.2).
    case DType::U4:
    case DType::I4:
    case DType::U2:
    case DType::I2: put(out, subbyte_integer_from_bits(type, static_cast<std::uint64_t>(fuzz_int(s)))); break;
    case DType::F4E2M1: put(out, static_cast<std::uint8_t>(s.byte() & 0x0F)); break;
  }
}

std::int64_t count_of(const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (std::int64_t e : shape) n *= e;
  return n;
}

constexpr int kExtents[] = {3, 2, 1, 4, 5, 1, 2, 3, 1, 1, 4, 2, 3, 5, 1, 2, 3, 1, 2, 0};

std::vector<std::int64_t> shrunk(std::vector<std::int64_t> shape) {
  for (std::size_t i = 0; count_of(shape) > kMaxInputElements; i = (i + 1) % shape.size()) {
    if (shape[i] > 1) --shape[i];
  }
  return shape;
}

// Rank 0 to 6 (mostly 1 to 4), extents 0 to 5 with 0 rare; shrunk until the count fits.
std::vector<std::int64_t> fuzz_shape(ByteSource& s) {
  static constexpr int kRanks[] = {2, 1, 1, 0, 2, 2, 3, 3, 3, 4, 4, 4, 5, 6, 1, 2};
  const int rank = kRanks[s.in_range(0, 15)];
  std::vector<std::int64_t> shape(static_cast<std::size_t>(rank));
  for (auto& e : shape) {
    e = kExtents[s.in_range(0, 19)];
  }
  return shrunk(std::move(shape));
}

// Another input's shape from the first one's: equal, broadcastable (leading axes dropped, some
// extents 1), a scalar, a short vector (axes, starts, pads), or unrelated; or, for the operators
// whose inputs are coupled axis by axis (Conv weights, recurrent W and R, per-channel scales), the
// same rank with each extent kept or redrawn, and a vector as long as one of the first's axes.
std::vector<std::int64_t> related_shape(ByteSource& s, const std::vector<std::int64_t>& base, bool integer) {
  const int k = s.in_range(0, 11);
  if (k == 8) {
    std::vector<std::int64_t> shape = base;
    for (auto& e : shape) {
      if (s.in_range(0, 1) == 1) e = kExtents[s.in_range(0, 19)];
    }
    return shrunk(std::move(shape));
  }
  if (k == 9 && !base.empty()) return {base[static_cast<std::size_t>(s.in_range(0, static_cast<int>(base.size()) - 1))]};
  if (k >= 10 && integer) return {static_cast<std::int64_t>(base.size()) * (k == 10 ? 2 : 1)};  // pads, axes
  if (k >= 8) return base;
  switch (k) {
    case 0: case 1: case 2: return base;
    case 3: {
      std::vector<std::int64_t> shape(base.begin() + std::min<std::ptrdiff_t>(s.in_range(0, 3),
                                                                                static_cast<std::ptrdiff_t>(base.size())),
                                      base.end());
      for (auto& e : shape) {
        if (s.in_range(0, 2) == 0) e = 1;
      }
      return shape;
    }
    case 4: return {};
    case 5: return fuzz_shape(s);
    default: return {static_cast<std::int64_t>(s.in_range(0, static_cast<int>(base.size()) + 1))};
  }
}



DType pick_type(ByteSource& s, std::uint32_t allowed) {
  std::vector<DType> choices;
  for (DType t : kStored) {
    if ((allowed >> static_cast<int>(t)) & 1u) choices.push_back(t);
  }
  if (choices.empty()) return kStored[static_cast<std::size_t>(s.in_range(0, 12))];
  return choices[static_cast<std::size_t>(s.in_range(0, static_cast<int>(choices.size()) - 1))];
}

std::uint32_t row_types(const OpDef& row) {
  // `any` and `any String` (spec/operator-contract.md section 1): every type the fuzzer builds.
  if (row.element_types == nullptr || std::string_view(row.element_types).substr(0, 3) == "any") return ~0u;
  std::uint32_t mask = 0;
  const std::string_view list(row.element_types);
  for (DType t : kStored) {
    const std::string_view name = dtype_name(t);
    for (std::size_t at = list.find(name); at != std::string_view::npos; at = list.find(name, at + 1)) {
      const bool starts = at == 0 || list[at - 1] == ' ';
      const bool ends = at + name.size() == list.size() || list[at + name.size()] == ' ';
      if (starts && ends) mask |= 1u << static_cast<int>(t);
    }
  }
  return mask;
}

// `rank` is the first input's rank: integer lists (kernel_shape, strides, pads, perm, axes) are
// mostly as long as its spatial axes, all of them or twice the spatial axes, and hold small
// positive numbers, so that a Conv or a pool gets a valid node as often as an invalid one.
IrAttribute fuzz_attribute(ByteSource& s, const char* name, int type, const char* default_string, int rank) {
  IrAttribute a;
  a.name = name;
  a.type = static_cast<AttrType>(type);
  const int count = s.in_range(0, 6);
  switch (a.type) {
    case AttrType::Int: a.i = fuzz_int(s); break;
    case AttrType::Float: a.f = fuzz_float(s); break;
    case AttrType::String:
      a.s = (default_string[0] != '\0' && s.in_range(0, 2) == 0)
                ? default_string
                : kWords[s.in_range(0, static_cast<int>(std::size(kWords)) - 1)];
      break;
    case AttrType::Ints: {
      const int spatial = std::max(rank - 2, 0);
      const int length = count == 0 ? spatial : count == 1 ? rank : count == 2 ? 2 * spatial : s.in_range(0, 6);
      const bool positive = s.in_range(0, 3) != 3;
      for (int i = 0; i < length; ++i) a.ints.push_back(positive ? s.in_range(1, 3) : fuzz_int(s));
      break;
    }
    case AttrType::Floats:
      for (int i = 0; i < count; ++i) a.floats.push_back(fuzz_float(s));
      break;
    case AttrType::Strings:
      for (int i = 0; i < count; ++i) a.strings.emplace_back(kWords[s.in_range(0, static_cast<int>(std::size(kWords)) - 1)]);
      break;
    case AttrType::Tensor: {
      const DType t = kStored[static_cast<std::size_t>(s.in_range(0, 12))];
      std::vector<std::int64_t> shape;
      if (s.in_range(0, 3) == 0) shape = fuzz_shape(s);
      else if (s.in_range(0, 1) == 0) shape = {1};
      a.tensors.push_back(graph_builder::ir_tensor_of("", fuzz_tensor(s, t, shape)));
      break;
    }
    default: a.type = AttrType::Int; a.i = fuzz_int(s); break;  // graphs and others: a wrong kind
  }
  return a;
}

// Attributes that alone fix how many elements a node makes (the random operators' `shape` and
// Multinomial's `sample_size`; spec/ops/random.md) are kept at most 64 per extent, so that a case
// stays small in all 30 runs of the differential check; negative values, which are refused, stay.
void bound_output_size(const std::string& op, IrAttribute& a) {
  constexpr std::int64_t kMaxExtent = 64;
  if ((op == "RandomUniform" || op == "RandomNormal") && a.name == "shape" && a.type == AttrType::Ints) {
    for (std::int64_t& v : a.ints) v = std::min(v, kMaxExtent);
  }
  if (op == "Multinomial" && a.name == "sample_size" && a.type == AttrType::Int) a.i = std::min(a.i, kMaxExtent);
}

// Outside the schema: an attribute of the wrong kind.
IrAttribute wrong_kind(ByteSource& s, const char* name) {
  static constexpr int kKinds[] = {1, 2, 3, 6, 7, 8};
  return fuzz_attribute(s, name, kKinds[s.in_range(0, 5)], "", 0);
}

IrValueInfo declared(const std::string& name, DType type, const std::vector<std::int64_t>* shape) {
  IrValueInfo v;
  v.name = name;
  v.type.kind = IrType::Kind::Tensor;
  v.type.elem_type = static_cast<std::int32_t>(type);
  if (shape != nullptr) {
    v.type.has_shape = true;
    for (std::int64_t e : *shape) {
      IrDim d;
      d.kind = IrDim::Kind::Value;
      d.value = e;
      v.type.shape.push_back(d);
    }
  }
  return v;
}

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) text += ",";
    text += std::to_string(shape[i]);  // appended apart: g++ 12 -O3 gives a false -Wrestrict on "," + string
  }
  return text + "]";
}

}  // namespace

Tensor fuzz_tensor(ByteSource& s, DType type, const std::vector<std::int64_t>& shape) {
  const std::int64_t n = count_of(shape);
  if (type == DType::String) {
    // Words, the empty string and a multi-byte UTF-8 one (spec/tensors.md section 8).
    std::vector<std::string> words;
    for (std::int64_t i = 0; i < n; ++i) {
      const int pick = s.in_range(0, static_cast<int>(std::size(kWords)) + 1);
      words.emplace_back(pick == 0 ? "" : pick == 1 ? "\xC3\xA9t\xC3\xA9" : kWords[pick - 2]);
    }
    return Tensor::from_strings(Shape(std::span<const std::int64_t>(shape)), words);
  }
  std::vector<std::byte> bytes;
  bytes.reserve(static_cast<std::size_t>(n) * dtype_size(type));
  const bool special = s.in_range(0, 3) == 3;
  for (std::int64_t i = 0; i < n; ++i) put_element(bytes, type, s, special);
  return Tensor::from_bytes(type, Shape(std::span<const std::int64_t>(shape)), bytes);
}

const OpSchema* find_schema(std::string_view op, std::int64_t opset) noexcept {
  const OpSchema* best = nullptr;
  for (const OpSchema& s : op_schemas()) {
    if (op == s.op && s.since <= opset && (best == nullptr || s.since > best->since)) best = &s;
  }
  return best;
}

OpFuzzCase build_op_case(ByteSource& source) {
  // Bit 0 of the first byte set: a row the optimized engine overrides (the only rows where the
  // engines run different code); clear: any row. The other 15 bits index the chosen list.
  const std::uint8_t first = source.byte();
  const std::size_t index = static_cast<std::size_t>(first >> 1) << 8 | source.byte();
  const std::span<const OpDef> rows = all_ops();
  if ((first & 1) == 0) return build_op_case(source, index);
  std::vector<std::size_t> overridden;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (has_override(rows[r].op_type, rows[r].min_opset) || has_override(rows[r].op_type, rows[r].max_opset)) {
      overridden.push_back(r);
    }
  }
  return build_op_case(source, overridden.empty() ? index : overridden[index % overridden.size()]);
}

OpFuzzCase build_op_case(ByteSource& s, std::size_t row_index) {
  const std::span<const OpDef> rows = all_ops();
  const OpDef& row = rows[row_index % rows.size()];
  // Mostly inside the row's range; sometimes one past either end (the table must refuse it).
  std::int64_t opset = row.min_opset + s.in_range(0, row.max_opset - row.min_opset);
  if (s.in_range(0, 31) == 31) opset = s.in_range(0, 1) == 0 ? row.min_opset - 1 : row.max_opset + 1;
  if (opset < 1) opset = 1;
  const OpSchema* schema = find_schema(row.op_type, std::max<std::int64_t>(opset, row.min_opset));

  OpFuzzCase out;
  out.description = std::string(row.op_type) + " opset " + std::to_string(opset) + ":";
  IrModel& model = out.model;
  model.ir_version = 8;
  model.opset_imports = {{row.domain, opset}};
  IrGraph& graph = model.graph;
  graph.name = "operator_fuzz";
  IrNode node;
  node.op_type = row.op_type;
  node.domain = row.domain;
  node.name = "node";

  // Element type per type parameter; the main one from the row's stated types, mostly.
  std::map<std::string, DType> types;
  const std::uint32_t stated = row_types(row);
  const std::vector<std::int64_t> base = fuzz_shape(s);
  const int input_count = schema != nullptr ? schema->input_count : s.in_range(1, 3);
  int name_index = 0;
  for (int i = 0; i < input_count; ++i) {
    const SchemaInput* formal = schema != nullptr ? &schema->inputs[i] : nullptr;
    int copies = 1;
    if (formal != nullptr && formal->option == 1 && s.in_range(0, 1) == 1) copies = 0;
    if (formal != nullptr && formal->option == 2) copies = s.in_range(formal == &schema->inputs[0] ? 1 : 0, 4);
    const std::string param = formal != nullptr ? formal->type_param : "T";
    if (!types.count(param)) {
      std::uint32_t allowed = formal != nullptr ? formal->types : ~0u;
      if (i == 0 && (allowed & stated) != 0 && s.in_range(0, 7) != 0) allowed &= stated;
      // float32 first (three in four): the optimized engine's kernels are float32 ones.
      const int how = s.in_range(0, 31);
      if (how == 31) {
        types[param] = kStored[static_cast<std::size_t>(s.in_range(0, 12))];
      } else if (how < 24 && ((allowed >> static_cast<int>(DType::F32)) & 1u)) {
        types[param] = DType::F32;
      } else {
        types[param] = pick_type(s, allowed);
      }
    }
    for (int c = 0; c < copies; ++c) {
      const DType type = types[param];
      const bool integer = type == DType::I64 || type == DType::I32;
      const std::vector<std::int64_t> shape = i == 0 && c == 0 ? base : related_shape(s, base, integer);
      const Tensor value = fuzz_tensor(s, type, shape);
      const std::string name = "x" + std::to_string(name_index++);
      // Input 0 is fed, mostly; the others are weights as often as fed values.
      const int constant_pick = s.in_range(0, i == 0 ? 7 : 1);
      const bool constant = i == 0 ? constant_pick == 7 : constant_pick == 1;
      if (constant) {
        graph.initializers.push_back(graph_builder::ir_tensor_of(name, value));
      } else {
        const bool fixed = s.in_range(0, 3) != 3;  // else rank and extents unknown until run
        graph.inputs.push_back(declared(name, type, fixed ? &shape : nullptr));
        out.feeds.emplace_back(name, value);
      }
      node.inputs.push_back(name);
      out.description += std::string(" ") + (constant ? "const " : "") + std::string(dtype_name(type)) +
                         shape_text(shape);
    }
    if (copies == 0 && formal != nullptr && formal->option == 1) node.inputs.emplace_back();  // omitted optional
  }
  while (!node.inputs.empty() && node.inputs.back().empty() && s.in_range(0, 1) == 0) node.inputs.pop_back();
  if (s.in_range(0, 63) == 63) {  // one input too many
    node.inputs.push_back(graph.inputs.empty() ? std::string() : graph.inputs[0].name);
    out.description += " +extra input";
  }

  if (schema != nullptr) {
    for (int i = 0; i < schema->attribute_count; ++i) {
      const SchemaAttribute& a = schema->attributes[i];
      const int pick = s.in_range(0, 63);
      if (pick == 63) {
        node.attributes.push_back(wrong_kind(s, a.name));
      } else if (a.required ? pick != 62 : pick >= 32) {
        node.attributes.push_back(fuzz_attribute(s, a.name, a.type, a.default_string, static_cast<int>(base.size())));
      } else {
        continue;
      }
      bound_output_size(node.op_type, node.attributes.back());
      const IrAttribute& last = node.attributes.back();
      out.description += std::string(" ") + a.name + "=";
      switch (last.type) {
        case AttrType::Int: out.description += std::to_string(last.i); break;
        case AttrType::Float: out.description += std::to_string(last.f); break;
        case AttrType::String: out.description += "'" + last.s + "'"; break;
        case AttrType::Ints: out.description += shape_text(last.ints); break;
        default: out.description += "(" + std::to_string(static_cast<int>(last.type)) + ")"; break;
      }
    }
  }
  if (s.in_range(0, 63) == 63) {
    node.attributes.push_back(fuzz_attribute(s, "not_in_schema", 2, "", 0));
    out.description += " not_in_schema";
  }

  const int outputs_min = schema != nullptr ? schema->outputs_min : 1;
  const int outputs_max = schema != nullptr ? schema->outputs_max : 1;
  const int outputs = s.in_range(outputs_min, outputs_max);
  for (int i = 0; i < outputs; ++i) {
    const std::string name = "y" + std::to_string(i);
    node.outputs.push_back(name);
    IrValueInfo v;
    v.name = name;
    graph.outputs.push_back(v);
  }
  graph.nodes.push_back(std::move(node));
  try {
    resolve_model(model, FieldPathStyle::Onnx);
  } catch (const ModelError& e) {
    out.model_error = e.describe();
  }
  return out;
}

}  // namespace onemodel::diff
