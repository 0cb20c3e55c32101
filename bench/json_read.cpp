#include "json_read.hpp"

#include <cstdlib>
#include <stdexcept>

namespace bench {
namespace {

constexpr int kMaxDepth = 64;

class Parser {
 public:
  explicit Parser(const std::string& s) : s_(s) {}

  JsonValue document() {
    JsonValue v = value(0);
    skip_space();
    if (i_ != s_.size()) error("trailing characters after the document");
    return v;
  }

 private:
  [[noreturn]] void error(const std::string& what) const {
    throw std::runtime_error("JSON: " + what + " at byte " + std::to_string(i_));
  }

  void skip_space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r'))
      ++i_;
  }

  bool literal(const char* word) {
    std::size_t j = 0;
    while (word[j] && i_ + j < s_.size() && s_[i_ + j] == word[j]) ++j;
    if (word[j]) return false;
    i_ += j;
    return true;
  }

  // At an opening bracket: consumes it, and the closing one too when nothing is between.
  bool opens_empty(char close) {
    ++i_;
    skip_space();
    if (i_ < s_.size() && s_[i_] == close) {
      ++i_;
      return true;
    }
    return false;
  }

  // After an item: true at ',' (another item follows), false at close (consumed either way).
  bool more(char close) {
    skip_space();
    if (i_ < s_.size() && (s_[i_] == ',' || s_[i_] == close)) return s_[i_++] == ',';
    error(std::string("expected ',' or '") + close + "'");
  }

  JsonValue value(int depth) {
    if (depth > kMaxDepth) error("nesting deeper than 64 levels");
    skip_space();
    if (i_ >= s_.size()) error("unexpected end");
    JsonValue v;
    const char c = s_[i_];
    if (c == '{') {
      v.kind = JsonValue::Kind::object;
      if (opens_empty('}')) return v;
      do {
        skip_space();
        if (i_ >= s_.size() || s_[i_] != '"') error("expected a member name");
        std::string key = string();
        skip_space();
        if (i_ >= s_.size() || s_[i_] != ':') error("expected ':'");
        ++i_;
        v.members.emplace_back(std::move(key), value(depth + 1));
      } while (more('}'));
      return v;
    }
    if (c == '[') {
      v.kind = JsonValue::Kind::array;
      if (opens_empty(']')) return v;
      do {
        v.items.push_back(value(depth + 1));
      } while (more(']'));
      return v;
    }
    if (c == '"') {
      v.kind = JsonValue::Kind::string;
      v.string = string();
      return v;
    }
    if (literal("true")) {
      v.kind = JsonValue::Kind::boolean;
      v.boolean = true;
      return v;
    }
    if (literal("false")) {
      v.kind = JsonValue::Kind::boolean;
      return v;
    }
    if (literal("null")) return v;
    v.kind = JsonValue::Kind::number;
    v.number = number();
    return v;
  }

  // -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
  double number() {
    const std::size_t start = i_;
    auto digits = [&] {
      const std::size_t from = i_;
      while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
      return i_ > from;
    };
    if (i_ < s_.size() && s_[i_] == '-') ++i_;
    if (i_ < s_.size() && s_[i_] == '0') {
      ++i_;
    } else if (!digits()) {
      error("expected a value");
    }
    if (i_ < s_.size() && s_[i_] == '.') {
      ++i_;
      if (!digits()) error("expected digits after '.'");
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      ++i_;
      if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
      if (!digits()) error("expected digits in the exponent");
    }
    return std::strtod(s_.substr(start, i_ - start).c_str(), nullptr);
  }

  unsigned hex4() {
    if (i_ + 4 > s_.size()) error("short \\u escape");
    unsigned u = 0;
    for (int j = 0; j < 4; ++j) {
      const char h = s_[i_++];
      u <<= 4;
      if (h >= '0' && h <= '9') {
        u |= static_cast<unsigned>(h - '0');
      } else if (h >= 'a' && h <= 'f') {
        u |= static_cast<unsigned>(h - 'a' + 10);
      } else if (h >= 'A' && h <= 'F') {
        u |= static_cast<unsigned>(h - 'A' + 10);
      } else {
        error("bad hex digit in a \\u escape");
      }
    }
    return u;
  }

  static void utf8(unsigned cp, std::string* out) {
    if (cp < 0x80) {
      *out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      *out += static_cast<char>(0xC0 | (cp >> 6));
      *out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      *out += static_cast<char>(0xE0 | (cp >> 12));
      *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      *out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      *out += static_cast<char>(0xF0 | (cp >> 18));
      *out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      *out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  std::string string() {
    ++i_;  // the opening quote
    std::string out;
    for (;;) {
      if (i_ >= s_.size()) error("unterminated string");
      const char c = s_[i_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) error("control character in a string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (i_ >= s_.size()) error("unterminated escape");
      const char e = s_[i_++];
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          unsigned cp = hex4();
          if (cp >= 0xD800 && cp < 0xDC00) {  // high surrogate: a low one must follow
            if (i_ + 2 > s_.size() || s_[i_] != '\\' || s_[i_ + 1] != 'u')
              error("lone surrogate in a \\u escape");
            i_ += 2;
            const unsigned lo = hex4();
            if (lo < 0xDC00 || lo >= 0xE000) error("bad low surrogate in a \\u escape");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          } else if (cp >= 0xDC00 && cp < 0xE000) {
            error("lone surrogate in a \\u escape");
          }
          utf8(cp, &out);
          break;
        }
        default:
          error("bad escape");
      }
    }
  }

  const std::string& s_;
  std::size_t i_ = 0;
};

}  // namespace

const JsonValue* JsonValue::get(const std::string& key) const {
  const JsonValue* found = nullptr;
  for (const auto& m : members) {
    if (m.first == key) found = &m.second;
  }
  return found;
}

std::string JsonValue::string_or(const std::string& key, const std::string& fallback) const {
  const JsonValue* v = get(key);
  return v && v->kind == Kind::string ? v->string : fallback;
}

double JsonValue::number_or(const std::string& key, double fallback) const {
  const JsonValue* v = get(key);
  return v && v->kind == Kind::number ? v->number : fallback;
}

JsonValue parse_json(const std::string& text) { return Parser(text).document(); }

}  // namespace bench
