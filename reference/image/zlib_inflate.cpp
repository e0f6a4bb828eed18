// DEFLATE decoding (RFC 1951) with canonical Huffman codes decoded one bit at a time: slow and
// literal, as the reference engine is; PNG images of ImageDecoder are small next to a model's work.
#include "reference/image/zlib_inflate.hpp"

#include <array>
#include <string>

#include "reference/image/image_decode.hpp"

namespace onemodel::image {
namespace {

// Bits of the stream, least significant first within each byte (RFC 1951 section 3.1.1).
class BitReader {
 public:
  explicit BitReader(std::span<const std::uint8_t> data, std::size_t start) : data_(data), position_(start) {}

  // The next `n` bits (n <= 16) as a number whose bit 0 came first.
  std::uint32_t bits(int n) {
    while (held_ < n) {
      if (position_ >= data_.size()) corrupt("the deflate stream ends inside a block");
      buffer_ |= static_cast<std::uint32_t>(data_[position_++]) << held_;
      held_ += 8;
    }
    const std::uint32_t value = buffer_ & ((std::uint32_t{1} << n) - 1);
    buffer_ >>= n;
    held_ -= n;
    return value;
  }
  // Drops the bits left of the current byte: stored blocks and the trailer start on a byte.
  void align() {
    buffer_ = 0;
    held_ = 0;
  }
  std::uint8_t byte() {
    if (position_ >= data_.size()) corrupt("the deflate stream ends inside a stored block or the check value");
    return data_[position_++];
  }

 private:
  std::span<const std::uint8_t> data_;
  std::size_t position_;
  std::uint32_t buffer_ = 0;
  int held_ = 0;
};

constexpr int kMaxBits = 15;

// A canonical Huffman code (RFC 1951 section 3.2.2): how many codes each length has, and the
// symbols in code order.
struct Huffman {
  std::array<std::uint16_t, kMaxBits + 1> count{};
  std::vector<std::uint16_t> symbols;
};

// False when the lengths over-subscribe the code space. Incomplete codes are accepted: a bit
// pattern outside the code is found when decoded and is Corrupt then.
bool build(Huffman& code, std::span<const std::uint8_t> lengths) {
  code.count.fill(0);
  for (const std::uint8_t length : lengths) ++code.count[length];
  int unused = 1;
  for (int length = 1; length <= kMaxBits; ++length) {
    unused = unused * 2 - code.count[static_cast<std::size_t>(length)];
    if (unused < 0) return false;
  }
  std::array<std::uint16_t, kMaxBits + 2> next{};
  for (int length = 1; length <= kMaxBits; ++length) {
    next[static_cast<std::size_t>(length) + 1] =
        static_cast<std::uint16_t>(next[static_cast<std::size_t>(length)] + code.count[static_cast<std::size_t>(length)]);
  }
  code.symbols.assign(static_cast<std::size_t>(next[kMaxBits + 1]), 0);
  for (std::size_t symbol = 0; symbol < lengths.size(); ++symbol) {
    if (lengths[symbol] != 0) code.symbols[next[lengths[symbol]]++] = static_cast<std::uint16_t>(symbol);
  }
  return true;
}

// Codes of one length are consecutive numbers following the last code of the length before,
// doubled; the symbols are listed in that order.
int decode(BitReader& in, const Huffman& code) {
  int value = 0;  // the bits read so far, first bit most significant
  int first = 0;  // the first code of the current length
  int index = 0;  // the position in `symbols` of that first code
  for (int length = 1; length <= kMaxBits; ++length) {
    value |= static_cast<int>(in.bits(1));
    const int count = code.count[static_cast<std::size_t>(length)];
    if (value >= first && value - first < count) return code.symbols[static_cast<std::size_t>(index + value - first)];
    index += count;
    first = (first + count) << 1;
    value <<= 1;
  }
  corrupt("a Huffman code of the deflate stream matches no symbol");
}

// RFC 1951 section 3.2.5: length symbols 257..285 and distance symbols 0..29.
constexpr std::array<std::uint16_t, 29> kLengthBase = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                                       31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
constexpr std::array<std::uint8_t, 29> kLengthExtra = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                                       2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
constexpr std::array<std::uint16_t, 30> kDistanceBase = {1,    2,    3,    4,    5,    7,     9,     13,    17,  25,
                                                         33,   49,   65,   97,   129,  193,   257,   385,   513, 769,
                                                         1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
constexpr std::array<std::uint8_t, 30> kDistanceExtra = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                                         6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

class Inflater {
 public:
  Inflater(std::vector<std::uint8_t>& out, std::size_t limit) : out_(out), limit_(limit) {}

  void put(std::uint8_t byte) {
    if (out_.size() >= limit_) corrupt("the deflate stream holds more than the " + std::to_string(limit_) + " bytes expected");
    out_.push_back(byte);
  }

  void stored(BitReader& in) {
    in.align();
    const std::uint32_t length = in.byte() | static_cast<std::uint32_t>(in.byte()) << 8;
    const std::uint32_t complement = in.byte() | static_cast<std::uint32_t>(in.byte()) << 8;
    if ((length ^ 0xFFFFu) != complement) corrupt("a stored block's length and its complement disagree");
    for (std::uint32_t i = 0; i < length; ++i) put(in.byte());
  }

  void codes(BitReader& in, const Huffman& literals, const Huffman& distances) {
    for (;;) {
      const int symbol = decode(in, literals);
      if (symbol < 256) {
        put(static_cast<std::uint8_t>(symbol));
        continue;
      }
      if (symbol == 256) return;
      const int l = symbol - 257;
      if (l >= static_cast<int>(kLengthBase.size())) corrupt("length symbol " + std::to_string(symbol) + " is not defined");
      const std::size_t length = kLengthBase[static_cast<std::size_t>(l)] + in.bits(kLengthExtra[static_cast<std::size_t>(l)]);
      const int d = decode(in, distances);
      if (d >= static_cast<int>(kDistanceBase.size())) corrupt("distance symbol " + std::to_string(d) + " is not defined");
      const std::size_t distance =
          kDistanceBase[static_cast<std::size_t>(d)] + in.bits(kDistanceExtra[static_cast<std::size_t>(d)]);
      if (distance > out_.size()) {
        corrupt("a match reaches " + std::to_string(distance) + " bytes back with " + std::to_string(out_.size()) +
                " written");
      }
      // Byte by byte: a match may overlap the bytes it writes (distance below length).
      for (std::size_t i = 0; i < length; ++i) put(out_[out_.size() - distance]);
    }
  }

 private:
  std::vector<std::uint8_t>& out_;
  std::size_t limit_;
};

void fixed_codes(Huffman& literals, Huffman& distances) {
  std::array<std::uint8_t, 288> lengths{};
  for (std::size_t s = 0; s < 288; ++s) lengths[s] = s < 144 ? 8 : s < 256 ? 9 : s < 280 ? 7 : 8;
  build(literals, lengths);
  std::array<std::uint8_t, 30> distance_lengths{};
  distance_lengths.fill(5);
  build(distances, distance_lengths);
}

// RFC 1951 section 3.2.7.
void dynamic_codes(BitReader& in, Huffman& literals, Huffman& distances) {
  const std::size_t literal_count = in.bits(5) + 257;
  const std::size_t distance_count = in.bits(5) + 1;
  const std::size_t length_code_count = in.bits(4) + 4;
  if (literal_count > 286 || distance_count > 30) corrupt("a dynamic block declares too many codes");
  static constexpr std::array<std::uint8_t, 19> kOrder = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
  std::array<std::uint8_t, 19> length_lengths{};
  for (std::size_t i = 0; i < length_code_count; ++i) length_lengths[kOrder[i]] = static_cast<std::uint8_t>(in.bits(3));
  Huffman length_code;
  if (!build(length_code, length_lengths)) corrupt("the code-length code is over-subscribed");
  std::array<std::uint8_t, 286 + 30> lengths{};
  const std::size_t total = literal_count + distance_count;
  std::size_t filled = 0;
  while (filled < total) {
    const int symbol = decode(in, length_code);
    if (symbol < 16) {
      lengths[filled++] = static_cast<std::uint8_t>(symbol);
      continue;
    }
    std::uint8_t value = 0;
    std::size_t repeat = 0;
    if (symbol == 16) {
      if (filled == 0) corrupt("a repeat code comes before any length");
      value = lengths[filled - 1];
      repeat = 3 + in.bits(2);
    } else if (symbol == 17) {
      repeat = 3 + in.bits(3);
    } else {
      repeat = 11 + in.bits(7);
    }
    if (repeat > total - filled) corrupt("a repeat code runs past the declared code lengths");
    for (std::size_t i = 0; i < repeat; ++i) lengths[filled++] = value;
  }
  if (lengths[256] == 0) corrupt("a dynamic block has no end-of-block code");
  if (!build(literals, std::span<const std::uint8_t>(lengths.data(), literal_count)) ||
      !build(distances, std::span<const std::uint8_t>(lengths.data() + literal_count, distance_count))) {
    corrupt("a dynamic block's literal or distance code is over-subscribed");
  }
}

}  // namespace

std::vector<std::uint8_t> zlib_inflate(std::span<const std::uint8_t> stream, std::size_t limit) {
  // RFC 1950 section 2.2: CMF and FLG.
  if (stream.size() < 6) corrupt("the zlib stream is shorter than its header and check value");
  const std::uint32_t cmf = stream[0], flg = stream[1];
  if ((cmf * 256 + flg) % 31 != 0) corrupt("the zlib header's check bits are wrong");
  if ((cmf & 0x0F) != 8 || (cmf >> 4) > 7) corrupt("the zlib stream is not deflate with a window of at most 32 KiB");
  if ((flg & 0x20) != 0) unsupported("the zlib stream needs a preset dictionary");
  std::vector<std::uint8_t> out;
  Inflater inflater(out, limit);
  BitReader in(stream, 2);
  for (bool last = false; !last;) {
    last = in.bits(1) == 1;
    const std::uint32_t type = in.bits(2);
    if (type == 0) {
      inflater.stored(in);
    } else if (type == 1) {
      Huffman literals, distances;
      fixed_codes(literals, distances);
      inflater.codes(in, literals, distances);
    } else if (type == 2) {
      Huffman literals, distances;
      dynamic_codes(in, literals, distances);
      inflater.codes(in, literals, distances);
    } else {
      corrupt("deflate block type 3 is reserved");
    }
  }
  in.align();
  std::uint32_t expected = 0;
  for (int i = 0; i < 4; ++i) expected = expected << 8 | in.byte();
  // Adler-32 (RFC 1950 section 8.2).
  std::uint32_t a = 1, b = 0;
  for (const std::uint8_t byte : out) {
    a = (a + byte) % 65521u;
    b = (b + a) % 65521u;
  }
  if ((b << 16 | a) != expected) corrupt("the zlib stream's Adler-32 check value does not match its data");
  return out;
}

}  // namespace onemodel::image
