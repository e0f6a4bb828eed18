// The strict JSON reader and writer of the manifest (spec/format.md section 1.2, RFC 8259).
#include <gtest/gtest.h>

#include <string>

#include "core/json/base64.hpp"
#include "core/json/json_reader.hpp"
#include "core/json/json_writer.hpp"

namespace onemodel {
namespace {

bool rejects(std::string_view text, const JsonLimits& limits = {}) {
  try {
    parse_json(text, limits);
  } catch (const JsonError&) {
    return true;
  }
  return false;
}

TEST(JsonReader, IntegersBeyond2To53AreExact) {
  // 2^53 + 1 is not representable as a double; a double-based parser would return 2^53.
  EXPECT_EQ(parse_json("9007199254740993").integer, 9007199254740993LL);
  EXPECT_EQ(parse_json("9223372036854775807").integer, INT64_MAX);
  EXPECT_EQ(parse_json("-9223372036854775808").integer, INT64_MIN);
  EXPECT_EQ(parse_json("-0").integer, 0);
  EXPECT_TRUE(parse_json("9223372036854775807").is_integer());
  EXPECT_EQ(parse_json("9223372036854775808").number_form, JsonValue::NumberForm::IntegerOutOfRange);
  EXPECT_EQ(parse_json("-9223372036854775809").number_form, JsonValue::NumberForm::IntegerOutOfRange);
  EXPECT_EQ(parse_json("184467440737095516160").number_form, JsonValue::NumberForm::IntegerOutOfRange);
}

TEST(JsonReader, FractionAndExponentAreDistinguished) {
  EXPECT_EQ(parse_json("1.0").number_form, JsonValue::NumberForm::Decimal);
  EXPECT_EQ(parse_json("1e3").number_form, JsonValue::NumberForm::Decimal);
  EXPECT_EQ(parse_json("-2E-3").number_form, JsonValue::NumberForm::Decimal);
  EXPECT_EQ(parse_json("1e3").text, "1e3");
  EXPECT_FALSE(parse_json("1.0").is_integer());
}

TEST(JsonReader, StructureOffsetsAndOrder) {
  const JsonValue v = parse_json(" {\"b\": [1, true, null], \"a\": \"x\"} ");
  ASSERT_EQ(v.kind, JsonValue::Kind::Object);
  EXPECT_EQ(v.offset, 1u);
  ASSERT_EQ(v.members.size(), 2u);
  EXPECT_EQ(v.members[0].first, "b");
  EXPECT_EQ(v.members[1].first, "a");
  const JsonValue& b = v.members[0].second;
  EXPECT_EQ(b.offset, 7u);
  ASSERT_EQ(b.items.size(), 3u);
  EXPECT_EQ(b.items[0].offset, 8u);
  EXPECT_EQ(b.items[1].offset, 11u);
  EXPECT_TRUE(b.items[1].boolean);
  EXPECT_EQ(b.items[2].kind, JsonValue::Kind::Null);
  EXPECT_EQ(v.find("a")->text, "x");
  EXPECT_EQ(v.find("a")->offset, 29u);
  EXPECT_EQ(v.find("zz"), nullptr);
}

TEST(JsonReader, StringEscapes) {
  EXPECT_EQ(parse_json(R"("a\"b\\c\/d\b\f\n\r\t")").text, "a\"b\\c/d\b\f\n\r\t");
  EXPECT_EQ(parse_json(R"("\u0041\u00e9\u20AC")").text, "A\xC3\xA9\xE2\x82\xAC");
  // U+1F600 as a surrogate pair.
  EXPECT_EQ(parse_json(R"("\ud83d\ude00")").text, "\xF0\x9F\x98\x80");
  EXPECT_EQ(parse_json("\"\xF0\x9F\x98\x80\"").text, "\xF0\x9F\x98\x80");
  EXPECT_EQ(parse_json(R"("\u0000")").text, std::string(1, '\0'));
}

TEST(JsonReader, RejectsWhatRfc8259Forbids) {
  EXPECT_TRUE(rejects("[1,2,]"));
  EXPECT_TRUE(rejects("{\"a\":1,}"));
  EXPECT_TRUE(rejects("[,1]"));
  EXPECT_TRUE(rejects("01"));
  EXPECT_TRUE(rejects("-01"));
  EXPECT_TRUE(rejects("+1"));
  EXPECT_TRUE(rejects("1."));
  EXPECT_TRUE(rejects(".5"));
  EXPECT_TRUE(rejects("1e"));
  EXPECT_TRUE(rejects("NaN"));
  EXPECT_TRUE(rejects("Infinity"));
  EXPECT_TRUE(rejects(R"("\x")"));
  EXPECT_TRUE(rejects(R"("\u12")"));
  EXPECT_TRUE(rejects(R"("\u12g4")"));
  EXPECT_TRUE(rejects(R"("\ud800")"));          // lone high surrogate
  EXPECT_TRUE(rejects(R"("\ud800x")"));
  EXPECT_TRUE(rejects(R"("\ud800\u0041")"));    // high surrogate, then not a low one
  EXPECT_TRUE(rejects(R"("\udc00")"));          // lone low surrogate
  EXPECT_TRUE(rejects("\"\xC0\xAF\""));         // overlong
  EXPECT_TRUE(rejects("\"\xED\xA0\x80\""));     // encoded surrogate
  EXPECT_TRUE(rejects("\"\xF4\x90\x80\x80\""));  // above U+10FFFF
  EXPECT_TRUE(rejects("\"\x80\""));             // stray continuation byte
  EXPECT_TRUE(rejects("\"\xE2\x82\""));         // truncated sequence
  EXPECT_TRUE(rejects("\"a\tb\""));             // raw control character
  EXPECT_TRUE(rejects("\"abc"));
  EXPECT_TRUE(rejects("{\"a\" 1}"));
  EXPECT_TRUE(rejects("{a:1}"));
  EXPECT_TRUE(rejects("[1 2]"));
  EXPECT_TRUE(rejects("1 2"));
  EXPECT_TRUE(rejects(""));
  EXPECT_TRUE(rejects("   "));
  EXPECT_TRUE(rejects("tru"));
  EXPECT_TRUE(rejects("nul"));
  EXPECT_TRUE(rejects("\xEF\xBB\xBF{}"));      // byte-order mark
  EXPECT_TRUE(rejects("[1]\x0b"));             // vertical tab is not JSON whitespace
}

TEST(JsonReader, DepthLimit) {
  const std::string ok = std::string(1024, '[') + std::string(1024, ']');
  EXPECT_FALSE(rejects(ok));
  const std::string deep = std::string(1025, '[') + std::string(1025, ']');
  try {
    parse_json(deep);
    FAIL() << "1025 levels accepted";
  } catch (const JsonError& e) {
    EXPECT_TRUE(e.limit_exceeded());
    EXPECT_EQ(e.offset(), 1024u);
  }
  JsonLimits small;
  small.max_depth = 2;
  EXPECT_FALSE(rejects("[{}]", small));
  EXPECT_TRUE(rejects("[{\"a\":[]}]", small));
}

TEST(JsonReader, SizeLimit) {
  JsonLimits small;
  small.max_bytes = 4;
  EXPECT_FALSE(rejects("[11]", small));
  try {
    parse_json("[111]", small);
    FAIL();
  } catch (const JsonError& e) {
    EXPECT_TRUE(e.limit_exceeded());
  }
}

TEST(JsonReader, ErrorOffsets) {
  try {
    parse_json("[1, 02]");
    FAIL();
  } catch (const JsonError& e) {
    EXPECT_EQ(e.offset(), 4u);
    EXPECT_FALSE(e.limit_exceeded());
  }
}

TEST(Base64, RoundTripAndRfc4648Vectors) {
  // RFC 4648 section 10 test vectors.
  const char* plain[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
  const char* coded[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
  for (int i = 0; i < 7; ++i) {
    EXPECT_EQ(encode_base64(plain[i]), coded[i]);
    EXPECT_EQ(decode_base64(coded[i]).value(), plain[i]);
  }
  std::string all;
  for (int i = 0; i < 256; ++i) all += static_cast<char>(i);
  EXPECT_EQ(decode_base64(encode_base64(all)).value(), all);
}

TEST(Base64, StrictRejections) {
  EXPECT_FALSE(decode_base64("Zg"));        // missing padding
  EXPECT_FALSE(decode_base64("Zg="));       // short padding
  EXPECT_FALSE(decode_base64("Zg==="));     // extra padding
  EXPECT_FALSE(decode_base64("Z==="));      // padding in position 1
  EXPECT_FALSE(decode_base64("Zg==Zg=="));  // padding before the end
  EXPECT_FALSE(decode_base64("Z=g="));      // data after padding
  EXPECT_FALSE(decode_base64("Zm9v-_=="));  // URL-safe alphabet
  EXPECT_FALSE(decode_base64("Zm9 v"));     // whitespace
  EXPECT_FALSE(decode_base64("Zh=="));      // non-zero unused bits
  EXPECT_FALSE(decode_base64("Zm9="));      // non-zero unused bits
  EXPECT_FALSE(decode_base64("Zm\n9v"));
}

TEST(JsonWriter, CompactDeterministicOutput) {
  JsonWriter w;
  w.begin_object();
  w.key("a");
  w.integer(-9223372036854775807LL - 1);
  w.key("b");
  w.begin_array();
  w.unsigned_integer(18446744073709551615ULL);
  w.string("q\"\\\n\x01\xC3\xA9");
  w.begin_object();
  w.end_object();
  w.begin_array();
  w.end_array();
  w.null();
  w.end_array();
  w.key("c");
  w.string("");
  w.end_object();
  EXPECT_EQ(w.text(),
            "{\"a\":-9223372036854775808,\"b\":[18446744073709551615,\"q\\\"\\\\\\n\\u0001\xC3\xA9\",{},[],null],\"c\":\"\"}");
  // What the writer produces reads back.
  const JsonValue v = parse_json(w.text());
  EXPECT_EQ(v.find("a")->integer, INT64_MIN);
  EXPECT_EQ(v.find("b")->items[1].text, "q\"\\\n\x01\xC3\xA9");
}

}  // namespace
}  // namespace onemodel
