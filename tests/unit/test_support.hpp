// Small helpers shared by the unit tests: the calling thread's gpuopt message, whole-word
// matching in messages, and whether this machine has a CUDA device.
#pragma once
#include <algorithm>
#include <cctype>
#include <string>

#include "gpuopt.h"

namespace unit {

// The calling thread's last gpuopt error message ("" when none).
inline std::string last_message() {
  size_t len = 0;
  if (gpuopt_last_error_message(nullptr, 0, &len) != GPUOPT_SUCCESS) return "<message unavailable>";
  std::string s(len + 1, '\0');
  if (gpuopt_last_error_message(&s[0], s.size(), nullptr) != GPUOPT_SUCCESS) {
    return "<message unavailable>";
  }
  s.resize(len);
  return s;
}

inline bool is_ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

// True when word occurs in text with no identifier character directly before or after it, so
// that "x" matches "x is NULL" but not "gpuopt_axpy".
inline bool has_word(const std::string& text, const std::string& word) {
  for (size_t pos = text.find(word); pos != std::string::npos; pos = text.find(word, pos + 1)) {
    const bool left = pos == 0 || !is_ident_char(text[pos - 1]);
    const size_t end = pos + word.size();
    const bool right = end >= text.size() || !is_ident_char(text[end]);
    if (left && right) return true;
  }
  return false;
}

inline std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// Number of CUDA devices gpuopt sees (0 when it answers an error).
inline int device_count() {
  int count = 0;
  return gpuopt_device_count(&count) == GPUOPT_SUCCESS ? count : 0;
}

// A square n x n x n gemm, NN, column-major with leading dimension n, C = A B in type t.
inline gpuopt_gemm_desc_t square_gemm_desc(gpuopt_dtype_t t, int64_t n) {
  gpuopt_gemm_desc_t d{};
  d.struct_size = sizeof d;
  d.trans_a = d.trans_b = GPUOPT_TRANS_N;
  d.m = d.n = d.k = n;
  d.alpha = 1.0;
  d.a_type = d.c_type = t;
  d.lda = d.ldb = d.ldc = n;
  return d;
}

}  // namespace unit
