// Buffers of every kind: sizes, kinds, pointers, host copies with offsets and their range
// checks, compressible support reporting, axpy on compressible and mapped memory, wrapping.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#include "axpy_harness.hpp"
#include "gpu_fixture.hpp"

namespace {

using gput::AxpyHarness;
using gput::AxpyLayout;

const gpuopt_memory_kind_t kAllocatedKinds[] = {GPUOPT_MEMORY_DEVICE, GPUOPT_MEMORY_PINNED_HOST,
                                                GPUOPT_MEMORY_MAPPED, GPUOPT_MEMORY_COMPRESSIBLE};

const char* kind_name(gpuopt_memory_kind_t k) {
  switch (k) {
    case GPUOPT_MEMORY_DEVICE:
      return "device";
    case GPUOPT_MEMORY_PINNED_HOST:
      return "pinned";
    case GPUOPT_MEMORY_MAPPED:
      return "mapped";
    case GPUOPT_MEMORY_COMPRESSIBLE:
      return "compressible";
    case GPUOPT_MEMORY_EXTERNAL:
      return "external";
  }
  return "?";
}

class Buffers : public gput::GpuTest {
 protected:
  int supports_compression() const {
    gpuopt_device_info_t info{};
    info.struct_size = sizeof info;
    EXPECT_GPUOPT_OK(gpuopt_context_device_info(ctx_, &info));
    return info.supports_compression;
  }

  // axpy with x and y in compressible buffers: correct, and dispatched to vec4_blocktile (the
  // fastest rung on compressed and on ordinary memory).
  template <class T>
  void expect_axpy_on_compressible() {
    SCOPED_TRACE(gpuopt_dtype_name(gput::dtype_of<T>()));
    AxpyLayout l;
    l.n = (1 << 22) + 3;
    const size_t xbytes = AxpyHarness<T>::x_len(l) * sizeof(T);
    const size_t ybytes = AxpyHarness<T>::y_len(l) * sizeof(T);
    gput::Buffer bx = gput::make_buffer(ctx_, xbytes, GPUOPT_MEMORY_COMPRESSIBLE);
    gput::Buffer by = gput::make_buffer(ctx_, ybytes, GPUOPT_MEMORY_COMPRESSIBLE);
    ASSERT_TRUE(bx && by);
    void* px = nullptr;
    void* py = nullptr;
    ASSERT_GPUOPT_OK(gpuopt_buffer_device_pointer(bx.get(), &px));
    ASSERT_GPUOPT_OK(gpuopt_buffer_device_pointer(by.get(), &py));
    int cx = 0, cy = 0;
    ASSERT_GPUOPT_OK(gpuopt_buffer_is_compressed(bx.get(), &cx));
    ASSERT_GPUOPT_OK(gpuopt_buffer_is_compressed(by.get(), &cy));

    AxpyHarness<T> h(l, rng_.alpha(), rng_, gput::Fill::uniform, static_cast<T*>(px),
                     static_cast<T*>(py));
    ASSERT_GPUOPT_OK(h.run(ctx_, stream_));
    sync();
    EXPECT_TRUE(h.check_result());
    EXPECT_EQ(last_variant(), "vec4_blocktile") << "compressed " << cx << cy;
  }

  // Random bytes.
  std::vector<unsigned char> random_bytes(size_t n) {
    std::vector<unsigned char> v(n);
    for (auto& b : v) b = static_cast<unsigned char>(rng_.integer(0, 255));
    return v;
  }

  // Whole-buffer and offset copies in both directions.
  void expect_roundtrip(gpuopt_buffer_t b, size_t bytes) {
    std::vector<unsigned char> image = random_bytes(bytes);
    ASSERT_GPUOPT_OK(gpuopt_buffer_copy_from_host(b, stream_, 0, image.data(), bytes));
    // Overwrite an unaligned window in the middle.
    const size_t off = 1001, len = bytes / 3 + 7;
    const std::vector<unsigned char> patch = random_bytes(len);
    ASSERT_GPUOPT_OK(gpuopt_buffer_copy_from_host(b, stream_, off, patch.data(), len));
    std::memcpy(image.data() + off, patch.data(), len);
    sync();

    std::vector<unsigned char> back(bytes, 0);
    ASSERT_GPUOPT_OK(gpuopt_buffer_copy_to_host(b, stream_, 0, back.data(), bytes));
    sync();
    EXPECT_TRUE(back == image) << "whole-buffer roundtrip differs";

    // Read an unaligned window ending exactly at the end of the buffer.
    const size_t roff = 17, rlen = bytes - 17;
    std::vector<unsigned char> window(rlen, 0);
    ASSERT_GPUOPT_OK(gpuopt_buffer_copy_to_host(b, stream_, roff, window.data(), rlen));
    sync();
    EXPECT_TRUE(std::equal(window.begin(), window.end(), image.begin() + roff))
        << "offset read differs";
  }

  // Copies outside the buffer, of 0 bytes, from NULL: INVALID_ARGUMENT, nothing written.
  void expect_copy_range_checks(gpuopt_buffer_t b, size_t bytes) {
    std::vector<unsigned char> host(bytes + 64, 0xEE);
    struct Bad {
      size_t offset, len;
    };
    const Bad bad[] = {{0, bytes + 1},
                       {bytes - 10, 11},
                       {bytes, 1},
                       {bytes + 1, 1},
                       {std::numeric_limits<size_t>::max(), 2},
                       {8, std::numeric_limits<size_t>::max() - 4},
                       {0, 0}};
    for (const Bad& c : bad) {
      SCOPED_TRACE("offset " + std::to_string(c.offset) + " bytes " + std::to_string(c.len));
      EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT,
                    gpuopt_buffer_copy_from_host(b, stream_, c.offset, host.data(), c.len));
      EXPECT_TRUE(gput::MessageNames("gpuopt_buffer_copy_from_host"));
      EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT,
                    gpuopt_buffer_copy_to_host(b, stream_, c.offset, host.data(), c.len));
      EXPECT_TRUE(gput::MessageNames("gpuopt_buffer_copy_to_host"));
    }
    sync();
    for (unsigned char c : host) {
      ASSERT_EQ(c, 0xEE) << "a refused copy wrote host memory";
    }
    EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT,
                  gpuopt_buffer_copy_from_host(b, stream_, 0, nullptr, 4));
    EXPECT_TRUE(gput::MessageNames("gpuopt_buffer_copy_from_host", "src"));
    EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT,
                  gpuopt_buffer_copy_to_host(b, stream_, 0, nullptr, 4));
    EXPECT_TRUE(gput::MessageNames("gpuopt_buffer_copy_to_host", "dst"));
    EXPECT_STATUS(GPUOPT_ERROR_INVALID_HANDLE,
                  gpuopt_buffer_copy_to_host(b, nullptr, 0, host.data(), 4));
  }
};

TEST_F(Buffers, EveryKindSizePointersAndCopies) {
  const size_t bytes = (1u << 20) + 12;  // odd size on purpose
  for (gpuopt_memory_kind_t kind : kAllocatedKinds) {
    SCOPED_TRACE(kind_name(kind));
    gput::Buffer b = gput::make_buffer(ctx_, bytes, kind);
    ASSERT_TRUE(b);

    size_t size = 0;
    EXPECT_GPUOPT_OK(gpuopt_buffer_size(b.get(), &size));
    EXPECT_EQ(size, bytes);
    gpuopt_memory_kind_t got_kind = GPUOPT_MEMORY_EXTERNAL;
    EXPECT_GPUOPT_OK(gpuopt_buffer_kind(b.get(), &got_kind));
    EXPECT_EQ(got_kind, kind);

    void* dptr = nullptr;
    void* hptr = nullptr;
    const gpuopt_status_t dst = gpuopt_buffer_device_pointer(b.get(), &dptr);
    const gpuopt_status_t hst = gpuopt_buffer_host_pointer(b.get(), &hptr);
    const bool device_addressable = kind != GPUOPT_MEMORY_PINNED_HOST;
    const bool host_addressable = kind == GPUOPT_MEMORY_PINNED_HOST || kind == GPUOPT_MEMORY_MAPPED;
    if (device_addressable) {
      EXPECT_STATUS(GPUOPT_SUCCESS, dst);
      EXPECT_NE(dptr, nullptr);
      EXPECT_EQ(reinterpret_cast<std::uintptr_t>(dptr) % 256, 0u) << "device memory is aligned";
    } else {
      EXPECT_STATUS(GPUOPT_ERROR_UNSUPPORTED, dst);
    }
    if (host_addressable) {
      EXPECT_STATUS(GPUOPT_SUCCESS, hst);
      EXPECT_NE(hptr, nullptr);
    } else {
      EXPECT_STATUS(GPUOPT_ERROR_UNSUPPORTED, hst);
    }

    int compressed = -1;
    EXPECT_GPUOPT_OK(gpuopt_buffer_is_compressed(b.get(), &compressed));
    EXPECT_TRUE(compressed == 0 || compressed == 1) << compressed;
    if (kind != GPUOPT_MEMORY_COMPRESSIBLE) {
      EXPECT_EQ(compressed, 0);
    }

    expect_roundtrip(b.get(), bytes);
    expect_copy_range_checks(b.get(), bytes);
  }
}

TEST_F(Buffers, CreateRejectsBadArguments) {
  gpuopt_buffer_t b = nullptr;
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT,
                gpuopt_buffer_create(ctx_, 0, GPUOPT_MEMORY_DEVICE, &b));
  EXPECT_TRUE(gput::MessageNames("gpuopt_buffer_create", "bytes"));
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT,
                gpuopt_buffer_create(ctx_, 64, static_cast<gpuopt_memory_kind_t>(99), &b));
  EXPECT_TRUE(gput::MessageNames("gpuopt_buffer_create", "kind"));
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT,
                gpuopt_buffer_create(ctx_, 64, GPUOPT_MEMORY_EXTERNAL, &b))
      << "external memory is wrapped, not allocated";
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT,
                gpuopt_buffer_create(ctx_, 64, GPUOPT_MEMORY_DEVICE, nullptr));
  EXPECT_TRUE(gput::MessageNames("gpuopt_buffer_create", "buffer"));
  EXPECT_EQ(b, nullptr);
  gput::expect_axpy_still_works(ctx_, stream_, rng_);
}

TEST_F(Buffers, QueriesRejectNullOutPointers) {
  gput::Buffer b = gput::make_buffer(ctx_, 4096, GPUOPT_MEMORY_DEVICE);
  ASSERT_TRUE(b);
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, gpuopt_buffer_device_pointer(b.get(), nullptr));
  EXPECT_TRUE(gput::MessageNames("gpuopt_buffer_device_pointer", "ptr"));
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, gpuopt_buffer_host_pointer(b.get(), nullptr));
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, gpuopt_buffer_size(b.get(), nullptr));
  EXPECT_TRUE(gput::MessageNames("gpuopt_buffer_size", "bytes"));
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, gpuopt_buffer_kind(b.get(), nullptr));
  EXPECT_TRUE(gput::MessageNames("gpuopt_buffer_kind", "kind"));
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, gpuopt_buffer_is_compressed(b.get(), nullptr));
  EXPECT_TRUE(gput::MessageNames("gpuopt_buffer_is_compressed", "compressed"));
}

TEST_F(Buffers, DestroyedBufferIsInvalid) {
  gpuopt_buffer_t b = nullptr;
  ASSERT_GPUOPT_OK(gpuopt_buffer_create(ctx_, 4096, GPUOPT_MEMORY_DEVICE, &b));
  ASSERT_GPUOPT_OK(gpuopt_buffer_destroy(b));
  size_t bytes = 0;
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_HANDLE, gpuopt_buffer_size(b, &bytes));
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_HANDLE, gpuopt_buffer_destroy(b)) << "double destroy";
}

TEST_F(Buffers, CompressionReportIsConsistent) {
  const int supported = supports_compression();
  EXPECT_TRUE(supported == 0 || supported == 1);
  gput::Buffer b = gput::make_buffer(ctx_, 8u << 20, GPUOPT_MEMORY_COMPRESSIBLE);
  ASSERT_TRUE(b);
  int compressed = -1;
  ASSERT_GPUOPT_OK(gpuopt_buffer_is_compressed(b.get(), &compressed));
  if (!supported) {
    EXPECT_EQ(compressed, 0) << "compressed memory on a device that has none";
  }
  std::printf("[   NOTE   ] supports_compression=%d, compressible buffer compressed=%d\n",
              supported, compressed);
}

TEST_F(Buffers, AxpyOnCompressibleMemory) {
  expect_axpy_on_compressible<float>();
  expect_axpy_on_compressible<double>();
}

TEST_F(Buffers, MappedMemoryAxpyVisibleOnHost) {
  const std::int64_t n = 100003;
  gput::Buffer bx = gput::make_buffer(ctx_, n * sizeof(float), GPUOPT_MEMORY_MAPPED);
  gput::Buffer by = gput::make_buffer(ctx_, n * sizeof(float), GPUOPT_MEMORY_MAPPED);
  ASSERT_TRUE(bx && by);
  void *hx = nullptr, *hy = nullptr, *dx = nullptr, *dy = nullptr;
  ASSERT_GPUOPT_OK(gpuopt_buffer_host_pointer(bx.get(), &hx));
  ASSERT_GPUOPT_OK(gpuopt_buffer_host_pointer(by.get(), &hy));
  ASSERT_GPUOPT_OK(gpuopt_buffer_device_pointer(bx.get(), &dx));
  ASSERT_GPUOPT_OK(gpuopt_buffer_device_pointer(by.get(), &dy));
  float* x = static_cast<float*>(hx);
  float* y = static_cast<float*>(hy);
  std::vector<float> y0(n);
  for (std::int64_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(rng_.integer(-64, 64)) / 8;
    y[i] = y0[i] = static_cast<float>(rng_.integer(-1000, 1000));
  }
  const double alpha = rng_.dyadic_alpha();
  ASSERT_GPUOPT_OK(gpuopt_axpy(ctx_, stream_, GPUOPT_DTYPE_F32, n, alpha, dx, 1, dy, 1));
  sync();
  std::int64_t bad = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const float want = static_cast<float>(y0[i] + alpha * x[i]);  // exact: dyadic data
    if (y[i] != want && bad++ < 5) {
      ADD_FAILURE() << "y[" << i << "] = " << y[i] << " through the host pointer, expected "
                    << want;
    }
  }
  EXPECT_EQ(bad, 0);
}

TEST_F(Buffers, WrapExternalDeviceMemory) {
  const size_t bytes = 1u << 16;
  gput::DeviceArray<unsigned char> mem(bytes);
  ASSERT_TRUE(mem.ok());
  {
    gpuopt_buffer_t raw = nullptr;
    ASSERT_GPUOPT_OK(gpuopt_buffer_wrap(ctx_, mem.data(), bytes, &raw));
    gput::Buffer b(raw);
    gpuopt_memory_kind_t kind = GPUOPT_MEMORY_DEVICE;
    EXPECT_GPUOPT_OK(gpuopt_buffer_kind(b.get(), &kind));
    EXPECT_EQ(kind, GPUOPT_MEMORY_EXTERNAL);
    size_t size = 0;
    EXPECT_GPUOPT_OK(gpuopt_buffer_size(b.get(), &size));
    EXPECT_EQ(size, bytes);
    void* p = nullptr;
    EXPECT_GPUOPT_OK(gpuopt_buffer_device_pointer(b.get(), &p));
    EXPECT_EQ(p, static_cast<void*>(mem.data()));
    EXPECT_STATUS(GPUOPT_ERROR_UNSUPPORTED, gpuopt_buffer_host_pointer(b.get(), &p));
    int compressed = -1;
    EXPECT_GPUOPT_OK(gpuopt_buffer_is_compressed(b.get(), &compressed));
    EXPECT_EQ(compressed, 0);
    expect_roundtrip(b.get(), bytes);
    expect_copy_range_checks(b.get(), bytes);
  }
  // The wrapped memory survives the buffer: still readable, freed by its owner (mem).
  EXPECT_EQ(mem.download().size(), bytes);
}

TEST_F(Buffers, WrapRejectsBadMemory) {
  gpuopt_buffer_t b = nullptr;
  gput::DeviceArray<unsigned char> mem(4096);
  ASSERT_TRUE(mem.ok());
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, gpuopt_buffer_wrap(ctx_, nullptr, 64, &b));
  EXPECT_TRUE(gput::MessageNames("gpuopt_buffer_wrap", "device_ptr"));
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, gpuopt_buffer_wrap(ctx_, mem.data(), 0, &b));
  EXPECT_TRUE(gput::MessageNames("gpuopt_buffer_wrap", "bytes"));
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, gpuopt_buffer_wrap(ctx_, mem.data(), 64, nullptr));
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, gpuopt_buffer_wrap(ctx_, mem.data(), 1u << 24, &b))
      << "range past the allocation";
  std::vector<unsigned char> host(4096);
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, gpuopt_buffer_wrap(ctx_, host.data(), 4096, &b))
      << "pageable host memory is not device memory";
  EXPECT_EQ(b, nullptr);
  gput::expect_axpy_still_works(ctx_, stream_, rng_);
}

}  // namespace
