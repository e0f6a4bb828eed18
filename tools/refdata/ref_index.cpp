// index.json of a reference directory (ref_index.hpp; oracles.md, "Reference outputs").
#include "tools/refdata/ref_index.hpp"

#include <charconv>
#include <set>
#include <system_error>

#include "core/io/file_bytes.hpp"
#include "core/json/json_reader.hpp"
#include "onemodel/error.hpp"
#include "onemodel/shape.hpp"

namespace onemodel::refdata {
namespace {

namespace fs = std::filesystem;

// An index lists a handful of tensors; 16 MiB is far beyond any real one and bounds the parse.
constexpr std::uint64_t kMaxIndexBytes = std::uint64_t{16} << 20;

struct DTypeName {
  std::string_view name;
  DType type;
};
constexpr DTypeName kDTypeNames[] = {
    {"float32", DType::F32}, {"float64", DType::F64}, {"float16", DType::F16}, {"int8", DType::I8},
    {"uint8", DType::U8},    {"int16", DType::I16},   {"uint16", DType::U16},  {"int32", DType::I32},
    {"uint32", DType::U32},  {"int64", DType::I64},   {"uint64", DType::U64},  {"bool", DType::Bool},
};

class IndexParser {
 public:
  IndexParser(const fs::path& dir) : dir_(dir), file_((dir / "index.json").string()) {}

  RefIndex parse(std::string_view text) {
    JsonValue root;
    try {
      JsonLimits limits;
      limits.max_bytes = kMaxIndexBytes;
      limits.max_depth = 16;
      root = parse_json(text, limits);
    } catch (const JsonError& e) {
      throw ModelError(e.limit_exceeded() ? ModelErrorKind::Unsupported : ModelErrorKind::Malformed, e.what(), file_,
                       e.offset(), "index");
    }
    RefIndex index;
    index.dir = dir_;
    const std::string at = "index";
    expect_members(root, at, {"format", "inputs_version", "int8_image_inputs", "model", "variant", "batch", "model_file",
                              "model_sha256", "onnxruntime", "inputs", "outputs"}, true);
    if (const JsonValue* kind = root.find("int8_image_inputs"); kind != nullptr && kind->kind != JsonValue::Kind::String) {
      fail(ModelErrorKind::InvalidModel, "int8_image_inputs must be a string", *kind, at + ".int8_image_inputs");
    }
    const JsonValue& format = member(root, at, "format", JsonValue::Kind::String);
    if (format.text != kRefFormat) {
      fail(ModelErrorKind::Unsupported, "format '" + format.text + "' is not " + std::string(kRefFormat), format,
           at + ".format");
    }
    if (const JsonValue* version = root.find("inputs_version"); version != nullptr && !version->is_integer()) {
      fail(ModelErrorKind::InvalidModel, "inputs_version must be an integer", *version, at + ".inputs_version");
    }
    index.model = member(root, at, "model", JsonValue::Kind::String).text;
    index.variant = member(root, at, "variant", JsonValue::Kind::String).text;
    const JsonValue& batch = member(root, at, "batch", JsonValue::Kind::Number);
    if (!batch.is_integer() || batch.integer < 1 || batch.integer > kMaxElements) {
      fail(ModelErrorKind::InvalidModel, "batch must be a positive integer", batch, at + ".batch");
    }
    index.batch = batch.integer;
    const JsonValue& model_file = member(root, at, "model_file", JsonValue::Kind::String);
    if (model_file.text.empty() || model_file.text[0] != '/') {
      fail(ModelErrorKind::InvalidModel, "model_file must be an absolute path", model_file, at + ".model_file");
    }
    index.model_file = model_file.text;
    index.model_sha256 = hex_digest(member(root, at, "model_sha256", JsonValue::Kind::String), at + ".model_sha256");
    const JsonValue& ort = member(root, at, "onnxruntime", JsonValue::Kind::Object);
    expect_members(ort, at + ".onnxruntime", {}, false);
    index.ort_version = member(ort, at + ".onnxruntime", "version", JsonValue::Kind::String).text;
    index.inputs = entries(member(root, at, "inputs", JsonValue::Kind::Array), at + ".inputs");
    index.outputs = entries(member(root, at, "outputs", JsonValue::Kind::Array), at + ".outputs");
    if (index.outputs.empty()) fail(ModelErrorKind::InvalidModel, "no outputs are listed", root, at + ".outputs");
    return index;
  }

 private:
  [[noreturn]] void fail(ModelErrorKind kind, const std::string& why, const JsonValue& value,
                         const std::string& field) const {
    throw ModelError(kind, why, file_, value.offset, field);
  }

  // Every key once; with `closed`, only the keys listed.
  void expect_members(const JsonValue& object, const std::string& at, std::initializer_list<std::string_view> keys,
                      bool closed) const {
    if (object.kind != JsonValue::Kind::Object) fail(ModelErrorKind::InvalidModel, "expected an object", object, at);
    std::set<std::string> seen;
    for (const JsonMember& m : object.members) {
      if (!seen.insert(m.first).second) {
        fail(ModelErrorKind::InvalidModel, "the key '" + m.first + "' appears twice", m.second, at + "." + m.first);
      }
      if (!closed) continue;
      bool known = false;
      for (std::string_view key : keys) known = known || key == m.first;
      if (!known) fail(ModelErrorKind::InvalidModel, "unknown key '" + m.first + "'", m.second, at + "." + m.first);
    }
  }

  const JsonValue& member(const JsonValue& object, const std::string& at, std::string_view key,
                          JsonValue::Kind kind) const {
    const JsonValue* value = object.find(key);
    const std::string field = at + "." + std::string(key);
    if (value == nullptr) fail(ModelErrorKind::InvalidModel, "the key '" + std::string(key) + "' is missing", object, field);
    if (value->kind != kind) {
      fail(ModelErrorKind::InvalidModel, std::string("expected ") + to_string(kind) + ", found " + to_string(value->kind),
           *value, field);
    }
    return *value;
  }

  std::string hex_digest(const JsonValue& value, const std::string& field) const {
    std::string hex = value.text;
    bool ok = hex.size() == 64;
    for (char& c : hex) {
      if (c >= 'A' && c <= 'F') c = static_cast<char>(c - 'A' + 'a');
      ok = ok && ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
    }
    if (!ok) fail(ModelErrorKind::InvalidModel, "expected 64 hexadecimal digits", value, field);
    return hex;
  }

  // oracles.md, "Reference outputs": the files live under the directory. A `file` must be a
  // relative path whose parts are neither empty, ".", nor "..", so it cannot name anything
  // outside the directory (symbolic links are checked when the file is opened, ref_data.cpp).
  fs::path inside_path(const JsonValue& value, const std::string& field) const {
    const std::string& file = value.text;
    if (file.empty() || file[0] == '/' || file.find('\\') != std::string::npos) {
      fail(ModelErrorKind::ExternalData, "file '" + file + "' must be a relative path inside the directory", value, field);
    }
    std::size_t start = 0;
    while (start <= file.size()) {
      const std::size_t end = std::min(file.find('/', start), file.size());
      const std::string_view part = std::string_view(file).substr(start, end - start);
      if (part.empty() || part == "." || part == "..") {
        fail(ModelErrorKind::ExternalData, "file '" + file + "' escapes or is not a plain path inside the directory",
             value, field);
      }
      start = end + 1;
    }
    for (char c : file) {
      if (static_cast<unsigned char>(c) < 0x20) {
        fail(ModelErrorKind::ExternalData, "file name holds a control character", value, field);
      }
    }
    return dir_ / file;
  }

  std::vector<RefTensorEntry> entries(const JsonValue& array, const std::string& at) const {
    std::vector<RefTensorEntry> out;
    std::set<std::string> names;
    for (std::size_t k = 0; k < array.items.size(); ++k) {
      const JsonValue& item = array.items[k];
      const std::string here = at + "[" + std::to_string(k) + "]";
      expect_members(item, here, {"name", "file", "dtype", "shape", "sha256", "ort_noise_scaled"}, true);
      RefTensorEntry entry;
      const JsonValue& name = member(item, here, "name", JsonValue::Kind::String);
      entry.name = name.text;
      if (entry.name.empty() || !names.insert(entry.name).second) {
        fail(ModelErrorKind::InvalidModel, "tensor name '" + entry.name + "' is empty or repeated", name, here + ".name");
      }
      const JsonValue& file = member(item, here, "file", JsonValue::Kind::String);
      entry.file = file.text;
      entry.path = inside_path(file, here + ".file");
      const JsonValue& dtype = member(item, here, "dtype", JsonValue::Kind::String);
      try {
        entry.dtype = index_dtype(dtype.text);
      } catch (const ModelError& e) {
        fail(e.kind(), e.message(), dtype, here + ".dtype");
      }
      const JsonValue& shape = member(item, here, "shape", JsonValue::Kind::Array);
      if (shape.items.size() > static_cast<std::size_t>(kMaxRank)) {
        fail(ModelErrorKind::InvalidModel, "more than 8 dimensions", shape, here + ".shape");
      }
      for (const JsonValue& extent : shape.items) {
        if (!extent.is_integer() || extent.integer < 0 || extent.integer > kMaxElements) {
          fail(ModelErrorKind::InvalidModel, "an extent must be an integer in [0, 2^31-1]", extent, here + ".shape");
        }
        entry.shape.push_back(extent.integer);
      }
      entry.sha256 = hex_digest(member(item, here, "sha256", JsonValue::Kind::String), here + ".sha256");
      // Optional: ONNX Runtime's own enabled-vs-disabled scaled difference (oracles.md, "ONNX
      // Runtime's own noise"), shown beside our error; never gated.
      if (const JsonValue* noise = item.find("ort_noise_scaled"); noise != nullptr) {
        double value = -1;
        if (noise->kind == JsonValue::Kind::Number) {
          const char* first = noise->text.data();
          const char* last = first + noise->text.size();
          const auto [end, ec] = std::from_chars(first, last, value);
          if (ec != std::errc{} || end != last) value = -1;
        }
        if (!(value >= 0.0)) {
          fail(ModelErrorKind::InvalidModel, "ort_noise_scaled must be a non-negative number", *noise,
               here + ".ort_noise_scaled");
        }
        entry.ort_noise_scaled = value;
      }
      out.push_back(std::move(entry));
    }
    return out;
  }

  fs::path dir_;
  std::string file_;
};

}  // namespace

DType index_dtype(std::string_view name) {
  for (const DTypeName& entry : kDTypeNames) {
    if (entry.name == name) return entry.type;
  }
  throw ModelError(ModelErrorKind::Unsupported, "dtype '" + std::string(name) + "' is not supported");
}

std::string_view index_dtype_name(DType type) noexcept {
  for (const DTypeName& entry : kDTypeNames) {
    if (entry.type == type) return entry.name;
  }
  return "bfloat16";
}

RefIndex parse_ref_index(std::string_view text, const fs::path& dir) { return IndexParser(dir).parse(text); }

RefIndex read_ref_index(const fs::path& dir) {
  const fs::path file = dir / "index.json";
  const ByteView bytes = load_file_bytes(file);
  if (bytes.size > kMaxIndexBytes) {
    throw ModelError(ModelErrorKind::Unsupported, "index.json is larger than 16 MiB", file.string());
  }
  return parse_ref_index(std::string_view(reinterpret_cast<const char*>(bytes.data), bytes.size), dir);
}

}  // namespace onemodel::refdata
