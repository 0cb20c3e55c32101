// Faults the context must survive: device memory really exhausted (a request larger than the
// device, then allocation until the device is full), and calls that are illegal during graph
// capture. Each answers its status and the context, its streams and the capture stay usable.
// Kernel faults poison the whole CUDA context, so they are tested in their own process
// (fault_trap_main.cu, ctest "gpu.fault_trap").
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <vector>

#include "gpu_fixture.hpp"

namespace {

class Faults : public gput::GpuTest {
 protected:
  // y = 2 x + y over 4096 floats on stream_, checked: the context still works.
  void expect_context_works() {
    constexpr int kN = 4096;
    gput::Buffer x = gput::make_buffer(ctx_, kN * sizeof(float), GPUOPT_MEMORY_DEVICE);
    gput::Buffer y = gput::make_buffer(ctx_, kN * sizeof(float), GPUOPT_MEMORY_DEVICE);
    ASSERT_TRUE(x && y);
    std::vector<float> hx(kN, 1.0f), hy(kN, 3.0f), out(kN, 0.0f);
    ASSERT_GPUOPT_OK(gpuopt_buffer_copy_from_host(x.get(), stream_, 0, hx.data(), kN * 4));
    ASSERT_GPUOPT_OK(gpuopt_buffer_copy_from_host(y.get(), stream_, 0, hy.data(), kN * 4));
    void *px = nullptr, *py = nullptr;
    ASSERT_GPUOPT_OK(gpuopt_buffer_device_pointer(x.get(), &px));
    ASSERT_GPUOPT_OK(gpuopt_buffer_device_pointer(y.get(), &py));
    ASSERT_GPUOPT_OK(gpuopt_axpy(ctx_, stream_, GPUOPT_DTYPE_F32, kN, 2.0, px, 1, py, 1));
    ASSERT_GPUOPT_OK(gpuopt_buffer_copy_to_host(y.get(), stream_, 0, out.data(), kN * 4));
    ASSERT_GPUOPT_OK(gpuopt_stream_synchronize(stream_));
    for (int i = 0; i < kN; ++i) ASSERT_EQ(out[i], 5.0f) << "at " << i;
  }
};

TEST_F(Faults, BufferLargerThanTheDeviceAnswersOutOfMemory) {
  gpuopt_device_info_t info{};
  info.struct_size = sizeof info;
  ASSERT_GPUOPT_OK(gpuopt_context_device_info(ctx_, &info));
  gpuopt_buffer_t b = nullptr;
  EXPECT_STATUS(GPUOPT_ERROR_OUT_OF_MEMORY,
                gpuopt_buffer_create(ctx_, info.total_memory * 2, GPUOPT_MEMORY_DEVICE, &b));
  EXPECT_EQ(b, nullptr);
  EXPECT_STATUS(GPUOPT_ERROR_OUT_OF_MEMORY,
                gpuopt_buffer_create(ctx_, info.total_memory * 2, GPUOPT_MEMORY_COMPRESSIBLE, &b));
  std::printf("[  FAULT   ] oversize buffers: 2 injected, answered OUT_OF_MEMORY\n");
  expect_context_works();
}

TEST_F(Faults, ExhaustedDeviceMemoryAnswersOutOfMemoryAndRecovers) {
  // Fill the device with 1 GiB, then 64 MiB buffers until gpuopt says OUT_OF_MEMORY.
  std::vector<gput::Buffer> hog;
  int ooms = 0;
  for (std::size_t chunk : {std::size_t{1} << 30, std::size_t{64} << 20}) {
    for (int i = 0; i < 4096; ++i) {
      gpuopt_buffer_t b = nullptr;
      const gpuopt_status_t st = gpuopt_buffer_create(ctx_, chunk, GPUOPT_MEMORY_DEVICE, &b);
      if (st == GPUOPT_ERROR_OUT_OF_MEMORY) {
        ++ooms;
        break;
      }
      ASSERT_STATUS(GPUOPT_SUCCESS, st);
      hog.emplace_back(b);
    }
  }
  ASSERT_EQ(ooms, 2) << "the device never ran out of memory";
  // With the device full: a stream needs its workspaces, so creating one answers OUT_OF_MEMORY
  // and leaves nothing behind; the existing stream still runs kernels that need no memory.
  gpuopt_stream_t s = nullptr;
  const gpuopt_status_t st = gpuopt_stream_create(ctx_, &s);
  if (st == GPUOPT_SUCCESS) {
    EXPECT_GPUOPT_OK(gpuopt_stream_destroy(s));
  } else {
    EXPECT_STATUS(GPUOPT_ERROR_OUT_OF_MEMORY, st);
    ++ooms;
  }
  std::printf("[  FAULT   ] device memory exhausted with %zu buffers: %d OUT_OF_MEMORY answered\n",
              hog.size(), ooms);
  hog.clear();
  expect_context_works();
}

// Graphs.IllegalCallsDuringCaptureKeepTheCapture covers buffer create/destroy and synchronize;
// these are the remaining allocating calls.
TEST_F(Faults, StreamAndContextCreationDuringCaptureAnswerAndTheCaptureEndsCleanly) {
  ASSERT_GPUOPT_OK(gpuopt_graph_begin(ctx_, stream_));
  gpuopt_stream_t s = nullptr;
  gpuopt_context_t c = nullptr;
  EXPECT_STATUS(GPUOPT_ERROR_CAPTURE_ILLEGAL, gpuopt_stream_create(ctx_, &s));
  EXPECT_STATUS(GPUOPT_ERROR_CAPTURE_ILLEGAL, gpuopt_context_create(0, &c));
  EXPECT_STATUS(GPUOPT_ERROR_CAPTURE_ILLEGAL, gpuopt_stream_destroy(stream_));
  gpuopt_graph_t g = nullptr;
  ASSERT_GPUOPT_OK(gpuopt_graph_end(stream_, &g));  // none of them touched the capture
  ASSERT_GPUOPT_OK(gpuopt_graph_launch(g, stream_));
  EXPECT_GPUOPT_OK(gpuopt_graph_destroy(g));
  std::printf("[  FAULT   ] capture: 3 illegal calls answered CAPTURE_ILLEGAL, capture ended\n");
  expect_context_works();
}

TEST_F(Faults, CaptureInvalidatedBehindGpuoptsBackEndsWithAStatus) {
  // A raw CUDA call that is illegal during capture (a synchronization of the capturing stream)
  // invalidates the capture: gpuopt_graph_end answers CAPTURE_ILLEGAL, the stream leaves capture
  // mode and works again.
  ASSERT_GPUOPT_OK(gpuopt_graph_begin(ctx_, stream_));
  void* native = nullptr;
  ASSERT_GPUOPT_OK(gpuopt_stream_native(stream_, &native));
  EXPECT_NE(cudaStreamSynchronize(static_cast<cudaStream_t>(native)), cudaSuccess);
  gpuopt_graph_t g = nullptr;
  EXPECT_STATUS(GPUOPT_ERROR_CAPTURE_ILLEGAL, gpuopt_graph_end(stream_, &g));
  EXPECT_EQ(g, nullptr);
  std::printf("[  FAULT   ] capture invalidated by a raw CUDA call: graph_end answered %s\n",
              gpuopt_status_name(GPUOPT_ERROR_CAPTURE_ILLEGAL));
  expect_context_works();
}

}  // namespace
