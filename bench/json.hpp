// A tiny streaming JSON writer (no external libraries): objects, arrays, escaped strings,
// numbers (non-finite ones become null), booleans and null, pretty-printed with two spaces.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace bench {

// s as a JSON string literal, quotes included: ", \ and control characters escaped.
std::string json_quote(const std::string& s);

class JsonWriter {
 public:
  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(const std::string& k);  // inside an object, before each value
  JsonWriter& str(const std::string& v);
  JsonWriter& str_or_null(const char* v);  // NULL -> null
  JsonWriter& num(double v);               // NaN and infinities -> null
  JsonWriter& integer(std::int64_t v);
  JsonWriter& boolean(bool v);
  JsonWriter& null();

  // The document; throws std::logic_error when objects or arrays are still open.
  const std::string& text() const;

 private:
  void before_value();
  void newline();
  std::string out_;
  struct Level {
    bool object;
    int count;
  };
  std::vector<Level> stack_;
  bool after_key_ = false;
};

}  // namespace bench
