// The RE2 subset of RegexFullMatch (spec/ops/strings.md section 6): parser, compiler to a
// Thompson automaton, and the all-states simulation.
#include "reference/ops/re2_subset.hpp"

#include <utility>

namespace onemodel::re2s {
namespace {

// RE2's Perl classes, ASCII: \d [0-9], \s [\t\n\f\r ], \w [0-9A-Za-z_].
ByteSet digit_set() {
  ByteSet s;
  s.add_range('0', '9');
  return s;
}
ByteSet space_set() {
  ByteSet s;
  for (char c : {'\t', '\n', '\f', '\r', ' '}) s.add(static_cast<unsigned char>(c));
  return s;
}
ByteSet word_set() {
  ByteSet s;
  s.add_range('0', '9');
  s.add_range('A', 'Z');
  s.add_range('a', 'z');
  s.add('_');
  return s;
}

Instruction instruction(Instruction::Kind kind) {
  Instruction in;
  in.kind = kind;
  return in;
}

bool is_word_byte(unsigned char c) noexcept {
  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

// The parsed pattern: a tree kept in one vector.
struct Node {
  enum class Kind { Set, Empty, Concat, Alternate, Repeat, Assert };
  Kind kind = Kind::Empty;
  std::uint32_t set = 0;
  Anchor anchor = Anchor::TextBegin;
  std::vector<int> children;
  int min = 0;
  int max = -1;  // -1: no upper bound
};

struct Refusal {
  PatternError error;
};

class Parser {
 public:
  Parser(std::string_view pattern, Program& program) : p_(pattern), program_(program) {}

  int parse() {
    const int root = alternation();
    if (i_ < p_.size()) invalid("unmatched ')'");
    return root;
  }
  std::vector<Node> nodes;

 private:
  [[noreturn]] void invalid(const std::string& what) const {
    throw Refusal{PatternError{true, what + " at byte " + std::to_string(i_)}};
  }
  [[noreturn]] void unsupported(const std::string& what) const {
    throw Refusal{PatternError{false, what + " at byte " + std::to_string(i_)}};
  }

  int add(Node node) {
    nodes.push_back(std::move(node));
    return static_cast<int>(nodes.size() - 1);
  }
  int add_set(const ByteSet& set) {
    program_.wide = program_.wide || set.wide();
    program_.sets.push_back(set);
    Node node;
    node.kind = Node::Kind::Set;
    node.set = static_cast<std::uint32_t>(program_.sets.size() - 1);
    return add(std::move(node));
  }
  int add_assert(Anchor anchor) {
    Node node;
    node.kind = Node::Kind::Assert;
    node.anchor = anchor;
    return add(std::move(node));
  }
  ByteSet single(unsigned char c) const {
    ByteSet s;
    s.add(c);
    return s;
  }

  int alternation() {
    Node alt;
    alt.kind = Node::Kind::Alternate;
    alt.children.push_back(concatenation());
    while (i_ < p_.size() && p_[i_] == '|') {
      ++i_;
      alt.children.push_back(concatenation());
    }
    if (alt.children.size() == 1) return alt.children[0];
    return add(std::move(alt));
  }

  int concatenation() {
    Node cat;
    cat.kind = Node::Kind::Concat;
    while (i_ < p_.size() && p_[i_] != '|' && p_[i_] != ')') cat.children.push_back(repetition());
    return add(std::move(cat));
  }

  // {n}, {n,}, {n,m} at i_: true and the bounds when it is one (RE2 reads other braces literally).
  bool repeat_braces(std::size_t at, int& min, int& max, std::size_t& end) const {
    if (at >= p_.size() || p_[at] != '{') return false;
    std::size_t k = at + 1;
    auto number = [&](int& out) {
      const std::size_t start = k;
      long value = 0;
      while (k < p_.size() && p_[k] >= '0' && p_[k] <= '9') {
        value = value * 10 + (p_[k] - '0');
        if (value > 100000) value = 100000;  // refused below as over the limit
        ++k;
      }
      out = static_cast<int>(value);
      return k > start;
    };
    if (!number(min)) return false;
    max = min;
    if (k < p_.size() && p_[k] == ',') {
      ++k;
      max = -1;
      if (k < p_.size() && p_[k] != '}' && !number(max)) return false;
    }
    if (k >= p_.size() || p_[k] != '}') return false;
    end = k + 1;
    return true;
  }

  int repetition() {
    const bool assertion_atom = i_ < p_.size() && (p_[i_] == '^' || p_[i_] == '$');
    int item = atom();
    bool quantified = false;
    while (i_ < p_.size()) {
      int min = 0;
      int max = -1;
      std::size_t end = 0;
      const char c = p_[i_];
      if (c == '*') {
        end = i_ + 1;
      } else if (c == '+') {
        min = 1;
        end = i_ + 1;
      } else if (c == '?') {
        max = 1;
        end = i_ + 1;
      } else if (!repeat_braces(i_, min, max, end)) {
        break;
      }
      if (quantified) invalid("bad repetition operator");
      if (assertion_atom) unsupported("a repeated anchor");
      if (min > kMaxRepeat || max > kMaxRepeat) invalid("bad repetition operator (counts above 1000)");
      if (max >= 0 && max < min) invalid("bad repetition operator (max below min)");
      i_ = end;
      // A trailing '?' asks for the shortest match; a full match does not depend on it.
      if (i_ < p_.size() && p_[i_] == '?') ++i_;
      Node rep;
      rep.kind = Node::Kind::Repeat;
      rep.children.push_back(item);
      rep.min = min;
      rep.max = max;
      item = add(std::move(rep));
      quantified = true;
    }
    return item;
  }

  // The set of an escape that names a class (d D s S w W), or false.
  bool class_escape(char c, ByteSet& set) const {
    switch (c) {
      case 'd': set = digit_set(); return true;
      case 's': set = space_set(); return true;
      case 'w': set = word_set(); return true;
      case 'D': set = digit_set(); set.invert(); return true;
      case 'S': set = space_set(); set.invert(); return true;
      case 'W': set = word_set(); set.invert(); return true;
      default: return false;
    }
  }

  // The byte of a one-byte escape (\t \n \r \f \v, or escaped ASCII punctuation), else refuses.
  unsigned char literal_escape(char c) const {
    switch (c) {
      case 't': return '\t';
      case 'n': return '\n';
      case 'r': return '\r';
      case 'f': return '\f';
      case 'v': return '\v';
      default: break;
    }
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x80) unsupported("a byte >= 0x80 in the pattern");
    if ((c >= '0' && c <= '9')) unsupported("escape \\" + std::string(1, c) + " (backreferences and octal escapes)");
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
      unsupported("escape \\" + std::string(1, c) + " is outside the supported subset");
    }
    if (u < 0x21 || u == 0x7F) unsupported("escape of a control or space byte");
    return u;
  }

  int atom() {
    const char c = p_[i_];
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x80) unsupported("a byte >= 0x80 in the pattern");
    switch (c) {
      case '(': {
        ++i_;
        if (i_ < p_.size() && p_[i_] == '?') {
          if (i_ + 1 < p_.size() && p_[i_ + 1] == ':') {
            i_ += 2;
          } else {
            unsupported("group flags and named groups '(?'");
          }
        }
        const int inner = alternation();
        if (i_ >= p_.size() || p_[i_] != ')') invalid("missing ')'");
        ++i_;
        return inner;
      }
      case '[': return character_class();
      case '.': {
        // RE2 without the s flag: any character but newline.
        ByteSet all;
        all.invert();
        ByteSet newline = single('\n');
        all.words[0] &= ~newline.words[0];
        ++i_;
        return add_set(all);
      }
      case '^': ++i_; return add_assert(Anchor::TextBegin);
      case '$': ++i_; return add_assert(Anchor::TextEnd);
      case '*':
      case '+':
      case '?': invalid("missing argument to repetition operator");
      case '\\': {
        if (i_ + 1 >= p_.size()) invalid("trailing backslash");
        const char e = p_[i_ + 1];
        i_ += 2;
        ByteSet set;
        if (class_escape(e, set)) return add_set(set);
        if (e == 'b') return add_assert(Anchor::WordBoundary);
        if (e == 'B') return add_assert(Anchor::NotWordBoundary);
        if (e == 'A') return add_assert(Anchor::TextBegin);
        if (e == 'z') return add_assert(Anchor::TextEnd);
        i_ -= 2;  // for the position in a refusal
        const unsigned char b = literal_escape(e);
        i_ += 2;
        return add_set(single(b));
      }
      default: break;
    }
    int min = 0;
    int max = 0;
    std::size_t end = 0;
    if (repeat_braces(i_, min, max, end)) invalid("missing argument to repetition operator");
    ++i_;
    return add_set(single(u));
  }

  // One member of a class at i_ (a byte, an escape): its set; `single_byte` says whether it may
  // start or end a range, and then `byte` is that byte.
  ByteSet class_member(bool& single_byte, unsigned char& byte) {
    single_byte = false;
    const char c = p_[i_];
    if (c == '\\') {
      if (i_ + 1 >= p_.size()) invalid("trailing backslash");
      const char e = p_[i_ + 1];
      ByteSet set;
      if (class_escape(e, set)) {
        i_ += 2;
        return set;
      }
      byte = literal_escape(e);
      i_ += 2;
      single_byte = true;
      return single(byte);
    }
    if (c == '[' && i_ + 1 < p_.size() && p_[i_ + 1] == ':') unsupported("POSIX classes '[:name:]'");
    byte = static_cast<unsigned char>(c);
    if (byte >= 0x80) unsupported("a byte >= 0x80 in the pattern");
    ++i_;
    single_byte = true;
    return single(byte);
  }

  int character_class() {
    ++i_;  // '['
    bool negated = false;
    if (i_ < p_.size() && p_[i_] == '^') {
      negated = true;
      ++i_;
    }
    ByteSet set;
    bool first = true;
    while (true) {
      if (i_ >= p_.size()) invalid("missing ']'");
      if (p_[i_] == ']' && !first) break;
      first = false;
      bool single_lo = false;
      unsigned char lo = 0;
      const ByteSet member = class_member(single_lo, lo);
      if (i_ + 1 < p_.size() && p_[i_] == '-' && p_[i_ + 1] != ']') {
        ++i_;
        bool single_hi = false;
        unsigned char hi = 0;
        (void)class_member(single_hi, hi);
        if (!single_lo || !single_hi) invalid("bad character class range");
        if (lo > hi) invalid("bad character class range");
        set.add_range(lo, hi);
        continue;
      }
      set.merge(member);
    }
    ++i_;  // ']'
    // RE2: a negated class matches newline too.
    if (negated) set.invert();
    return add_set(set);
  }

  std::string_view p_;
  Program& program_;
  std::size_t i_ = 0;
};

class Compiler {
 public:
  Compiler(const std::vector<Node>& nodes, Program& program) : nodes_(nodes), code_(program.code) {}

  void emit_node(int index) {
    const Node& node = nodes_[static_cast<std::size_t>(index)];
    switch (node.kind) {
      case Node::Kind::Empty: return;
      case Node::Kind::Set: {
        Instruction in;
        in.kind = Instruction::Kind::Byte;
        in.set = node.set;
        push(in);
        return;
      }
      case Node::Kind::Assert: {
        Instruction in;
        in.kind = Instruction::Kind::Assert;
        in.anchor = node.anchor;
        push(in);
        return;
      }
      case Node::Kind::Concat:
        for (int child : node.children) emit_node(child);
        return;
      case Node::Kind::Alternate: {
        // split L1, next; L1: a; jump end; next: split L2, ... ; last alternative; end.
        std::vector<std::size_t> jumps;
        for (std::size_t k = 0; k + 1 < node.children.size(); ++k) {
          const std::size_t split = push(instruction(Instruction::Kind::Split));
          code_[split].x = here();
          emit_node(node.children[k]);
          jumps.push_back(push(instruction(Instruction::Kind::Jump)));
          code_[split].y = here();
        }
        emit_node(node.children.back());
        for (std::size_t j : jumps) code_[j].x = here();
        return;
      }
      case Node::Kind::Repeat: {
        const int child = node.children[0];
        for (int k = 0; k < node.min; ++k) emit_node(child);
        if (node.max < 0) {
          // loop: split body, end; body; jump loop; end.
          const std::size_t loop = push(instruction(Instruction::Kind::Split));
          code_[loop].x = here();
          emit_node(child);
          const std::size_t back = push(instruction(Instruction::Kind::Jump));
          code_[back].x = static_cast<std::int32_t>(loop);
          code_[loop].y = here();
          return;
        }
        // (max - min) nested optional copies: split body, end; body; ... end.
        std::vector<std::size_t> splits;
        for (int k = node.min; k < node.max; ++k) {
          const std::size_t split = push(instruction(Instruction::Kind::Split));
          code_[split].x = here();
          splits.push_back(split);
          emit_node(child);
        }
        for (std::size_t s : splits) code_[s].y = here();
        return;
      }
    }
  }

  std::size_t push(const Instruction& in) {
    if (code_.size() >= kMaxProgramSize) {
      throw Refusal{PatternError{false, "the pattern expands to more than " + std::to_string(kMaxProgramSize) +
                                            " automaton states"}};
    }
    code_.push_back(in);
    return code_.size() - 1;
  }
  std::int32_t here() const { return static_cast<std::int32_t>(code_.size()); }

 private:
  const std::vector<Node>& nodes_;
  std::vector<Instruction>& code_;
};

// The states reachable from `start` without reading a byte, at position `at` of `text`, added to
// `list` (each once: `mark` holds the step that last added a state).
void add_closure(const Program& program, std::string_view text, std::size_t at, std::int32_t start,
                 std::vector<std::int32_t>& list, std::vector<std::size_t>& mark, std::size_t step,
                 std::vector<std::int32_t>& stack) {
  stack.clear();
  stack.push_back(start);
  while (!stack.empty()) {
    const std::int32_t pc = stack.back();
    stack.pop_back();
    if (mark[static_cast<std::size_t>(pc)] == step) continue;
    mark[static_cast<std::size_t>(pc)] = step;
    const Instruction& in = program.code[static_cast<std::size_t>(pc)];
    switch (in.kind) {
      case Instruction::Kind::Jump: stack.push_back(in.x); break;
      case Instruction::Kind::Split:
        stack.push_back(in.y);
        stack.push_back(in.x);
        break;
      case Instruction::Kind::Assert: {
        const bool before = at > 0 && is_word_byte(static_cast<unsigned char>(text[at - 1]));
        const bool after = at < text.size() && is_word_byte(static_cast<unsigned char>(text[at]));
        bool holds = false;
        switch (in.anchor) {
          case Anchor::TextBegin: holds = at == 0; break;
          case Anchor::TextEnd: holds = at == text.size(); break;
          case Anchor::WordBoundary: holds = before != after; break;
          case Anchor::NotWordBoundary: holds = before == after; break;
        }
        if (holds) stack.push_back(pc + 1);
        break;
      }
      case Instruction::Kind::Byte:
      case Instruction::Kind::Match: list.push_back(pc); break;
    }
  }
}

}  // namespace

bool compile(std::string_view pattern, Program& program, PatternError& error) {
  program = Program{};
  if (pattern.size() > kMaxPatternBytes) {
    error = PatternError{false, "the pattern has " + std::to_string(pattern.size()) + " bytes, more than " +
                                    std::to_string(kMaxPatternBytes)};
    return false;
  }
  try {
    Parser parser(pattern, program);
    const int root = parser.parse();
    Compiler compiler(parser.nodes, program);
    compiler.emit_node(root);
    compiler.push(instruction(Instruction::Kind::Match));
  } catch (const Refusal& refusal) {
    error = refusal.error;
    program = Program{};
    return false;
  }
  return true;
}

bool full_match(const Program& program, std::string_view text) {
  const std::size_t size = program.code.size();
  std::vector<std::int32_t> current;
  std::vector<std::int32_t> next;
  std::vector<std::int32_t> stack;
  std::vector<std::size_t> mark(size, 0);
  std::size_t step = 1;
  add_closure(program, text, 0, 0, current, mark, step, stack);
  for (std::size_t at = 0; at < text.size(); ++at) {
    if (current.empty()) return false;
    ++step;
    next.clear();
    const auto byte = static_cast<unsigned char>(text[at]);
    for (std::int32_t pc : current) {
      const Instruction& in = program.code[static_cast<std::size_t>(pc)];
      if (in.kind == Instruction::Kind::Byte && program.sets[in.set].has(byte)) {
        add_closure(program, text, at + 1, pc + 1, next, mark, step, stack);
      }
    }
    std::swap(current, next);
  }
  for (std::int32_t pc : current) {
    if (program.code[static_cast<std::size_t>(pc)].kind == Instruction::Kind::Match) return true;
  }
  return false;
}

}  // namespace onemodel::re2s
