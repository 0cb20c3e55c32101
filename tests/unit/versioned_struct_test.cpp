// Reading a caller's versioned struct (runtime/versioned_struct.hpp): NULL, a struct_size below
// the minimum, an older caller (fields past its struct_size keep their defaults), a newer one
// (fields past ours ignored); and the one cuBLAS status translation (runtime/blas_error.hpp).
#include "runtime/versioned_struct.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "runtime/blas_error.hpp"
#include "test_support.hpp"

namespace {

struct Desc {  // a descriptor in its second version: `added` came with it
  std::size_t struct_size;
  std::int64_t n;
  std::int64_t added;
};
constexpr std::size_t kFirstVersion = GPUOPT_SIZE_THROUGH(Desc, n);

gpuopt_status_t read(const void* in, Desc* out) {
  return gpuopt::read_versioned("gpuopt_test", "desc", "gpuopt_test_desc_t",
                                static_cast<const Desc*>(in), kFirstVersion, out);
}

TEST(VersionedStruct, SizeThroughCoversTheField) {
  EXPECT_EQ(kFirstVersion, offsetof(Desc, n) + sizeof(std::int64_t));
  EXPECT_EQ(GPUOPT_SIZE_THROUGH(Desc, added), sizeof(Desc));
}

TEST(VersionedStruct, NullIsRefusedNamingTheArgument) {
  Desc out{0, 7, 7};
  EXPECT_EQ(read(nullptr, &out), GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(unit::last_message().find("gpuopt_test: desc is NULL"), std::string::npos)
      << unit::last_message();
  EXPECT_EQ(out.n, 7) << "unchanged on failure";
}

TEST(VersionedStruct, TooSmallIsRefusedWithTheSizeToSet) {
  for (std::size_t size : {std::size_t{0}, std::size_t{8}, kFirstVersion - 1}) {
    const Desc in{size, 1, 2};
    Desc out{0, 7, 7};
    EXPECT_EQ(read(&in, &out), GPUOPT_ERROR_INVALID_ARGUMENT) << size;
    const std::string m = unit::last_message();
    EXPECT_NE(m.find("desc->struct_size is " + std::to_string(size)), std::string::npos) << m;
    EXPECT_NE(m.find("sizeof(gpuopt_test_desc_t) (" + std::to_string(sizeof(Desc)) + ")"),
              std::string::npos)
        << m;
    EXPECT_EQ(out.n, 7) << "unchanged on failure";
  }
}

TEST(VersionedStruct, OlderCallerKeepsTheDefaults) {
  const Desc in{kFirstVersion, 5, 99};  // `added` is past its struct_size: never read
  Desc out{0, 0, -1};
  ASSERT_EQ(read(&in, &out), GPUOPT_SUCCESS);
  EXPECT_EQ(out.n, 5);
  EXPECT_EQ(out.added, -1) << "the default of a field the caller does not cover";
}

TEST(VersionedStruct, CurrentAndNewerCallersAreReadUpToOurSize) {
  struct Newer {
    Desc d;
    std::int64_t future;
  };
  const Newer current{{sizeof(Desc), 5, 6}, 0}, newer{{sizeof(Newer), 5, 6}, 123};
  for (const Newer* in : {&current, &newer}) {
    Desc out{0, 0, -1};
    ASSERT_EQ(read(in, &out), GPUOPT_SUCCESS) << in->d.struct_size;
    EXPECT_EQ(out.n, 5);
    EXPECT_EQ(out.added, 6);
  }
}

TEST(BlasError, StatusesMapToGpuoptStatuses) {
  struct Row {
    cublasStatus_t blas;
    gpuopt_status_t status;
    const char* name;
  };
  const Row rows[] = {
      {CUBLAS_STATUS_ALLOC_FAILED, GPUOPT_ERROR_OUT_OF_MEMORY, "CUBLAS_STATUS_ALLOC_FAILED"},
      {CUBLAS_STATUS_NOT_SUPPORTED, GPUOPT_ERROR_UNSUPPORTED, "CUBLAS_STATUS_NOT_SUPPORTED"},
      {CUBLAS_STATUS_INVALID_VALUE, GPUOPT_ERROR_CUBLAS, "CUBLAS_STATUS_INVALID_VALUE"},
      {CUBLAS_STATUS_EXECUTION_FAILED, GPUOPT_ERROR_CUBLAS, "CUBLAS_STATUS_EXECUTION_FAILED"},
  };
  for (const Row& r : rows) {
    EXPECT_EQ(gpuopt::blas_fail(r.blas, "gpuopt_test", "cublas thing"), r.status) << r.name;
    const std::string m = unit::last_message();
    EXPECT_NE(m.find("gpuopt_test: cublas thing: "), std::string::npos) << m;
    EXPECT_NE(m.find(r.name), std::string::npos) << m;
  }
}

}  // namespace
