#include "diff/counterexample.hpp"

#include <cereal/archives/json.hpp>
#include <cereal/types/string.hpp>
#include <cereal/types/vector.hpp>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "core/graph/tensor_bytes.hpp"

namespace onemodel::diff {

template <class Archive>
void serialize(Archive& ar, SavedTensor& t) {
  ar(cereal::make_nvp("defined", t.defined), cereal::make_nvp("dtype", t.dtype), cereal::make_nvp("shape", t.shape),
     cereal::make_nvp("hex", t.hex));
}

template <class Archive>
void serialize(Archive& ar, SavedAttribute& a) {
  ar(cereal::make_nvp("name", a.name), cereal::make_nvp("type", a.type), cereal::make_nvp("i", a.i),
     cereal::make_nvp("f_bits", a.f_bits), cereal::make_nvp("s", a.s), cereal::make_nvp("ints", a.ints),
     cereal::make_nvp("floats_bits", a.floats_bits));
}

template <class Archive>
void serialize(Archive& ar, Counterexample& c) {
  ar(cereal::make_nvp("property", c.property), cereal::make_nvp("op", c.op), cereal::make_nvp("opset", c.opset),
     cereal::make_nvp("attributes", c.attributes), cereal::make_nvp("inputs", c.inputs),
     cereal::make_nvp("constant", c.constant), cereal::make_nvp("outputs", c.outputs), cereal::make_nvp("isa", c.isa),
     cereal::make_nvp("threads", c.threads), cereal::make_nvp("reference_hash", c.reference_hash),
     cereal::make_nvp("optimized_hash", c.optimized_hash), cereal::make_nvp("difference", c.difference));
}

namespace {

std::uint32_t bits_of(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

float float_of(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

SavedTensor save_tensor(const Tensor& t) {
  SavedTensor saved;
  if (!t.defined()) return saved;
  saved.defined = true;
  saved.dtype = static_cast<std::int32_t>(t.dtype());
  for (int d = 0; d < t.shape().rank(); ++d) saved.shape.push_back(t.shape()[d]);
  static const char* digits = "0123456789abcdef";
  for (std::byte b : canonical_bytes(t)) {
    saved.hex.push_back(digits[static_cast<unsigned>(b) >> 4]);
    saved.hex.push_back(digits[static_cast<unsigned>(b) & 15]);
  }
  return saved;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  throw std::runtime_error("counterexample: bad hex digit");
}

Tensor load_tensor(const SavedTensor& saved) {
  if (!saved.defined) return Tensor();
  const Shape shape{std::span<const std::int64_t>(saved.shape)};
  std::vector<std::byte> bytes(saved.hex.size() / 2);
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    bytes[i] = static_cast<std::byte>(hex_value(saved.hex[2 * i]) * 16 + hex_value(saved.hex[2 * i + 1]));
  }
  if (static_cast<DType>(saved.dtype) == DType::String) {
    return Tensor::from_strings(shape, strings_from_canonical(bytes, shape.element_count()));
  }
  return Tensor::from_bytes(static_cast<DType>(saved.dtype), shape, bytes);
}

}  // namespace

Counterexample make_counterexample(const std::string& property, const OpCase& c) {
  Counterexample saved;
  saved.property = property;
  saved.op = c.op;
  saved.opset = c.opset;
  for (const IrAttribute& a : c.attributes) {
    SavedAttribute s;
    s.name = a.name;
    s.type = static_cast<std::int32_t>(a.type);
    s.i = a.i;
    s.f_bits = bits_of(a.f);
    s.s = a.s;
    s.ints = a.ints;
    for (float f : a.floats) s.floats_bits.push_back(bits_of(f));
    saved.attributes.push_back(std::move(s));
  }
  for (const Tensor& t : c.inputs) saved.inputs.push_back(save_tensor(t));
  for (bool b : c.constant) saved.constant.push_back(b ? 1 : 0);
  saved.outputs = c.outputs;
  return saved;
}

OpCase case_of(const Counterexample& saved) {
  OpCase c;
  c.op = saved.op;
  c.opset = saved.opset;
  for (const SavedAttribute& s : saved.attributes) {
    IrAttribute a;
    a.name = s.name;
    a.type = static_cast<AttrType>(s.type);
    a.i = s.i;
    a.f = float_of(s.f_bits);
    a.s = s.s;
    a.ints = s.ints;
    for (std::uint32_t b : s.floats_bits) a.floats.push_back(float_of(b));
    c.attributes.push_back(std::move(a));
  }
  for (const SavedTensor& t : saved.inputs) c.inputs.push_back(load_tensor(t));
  for (std::int32_t b : saved.constant) c.constant.push_back(b != 0);
  c.outputs = static_cast<std::size_t>(saved.outputs);
  return c;
}

void save_counterexample(const Counterexample& saved, const std::filesystem::path& file) {
  std::error_code ec;
  std::filesystem::create_directories(file.parent_path(), ec);
  std::ofstream out(file, std::ios::trunc);
  if (!out) throw std::runtime_error("cannot write " + file.string());
  cereal::JSONOutputArchive archive(out);
  archive(cereal::make_nvp("counterexample", const_cast<Counterexample&>(saved)));
}

Counterexample load_counterexample(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error("cannot read " + file.string());
  cereal::JSONInputArchive archive(in);
  Counterexample saved;
  archive(cereal::make_nvp("counterexample", saved));
  return saved;
}

namespace {

std::string joined_hash(const std::vector<Tensor>& outputs) {
  std::string text;
  for (const Tensor& t : outputs) text += (text.empty() ? "" : ",") + (t.defined() ? tensor_hash(t) : std::string("-"));
  return text;
}

}  // namespace

std::string check_everywhere(const OpCase& c, const std::string& property, RunTally* tally) {
  const std::vector<Tensor> reference = run_reference(c, ExecutionMode::Exact);
  for (opt::Isa isa : opt::available_isas()) {
    for (int threads : {1, 2}) {
      OptimizedRun run;
      const std::vector<Tensor> optimized = run_optimized(c, ExecutionMode::Exact, isa, threads, &run);
      if (tally != nullptr) tally->add(run, threads);
      const std::string difference = first_difference(reference, optimized);
      if (difference.empty()) continue;
      Counterexample saved = make_counterexample(property, c);
      saved.isa = std::string(opt::isa_name(isa));
      saved.threads = threads;
      saved.reference_hash = joined_hash(reference);
      saved.optimized_hash = joined_hash(optimized);
      saved.difference = difference;
      const char* dir = std::getenv("ONEMODEL_COUNTEREXAMPLE_DIR");
      const std::filesystem::path folder = dir != nullptr ? dir : "build/counterexamples";
      save_counterexample(saved, folder / (property + ".json"));
      return std::string(opt::isa_name(isa)) + " at " + std::to_string(threads) + " thread(s): " + difference;
    }
  }
  return {};
}

}  // namespace onemodel::diff
