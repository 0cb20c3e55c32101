// Status and error assertions for the GPU tests: the calling thread's gpuopt message, status
// comparisons that print names and messages, CUDA runtime checks.
#pragma once
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cctype>
#include <string>
#include <vector>

#include "gpuopt.h"

namespace gput {

// The calling thread's last gpuopt error message ("" when none).
inline std::string last_message() {
  size_t len = 0;
  if (gpuopt_last_error_message(nullptr, 0, &len) != GPUOPT_SUCCESS) return "<unavailable>";
  std::string s(len + 1, '\0');
  if (gpuopt_last_error_message(&s[0], s.size(), nullptr) != GPUOPT_SUCCESS) {
    return "<unavailable>";
  }
  s.resize(len);
  return s;
}

// True when word occurs in text with no identifier character directly around it ("x" matches
// "x is NULL" but not "gpuopt_axpy").
inline bool has_word(const std::string& text, const std::string& word) {
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; };
  for (size_t pos = text.find(word); pos != std::string::npos; pos = text.find(word, pos + 1)) {
    const size_t end = pos + word.size();
    if ((pos == 0 || !ident(text[pos - 1])) && (end >= text.size() || !ident(text[end]))) {
      return true;
    }
  }
  return false;
}

// gtest predicate formatter: the call answered the expected status. Prints both names and the
// thread's message.
inline ::testing::AssertionResult StatusIs(const char* expected_expr, const char* call_expr,
                                           gpuopt_status_t expected, gpuopt_status_t got) {
  if (got == expected) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << call_expr << " answered " << gpuopt_status_name(got) << ", expected "
         << gpuopt_status_name(expected) << " (" << expected_expr << "); message: \""
         << last_message() << "\"";
}

// The last failure's message names the function and, when given, the argument (whole word).
inline ::testing::AssertionResult MessageNames(const char* fn, const char* arg = nullptr) {
  const std::string msg = last_message();
  if (msg.find(fn) == std::string::npos) {
    return ::testing::AssertionFailure() << "message does not name " << fn << ": \"" << msg << "\"";
  }
  if (arg && !has_word(msg, arg)) {
    return ::testing::AssertionFailure()
           << "message does not name the argument '" << arg << "': \"" << msg << "\"";
  }
  return ::testing::AssertionSuccess();
}

}  // namespace gput

#define EXPECT_STATUS(expected, call) EXPECT_PRED_FORMAT2(::gput::StatusIs, expected, call)
#define ASSERT_STATUS(expected, call) ASSERT_PRED_FORMAT2(::gput::StatusIs, expected, call)
#define EXPECT_GPUOPT_OK(call) EXPECT_STATUS(GPUOPT_SUCCESS, call)
#define ASSERT_GPUOPT_OK(call) ASSERT_STATUS(GPUOPT_SUCCESS, call)

#define ASSERT_CUDA_OK(call)                                                                  \
  do {                                                                                        \
    const cudaError_t gput_err_ = (call);                                                     \
    ASSERT_EQ(gput_err_, cudaSuccess) << #call << ": " << cudaGetErrorName(gput_err_) << " (" \
                                      << cudaGetErrorString(gput_err_) << ")";                \
  } while (0)
#define EXPECT_CUDA_OK(call)                                                                  \
  do {                                                                                        \
    const cudaError_t gput_err_ = (call);                                                     \
    EXPECT_EQ(gput_err_, cudaSuccess) << #call << ": " << cudaGetErrorName(gput_err_) << " (" \
                                      << cudaGetErrorString(gput_err_) << ")";                \
  } while (0)

namespace gput {

// One entry of an op's variant table as gpuopt_variant_info() reports it.
struct VariantEntry {
  std::string name;
  bool available = false;  // runs on the context's device
  unsigned dtype_mask = 0;
};

// The variants of op on ctx, in table order.
inline std::vector<VariantEntry> list_variants(gpuopt_context_t ctx, gpuopt_op_t op) {
  std::vector<VariantEntry> out;
  int count = 0;
  EXPECT_GPUOPT_OK(gpuopt_variant_count(ctx, op, &count));
  for (int i = 0; i < count; ++i) {
    gpuopt_variant_info_t info{};
    info.struct_size = sizeof info;
    EXPECT_GPUOPT_OK(gpuopt_variant_info(ctx, op, i, &info));
    out.push_back({info.name ? info.name : "", info.available != 0, info.dtype_mask});
  }
  return out;
}

// Only the names, in table order.
inline std::vector<std::string> variant_names(gpuopt_context_t ctx, gpuopt_op_t op) {
  std::vector<std::string> names;
  for (const VariantEntry& v : list_variants(ctx, op)) names.push_back(v.name);
  return names;
}

// The variant the last call of op ran on ctx ("<none>" before any).
inline std::string last_variant_name(gpuopt_context_t ctx, gpuopt_op_t op) {
  const char* name = nullptr;
  EXPECT_GPUOPT_OK(gpuopt_last_variant(ctx, op, &name));
  return name ? name : "<none>";
}

}  // namespace gput
