#include "json.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace bench {

std::string json_quote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
  return out;
}

void JsonWriter::newline() {
  out_ += '\n';
  out_.append(2 * stack_.size(), ' ');
}

void JsonWriter::before_value() {
  if (stack_.empty()) {
    if (!out_.empty()) throw std::logic_error("JsonWriter: second top-level value");
    return;
  }
  Level& top = stack_.back();
  if (top.object) {
    if (!after_key_) throw std::logic_error("JsonWriter: value in an object without a key");
    after_key_ = false;
    return;
  }
  if (top.count++ > 0) out_ += ',';
  newline();
}

JsonWriter& JsonWriter::key(const std::string& k) {
  if (stack_.empty() || !stack_.back().object || after_key_) {
    throw std::logic_error("JsonWriter: key outside an object or twice");
  }
  if (stack_.back().count++ > 0) out_ += ',';
  newline();
  out_ += json_quote(k);
  out_ += ": ";
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::begin_object() {
  before_value();
  out_ += '{';
  stack_.push_back({true, 0});
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  if (stack_.empty() || !stack_.back().object || after_key_) {
    throw std::logic_error("JsonWriter: end_object without a matching begin");
  }
  bool empty = stack_.back().count == 0;
  stack_.pop_back();
  if (!empty) newline();
  out_ += '}';
  if (stack_.empty()) out_ += '\n';
  return *this;
}

JsonWriter& JsonWriter::begin_array() {
  before_value();
  out_ += '[';
  stack_.push_back({false, 0});
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  if (stack_.empty() || stack_.back().object) {
    throw std::logic_error("JsonWriter: end_array without a matching begin");
  }
  bool empty = stack_.back().count == 0;
  stack_.pop_back();
  if (!empty) newline();
  out_ += ']';
  if (stack_.empty()) out_ += '\n';
  return *this;
}

JsonWriter& JsonWriter::str(const std::string& v) {
  before_value();
  out_ += json_quote(v);
  return *this;
}

JsonWriter& JsonWriter::str_or_null(const char* v) { return v ? str(v) : null(); }

JsonWriter& JsonWriter::num(double v) {
  if (!std::isfinite(v)) return null();
  before_value();
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.10g", v);
  out_ += buf;
  return *this;
}

JsonWriter& JsonWriter::integer(std::int64_t v) {
  before_value();
  out_ += std::to_string(v);
  return *this;
}

JsonWriter& JsonWriter::boolean(bool v) {
  before_value();
  out_ += v ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::null() {
  before_value();
  out_ += "null";
  return *this;
}

const std::string& JsonWriter::text() const {
  if (!stack_.empty()) throw std::logic_error("JsonWriter: unclosed object or array");
  return out_;
}

}  // namespace bench
