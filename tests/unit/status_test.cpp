// Version, status names, op and dtype names: pure functions of the library.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "gpuopt.h"

namespace {

TEST(Version, MatchesHeaderMacros) {
  EXPECT_EQ(gpuopt_version(), GPUOPT_VERSION);
  EXPECT_EQ(GPUOPT_VERSION,
            GPUOPT_VERSION_MAJOR * 10000 + GPUOPT_VERSION_MINOR * 100 + GPUOPT_VERSION_PATCH);
  const std::string expected = std::to_string(GPUOPT_VERSION_MAJOR) + "." +
                               std::to_string(GPUOPT_VERSION_MINOR) + "." +
                               std::to_string(GPUOPT_VERSION_PATCH);
  ASSERT_NE(gpuopt_version_string(), nullptr);
  EXPECT_EQ(std::string(gpuopt_version_string()), expected);
}

TEST(StatusName, EveryStatusHasItsConstantName) {
  struct Row {
    gpuopt_status_t status;
    const char* name;
  };
  const Row rows[] = {
      {GPUOPT_SUCCESS, "GPUOPT_SUCCESS"},
      {GPUOPT_ERROR_INVALID_ARGUMENT, "GPUOPT_ERROR_INVALID_ARGUMENT"},
      {GPUOPT_ERROR_INVALID_HANDLE, "GPUOPT_ERROR_INVALID_HANDLE"},
      {GPUOPT_ERROR_NO_DEVICE, "GPUOPT_ERROR_NO_DEVICE"},
      {GPUOPT_ERROR_UNSUPPORTED, "GPUOPT_ERROR_UNSUPPORTED"},
      {GPUOPT_ERROR_OUT_OF_MEMORY, "GPUOPT_ERROR_OUT_OF_MEMORY"},
      {GPUOPT_ERROR_MISALIGNED, "GPUOPT_ERROR_MISALIGNED"},
      {GPUOPT_ERROR_CAPTURE_ILLEGAL, "GPUOPT_ERROR_CAPTURE_ILLEGAL"},
      {GPUOPT_ERROR_NOT_FOUND, "GPUOPT_ERROR_NOT_FOUND"},
      {GPUOPT_ERROR_CUDA, "GPUOPT_ERROR_CUDA"},
      {GPUOPT_ERROR_CUBLAS, "GPUOPT_ERROR_CUBLAS"},
      {GPUOPT_ERROR_INTERNAL, "GPUOPT_ERROR_INTERNAL"},
      {GPUOPT_ERROR_WRONG_DEVICE, "GPUOPT_ERROR_WRONG_DEVICE"},
      {GPUOPT_ERROR_COMM, "GPUOPT_ERROR_COMM"},
  };
  for (const Row& r : rows) {
    const char* got = gpuopt_status_name(r.status);
    ASSERT_NE(got, nullptr) << "status " << static_cast<int>(r.status);
    EXPECT_STREQ(got, r.name) << "status " << static_cast<int>(r.status);
  }
}

TEST(StatusName, UnknownValues) {
  for (int v : {-1, 14, 100, 1 << 30}) {
    const char* got = gpuopt_status_name(static_cast<gpuopt_status_t>(v));
    ASSERT_NE(got, nullptr) << v;
    EXPECT_STREQ(got, "GPUOPT_STATUS_UNKNOWN") << v;
  }
}

TEST(OpName, KnownAndUnknown) {
  ASSERT_NE(gpuopt_op_name(GPUOPT_OP_AXPY), nullptr);
  EXPECT_STREQ(gpuopt_op_name(GPUOPT_OP_AXPY), "axpy");
  EXPECT_EQ(gpuopt_op_name(static_cast<gpuopt_op_t>(-1)), nullptr);
  EXPECT_EQ(gpuopt_op_name(static_cast<gpuopt_op_t>(1000)), nullptr);
}

TEST(DtypeName, KnownAndUnknown) {
  struct Row {
    gpuopt_dtype_t dtype;
    const char* name;
  };
  const Row rows[] = {{GPUOPT_DTYPE_F32, "f32"}, {GPUOPT_DTYPE_F64, "f64"},
                      {GPUOPT_DTYPE_F16, "f16"}, {GPUOPT_DTYPE_BF16, "bf16"},
                      {GPUOPT_DTYPE_I32, "i32"}, {GPUOPT_DTYPE_I64, "i64"},
                      {GPUOPT_DTYPE_U32, "u32"}, {GPUOPT_DTYPE_U64, "u64"}};
  for (const Row& r : rows) {
    const char* got = gpuopt_dtype_name(r.dtype);
    ASSERT_NE(got, nullptr) << static_cast<int>(r.dtype);
    EXPECT_STREQ(got, r.name);
  }
  EXPECT_EQ(gpuopt_dtype_name(static_cast<gpuopt_dtype_t>(-1)), nullptr);
  EXPECT_EQ(gpuopt_dtype_name(static_cast<gpuopt_dtype_t>(8)), nullptr);
  EXPECT_EQ(gpuopt_dtype_name(static_cast<gpuopt_dtype_t>(1000)), nullptr);
}

}  // namespace
