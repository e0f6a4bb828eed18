#include "core/onnx/external_data.hpp"

#include <system_error>

#include "core/io/file_bytes.hpp"

namespace onemodel::onnx {

namespace fs = std::filesystem;

const char* location_problem(std::string_view location) noexcept {
  // spec/onnx-import.md section 5 rule 1.
  if (location.empty()) return "location is empty";
  if (location.find('\0') != std::string_view::npos) return "location contains a NUL byte";
  if (location.front() == '/' || location.front() == '\\') return "location is an absolute path";
  if (location.size() >= 2 && location[1] == ':' &&
      ((location[0] >= 'A' && location[0] <= 'Z') || (location[0] >= 'a' && location[0] <= 'z'))) {
    return "location has a drive prefix";
  }
  std::size_t start = 0;
  while (start <= location.size()) {
    std::size_t end = location.find_first_of("/\\", start);
    if (end == std::string_view::npos) end = location.size();
    if (location.substr(start, end - start) == "..") return "location has a '..' segment";
    start = end + 1;
  }
  const fs::path p{std::string(location)};
  if (p.is_absolute() || p.has_root_name() || p.has_root_directory()) return "location is rooted";
  return nullptr;
}

std::optional<std::uint64_t> parse_decimal(std::string_view text) noexcept {
  if (text.empty()) return std::nullopt;
  std::uint64_t value = 0;
  constexpr std::uint64_t kMax = 0x7FFFFFFFFFFFFFFFull;  // int64 in onnx's own readers
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (value > (kMax - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

namespace {
// The location as it may appear in a message: control bytes escaped.
std::string printable(const std::string& text) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7F) {
      out += "\\x";
      out += hex[u >> 4];
      out += hex[u & 15];
    } else {
      out += c;
    }
  }
  return out;
}

// True when `inner` is `outer` followed by at least one more component.
bool lies_inside(const fs::path& inner, const fs::path& outer) {
  auto i = inner.begin();
  for (auto o = outer.begin(); o != outer.end(); ++o, ++i) {
    if (o->empty()) continue;  // trailing separator of a directory path
    if (i == inner.end() || *i != *o) return false;
  }
  return i != inner.end();
}
}  // namespace

const ByteView& ExternalDataStore::load(pb::ParseContext& ctx, std::uint64_t offset, const std::string& location) {
  if (!directory_) {
    ctx.fail(ModelErrorKind::ExternalData,
             "external data in a model given as bytes needs an external-data directory", offset);
  }
  std::error_code ec;
  if (!resolved_directory_) {
    fs::path dir = fs::canonical(*directory_, ec);
    if (ec) {
      ctx.fail(ModelErrorKind::ExternalData,
               "external-data directory '" + directory_->string() + "' cannot be resolved: " + ec.message(),
               offset);
    }
    resolved_directory_ = dir;
  }
  // spec/onnx-import.md section 5 rule 2: resolve every link, then require the result to lie
  // inside the resolved directory and to be a regular file.
  const fs::path target = fs::weakly_canonical(*resolved_directory_ / fs::path(location), ec);
  if (ec) {
    ctx.fail(ModelErrorKind::ExternalData, "location '" + printable(location) + "' cannot be resolved: " + ec.message(), offset);
  }
  if (!lies_inside(target, *resolved_directory_)) {
    ctx.fail(ModelErrorKind::ExternalData,
             "location '" + printable(location) + "' resolves outside the external-data directory", offset);
  }
  const fs::file_status status = fs::status(target, ec);
  if (ec || !fs::is_regular_file(status)) {
    ctx.fail(ModelErrorKind::ExternalData, "location '" + printable(location) + "' is not a regular file", offset);
  }
  const std::string key = target.string();
  auto found = files_.find(key);
  if (found != files_.end()) return found->second;
  ByteView bytes;
  try {
    // Mapped from 1 MiB on (spec/onnx-import.md section 6); one hard link only (section 5 rule 3).
    bytes = load_file_bytes(target, kMapThresholdBytes, true);
  } catch (const ModelError& e) {
    ctx.fail(ModelErrorKind::ExternalData, "external file '" + key + "': " + e.message(), offset);
  }
  return files_.emplace(key, std::move(bytes)).first->second;
}

ByteView ExternalDataStore::view(pb::ParseContext& ctx, std::uint64_t offset,
                                 const std::vector<std::pair<std::string, std::string>>& entries,
                                 std::uint64_t expected_length) {
  pb::PathScope scope(ctx, "external_data");
  std::optional<std::string> location, offset_text, length_text;
  for (const auto& [key, value] : entries) {  // a repeated key: the last one counts
    if (key == "location") location = value;
    else if (key == "offset") offset_text = value;
    else if (key == "length") length_text = value;
  }
  if (!location) ctx.fail(ModelErrorKind::ExternalData, "external data has no location", offset);
  if (const char* problem = location_problem(*location)) {
    ctx.fail(ModelErrorKind::ExternalData, std::string(problem) + ": '" + printable(*location) + "'", offset);
  }
  // spec/onnx-import.md section 5 rule 3.
  std::uint64_t start = 0;
  if (offset_text) {
    auto v = parse_decimal(*offset_text);
    if (!v) ctx.fail(ModelErrorKind::ExternalData, "offset '" + *offset_text + "' is not a non-negative decimal integer", offset);
    start = *v;
  }
  if (length_text) {
    auto v = parse_decimal(*length_text);
    if (!v) ctx.fail(ModelErrorKind::ExternalData, "length '" + *length_text + "' is not a non-negative decimal integer", offset);
    if (*v != expected_length) {
      ctx.fail(ModelErrorKind::ExternalData,
               "length " + std::to_string(*v) + " differs from the expected " + std::to_string(expected_length) + " bytes",
               offset);
    }
  }
  const ByteView& file = load(ctx, offset, *location);
  const std::uint64_t size = file.size;
  if (start > size || expected_length > size - start) {
    ctx.fail(ModelErrorKind::ExternalData,
             "offset " + std::to_string(start) + " + length " + std::to_string(expected_length) +
                 " exceeds the file's " + std::to_string(size) + " bytes",
             offset);
  }
  if (expected_length == 0) return ByteView{};
  return file.slice(static_cast<std::size_t>(start), static_cast<std::size_t>(expected_length));
}

}  // namespace onemodel::onnx
