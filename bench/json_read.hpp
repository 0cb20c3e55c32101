// A small JSON reader (RFC 8259, no external libraries) for what gpuopt-bench reads back: the
// output of its helper scripts (bench/torch_matmul.py). The writer is json.hpp.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace bench {

struct JsonValue {
  enum class Kind { null, boolean, number, string, array, object };
  Kind kind = Kind::null;
  bool boolean = false;
  double number = 0.0;
  std::string string;
  std::vector<JsonValue> items;                            // array
  std::vector<std::pair<std::string, JsonValue>> members;  // object, in document order

  // The member called key of an object (the last one if repeated), else nullptr.
  const JsonValue* get(const std::string& key) const;
  // The member's string / number, or fallback when absent or of another kind.
  std::string string_or(const std::string& key, const std::string& fallback) const;
  double number_or(const std::string& key, double fallback) const;
};

// Parses one JSON document (surrounding whitespace allowed); throws std::runtime_error naming the
// byte offset of the first error. Nesting deeper than 64 levels is an error.
JsonValue parse_json(const std::string& text);

}  // namespace bench
