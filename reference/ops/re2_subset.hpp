// A matcher for the subset of RE2 syntax that RegexFullMatch accepts (spec/ops/strings.md
// section 6). Shared helper of reference/ops/op_regex_full_match.cpp, kept apart so tests reach
// it directly.
//
// The pattern is compiled to a Thompson automaton and run over the input by simulating every
// state at once (no backtracking): the work is at most (input bytes + 1) x (program size), so no
// pattern makes a match take exponential time, and nothing recurses on the input length.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace onemodel::re2s {

// Limits (spec/ops/strings.md section 6).
inline constexpr std::size_t kMaxPatternBytes = 1024;
inline constexpr std::size_t kMaxProgramSize = 20000;
inline constexpr int kMaxRepeat = 1000;  // RE2's own limit on {n,m}

// Why a pattern was refused: Invalid (not RE2 syntax) or Unsupported (RE2, but outside the subset
// or the limits).
struct PatternError {
  bool invalid = false;
  std::string message;
};

// A set of bytes.
struct ByteSet {
  std::array<std::uint64_t, 4> words{};
  bool has(unsigned char c) const noexcept { return (words[c >> 6] >> (c & 63)) & 1u; }
  void add(unsigned char c) noexcept { words[c >> 6] |= std::uint64_t{1} << (c & 63); }
  void add_range(unsigned char lo, unsigned char hi) noexcept {
    for (unsigned c = lo; c <= static_cast<unsigned>(hi); ++c) add(static_cast<unsigned char>(c));
  }
  void merge(const ByteSet& other) noexcept {
    for (std::size_t i = 0; i < 4; ++i) words[i] |= other.words[i];
  }
  void invert() noexcept {
    for (std::uint64_t& w : words) w = ~w;
  }
  // True when some byte >= 0x80 is in the set.
  bool wide() const noexcept { return words[2] != 0 || words[3] != 0; }
};

enum class Anchor : std::uint8_t { TextBegin, TextEnd, WordBoundary, NotWordBoundary };

struct Instruction {
  enum class Kind : std::uint8_t { Byte, Split, Jump, Assert, Match };
  Kind kind = Kind::Match;
  std::uint32_t set = 0;   // Byte: index into Program::sets
  std::int32_t x = 0;      // Split: first target; Jump: target
  std::int32_t y = 0;      // Split: second target
  Anchor anchor = Anchor::TextBegin;
};

struct Program {
  std::vector<Instruction> code;
  std::vector<ByteSet> sets;
  // Some set matches a byte >= 0x80 ('.', a negated class, \W, \S, \D): such a pattern is refused
  // input bytes >= 0x80, where RE2 would match UTF-8 code points (spec/ops/strings.md section 6).
  bool wide = false;
};

// Compiles `pattern`; on refusal returns false and fills `error`.
bool compile(std::string_view pattern, Program& program, PatternError& error);

// True when the whole of `text` matches. The caller has refused wide programs on non-ASCII text.
bool full_match(const Program& program, std::string_view text);

}  // namespace onemodel::re2s
