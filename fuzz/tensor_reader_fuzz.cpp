// libFuzzer target: one TensorProto read on its own (core/onnx/tensor_entry.hpp, the rules of
// spec/onnx-import.md section 3). A ModelError is the only acceptable refusal. A tensor that
// reads is checked against the text: non-negative dims, count <= 2^60 (in 128-bit arithmetic),
// data length ceil(count * bits / 8) from this file's own copy of the bits table, strings one
// per element; then, differentially, it is re-encoded with raw_data (or string_data) by the
// small encoder below and must read back identical, whichever field it first came from.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <string>

#include "core/onnx/tensor_entry.hpp"
#include "fuzz/fuzz_support.hpp"
#include "onemodel/error.hpp"

using namespace onemodel;

namespace {

// spec/onnx-import.md section 3 (and spec/format.md section 2.5's table).
int bits_of(std::int32_t code) {
  switch (code) {
    case 1: case 6: case 12: return 32;
    case 2: case 3: case 9: case 17: case 18: case 19: case 20: case 24: return 8;
    case 4: case 5: case 10: case 16: return 16;
    case 7: case 11: case 13: case 14: return 64;
    case 15: return 128;
    case 21: case 22: case 23: return 4;
    case 25: case 26: return 2;
    case 27: case 28: return 6;
    case 8: return 0;
    default: return -1;
  }
}

void put_varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

void put_bytes(std::string& out, std::uint32_t field, const void* data, std::size_t size) {
  put_varint(out, field << 3 | 2);
  put_varint(out, size);
  out.append(static_cast<const char*>(data), size);
}

std::string encode(const IrTensor& t) {
  std::string out;
  for (std::int64_t d : t.dims) {
    put_varint(out, 1 << 3);
    put_varint(out, static_cast<std::uint64_t>(d));
  }
  put_varint(out, 2 << 3);
  put_varint(out, static_cast<std::uint64_t>(static_cast<std::int64_t>(t.data_type)));
  put_bytes(out, 8, t.name.data(), t.name.size());
  if (t.data_type == 8) {
    for (const std::string& s : t.strings) put_bytes(out, 6, s.data(), s.size());
  } else if (t.data.size != 0) {
    put_bytes(out, 9, t.data.data, t.data.size);
  }
  put_bytes(out, 12, t.doc_string.data(), t.doc_string.size());
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const ByteView bytes = fuzz::owned_view(data, size);
  IrTensor t;
  try {
    t = onnx::parse_tensor_bytes(bytes, "fuzz.pb");
  } catch (const ModelError&) {
    return 0;
  } catch (const std::exception& e) {
    fuzz::finding("parse_tensor_bytes threw something other than ModelError", e.what());
  }
  const int bits = bits_of(t.data_type);
  fuzz::check(bits >= 0, "a tensor with an unknown data_type was read", std::to_string(t.data_type));
  unsigned __int128 count = 1;
  bool zero = false;
  for (std::int64_t d : t.dims) {
    fuzz::check(d >= 0, "a negative dimension was read");
    if (d == 0) zero = true;
    if (!zero && count <= (static_cast<unsigned __int128>(1) << 64)) count *= static_cast<std::uint64_t>(d);
  }
  if (zero) count = 0;
  fuzz::check(count <= (static_cast<unsigned __int128>(1) << 60), "more than 2^60 elements were read");
  if (t.data_type == 8) {
    fuzz::check(t.strings.size() == count && t.data.size == 0, "string tensor with the wrong number of entries");
  } else {
    const unsigned __int128 expected = (count * static_cast<unsigned>(bits) + 7) / 8;
    fuzz::check(expected <= 0x7FFFFFFF, "a tensor over 2^31-1 bytes was read");
    fuzz::check(t.data.size == expected, "data length differs from ceil(count * bits / 8)",
                std::to_string(t.data.size) + " bytes for " + std::to_string(static_cast<std::uint64_t>(count)) +
                    " elements of " + std::to_string(bits) + " bits");
    fuzz::check(t.strings.empty(), "a non-string tensor has strings");
  }

  const std::string again = encode(t);
  IrTensor u;
  try {
    u = onnx::parse_tensor_bytes(fuzz::owned_view(reinterpret_cast<const std::uint8_t*>(again.data()), again.size()),
                                 "fuzz.reencoded.pb");
  } catch (const ModelError& e) {
    fuzz::finding("a tensor that was read, re-encoded with raw_data, is refused", e.describe());
  }
  fuzz::check(u.name == t.name && u.doc_string == t.doc_string && u.data_type == t.data_type && u.dims == t.dims &&
                  u.strings == t.strings && u.data.size == t.data.size &&
                  (t.data.size == 0 || std::memcmp(u.data.data, t.data.data, t.data.size) == 0),
              "a tensor re-encoded with raw_data reads back differently");
  return 0;
}
