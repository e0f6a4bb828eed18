// libFuzzer target: the strict JSON reader of the manifest (core/json/json_reader.hpp,
// spec/format.md section 1.2) with its limits. JsonError is the only acceptable refusal. A text
// that parses is checked: every value's offset points at its first character; the limits are
// exact (the text's own depth and size pass, one less is refused as a limit); and,
// differentially, the value written out again (strings through JsonWriter) parses to the same value.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <string_view>

#include "core/json/json_reader.hpp"
#include "core/json/json_writer.hpp"
#include "fuzz/fuzz_support.hpp"

using namespace onemodel;

namespace {

int depth_of(const JsonValue& v) {
  int deepest = 0;
  for (const JsonValue& item : v.items) deepest = std::max(deepest, depth_of(item));
  for (const auto& member : v.members) deepest = std::max(deepest, depth_of(member.second));
  return v.kind == JsonValue::Kind::Array || v.kind == JsonValue::Kind::Object ? deepest + 1 : 0;
}

void check_offsets(const JsonValue& v, std::string_view text) {
  fuzz::check(v.offset < text.size(), "value offset outside the text");
  const char c = text[v.offset];
  bool ok = false;
  switch (v.kind) {
    case JsonValue::Kind::Null: ok = c == 'n'; break;
    case JsonValue::Kind::Bool: ok = c == (v.boolean ? 't' : 'f'); break;
    case JsonValue::Kind::Number: ok = c == '-' || (c >= '0' && c <= '9'); break;
    case JsonValue::Kind::String: ok = c == '"'; break;
    case JsonValue::Kind::Array: ok = c == '['; break;
    case JsonValue::Kind::Object: ok = c == '{'; break;
  }
  fuzz::check(ok, "value offset does not point at the value's first character", std::to_string(v.offset));
  for (const JsonValue& item : v.items) check_offsets(item, text);
  for (const auto& member : v.members) check_offsets(member.second, text);
}

std::string quoted(const std::string& s) {
  JsonWriter w;
  w.string(s);
  return w.take();
}

void write(const JsonValue& v, std::string& out) {
  switch (v.kind) {
    case JsonValue::Kind::Null: out += "null"; break;
    case JsonValue::Kind::Bool: out += v.boolean ? "true" : "false"; break;
    case JsonValue::Kind::Number:
      if (v.number_form == JsonValue::NumberForm::Integer) {
        JsonWriter w;
        w.integer(v.integer);
        out += w.text();
      } else {
        out += v.text;  // the literal as written
      }
      break;
    case JsonValue::Kind::String: out += quoted(v.text); break;
    case JsonValue::Kind::Array:
      out += '[';
      for (std::size_t i = 0; i < v.items.size(); ++i) {
        if (i) out += ',';
        write(v.items[i], out);
      }
      out += ']';
      break;
    case JsonValue::Kind::Object:
      out += '{';
      for (std::size_t i = 0; i < v.members.size(); ++i) {
        if (i) out += ',';
        out += quoted(v.members[i].first);
        out += ':';
        write(v.members[i].second, out);
      }
      out += '}';
      break;
  }
}

bool same(const JsonValue& a, const JsonValue& b) {
  if (a.kind != b.kind || a.items.size() != b.items.size() || a.members.size() != b.members.size()) return false;
  switch (a.kind) {
    case JsonValue::Kind::Bool: if (a.boolean != b.boolean) return false; break;
    case JsonValue::Kind::Number:
      if (a.number_form != b.number_form) return false;
      if (a.number_form == JsonValue::NumberForm::Integer ? a.integer != b.integer : a.text != b.text) return false;
      break;
    case JsonValue::Kind::String: if (a.text != b.text) return false; break;
    default: break;
  }
  for (std::size_t i = 0; i < a.items.size(); ++i) {
    if (!same(a.items[i], b.items[i])) return false;
  }
  for (std::size_t i = 0; i < a.members.size(); ++i) {
    if (a.members[i].first != b.members[i].first || !same(a.members[i].second, b.members[i].second)) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  JsonValue value;
  try {
    value = parse_json(text);
  } catch (const JsonError& e) {
    fuzz::check(e.offset() <= size, "JsonError offset beyond the text");
    return 0;
  } catch (const std::exception& e) {
    fuzz::finding("parse_json threw something other than JsonError", e.what());
  }
  check_offsets(value, text);

  const int depth = depth_of(value);
  JsonLimits exact;
  exact.max_depth = depth;
  exact.max_bytes = size;
  try {
    fuzz::check(same(parse_json(text, exact), value), "the same text parsed differently under exact limits");
  } catch (const JsonError& e) {
    fuzz::finding("the text's own depth and size were refused", e.what());
  }
  if (depth > 0) {
    JsonLimits shallower = exact;
    shallower.max_depth = depth - 1;
    try {
      parse_json(text, shallower);
      fuzz::finding("a text one level deeper than max_depth was accepted");
    } catch (const JsonError& e) {
      fuzz::check(e.limit_exceeded(), "depth refusal not reported as a limit", e.what());
    }
  }
  JsonLimits smaller = exact;
  smaller.max_bytes = size - 1;  // size >= 1: an empty text never parses
  try {
    parse_json(text, smaller);
    fuzz::finding("a text one byte over max_bytes was accepted");
  } catch (const JsonError& e) {
    fuzz::check(e.limit_exceeded(), "size refusal not reported as a limit", e.what());
  }

  std::string rewritten;
  write(value, rewritten);
  try {
    fuzz::check(same(parse_json(rewritten), value), "value written again parses differently", rewritten);
  } catch (const JsonError& e) {
    fuzz::finding("value written again does not parse", rewritten + "\n" + e.what());
  }
  return 0;
}
