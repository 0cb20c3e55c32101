#include "runtime/buffer.hpp"

#include <cuda_runtime_api.h>

#include "runtime/deviceless.hpp"
#include "runtime/driver.hpp"
#include "runtime/error.hpp"
#include "runtime/free_gate.hpp"
#include "runtime/handles.hpp"
#include "runtime/log.hpp"

namespace gpuopt {

gpuopt_status_t check_buffer(const char* fn, gpuopt_buffer_t b, const char* arg) {
  return check_handle(fn, b, HandleKind::buffer, arg);
}

namespace {
gpuopt_status_t drv_fail(CUresult r, const char* fn, const char* what) {
  return fail(r == CUDA_ERROR_OUT_OF_MEMORY ? GPUOPT_ERROR_OUT_OF_MEMORY : GPUOPT_ERROR_CUDA, fn,
              "%s: %s", what, driver_error_name(r));
}
}  // namespace

gpuopt_status_t vmm_allocate(const char* fn, Buffer& b) {
  const DriverApi& drv = driver_api();
  if (!drv.loaded)
    return fail(GPUOPT_ERROR_UNSUPPORTED, fn,
                "the CUDA driver does not provide the virtual memory management API");
  const int device = b.ctx->device;
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  const bool want = b.ctx->info.supports_compression != 0;
  prop.allocFlags.compressionType = want ? CU_MEM_ALLOCATION_COMP_GENERIC : 0;

  size_t gran = 0;
  CUresult r =
      drv.cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED);
  if (r != CUDA_SUCCESS) return drv_fail(r, fn, "cuMemGetAllocationGranularity");
  const size_t size = (b.bytes + gran - 1) / gran * gran;

  CUmemGenericAllocationHandle h = 0;
  r = drv.cuMemCreate(&h, size, &prop, 0);
  if (r != CUDA_SUCCESS && want) {
    // The driver may refuse compression (e.g. out of compression tags): fall back, and say so.
    prop.allocFlags.compressionType = 0;
    r = drv.cuMemCreate(&h, size, &prop, 0);
  }
  if (r != CUDA_SUCCESS) return drv_fail(r, fn, "cuMemCreate");

  CUmemAllocationProp actual{};
  b.compressed = drv.cuMemGetAllocationPropertiesFromHandle(&actual, h) == CUDA_SUCCESS &&
                 actual.allocFlags.compressionType == CU_MEM_ALLOCATION_COMP_GENERIC;

  CUdeviceptr ptr = 0;
  r = drv.cuMemAddressReserve(&ptr, size, 0, 0, 0);
  if (r != CUDA_SUCCESS) {
    drv.cuMemRelease(h);
    return drv_fail(r, fn, "cuMemAddressReserve");
  }
  r = drv.cuMemMap(ptr, size, 0, h, 0);
  if (r == CUDA_SUCCESS) {
    CUmemAccessDesc access{};
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    r = drv.cuMemSetAccess(ptr, size, &access, 1);
    if (r != CUDA_SUCCESS) drv.cuMemUnmap(ptr, size);
  }
  if (r != CUDA_SUCCESS) {
    drv.cuMemAddressFree(ptr, size);
    drv.cuMemRelease(h);
    return drv_fail(r, fn, "cuMemMap/cuMemSetAccess");
  }
  b.vmm_handle = h;
  b.vmm_reserved = size;
  b.device_ptr = reinterpret_cast<void*>(ptr);
  return GPUOPT_SUCCESS;
}

gpuopt_status_t vmm_free(const char* fn, Buffer& b) {
  const DriverApi& drv = driver_api();
  // Unmapping memory that queued kernels still read would fault them: wait for the device,
  // as cudaFree does.
  GPUOPT_TRY_CUDA(cudaDeviceSynchronize(), fn, "cudaDeviceSynchronize before unmapping");
  auto ptr = reinterpret_cast<CUdeviceptr>(b.device_ptr);
  CUresult r = drv.cuMemUnmap(ptr, b.vmm_reserved);
  if (r == CUDA_SUCCESS) r = drv.cuMemAddressFree(ptr, b.vmm_reserved);
  if (r == CUDA_SUCCESS) r = drv.cuMemRelease(b.vmm_handle);
  if (r != CUDA_SUCCESS) return drv_fail(r, fn, "cuMemUnmap/cuMemAddressFree/cuMemRelease");
  return GPUOPT_SUCCESS;
}

const char* memory_kind_name(gpuopt_memory_kind_t k) {
  switch (k) {
    case GPUOPT_MEMORY_DEVICE:
      return "device";
    case GPUOPT_MEMORY_PINNED_HOST:
      return "pinned host";
    case GPUOPT_MEMORY_MAPPED:
      return "mapped";
    case GPUOPT_MEMORY_COMPRESSIBLE:
      return "compressible";
    case GPUOPT_MEMORY_EXTERNAL:
      return "external";
  }
  return "unknown";
}

namespace {
// b.kind's memory, outside device-less mode.
gpuopt_status_t allocate_kind(const char* fn, Buffer& b) {
  switch (b.kind) {
    case GPUOPT_MEMORY_DEVICE:
      b.allocator = b.ctx->allocator;
      if (!b.allocator.allocate && b.ctx->ordered.supported) {
        GPUOPT_TRY(ordered_allocate(fn, b.ctx->ordered, b.bytes, &b.device_ptr));
        b.stream_ordered = true;
        return GPUOPT_SUCCESS;
      }
      return device_allocate(fn, "cudaMalloc", b.allocator, b.bytes, &b.device_ptr);
    case GPUOPT_MEMORY_PINNED_HOST:
      GPUOPT_TRY_CUDA(cudaHostAlloc(&b.host_ptr, b.bytes, cudaHostAllocPortable), fn,
                      "cudaHostAlloc");
      return GPUOPT_SUCCESS;
    case GPUOPT_MEMORY_MAPPED:
      if (!b.ctx->info.supports_mapped_memory)
        return fail(GPUOPT_ERROR_UNSUPPORTED, fn, "the device cannot map host memory");
      GPUOPT_TRY_CUDA(
          cudaHostAlloc(&b.host_ptr, b.bytes, cudaHostAllocMapped | cudaHostAllocPortable), fn,
          "cudaHostAlloc(mapped)");
      if (cudaError_t e = cudaHostGetDevicePointer(&b.device_ptr, b.host_ptr, 0)) {
        cudaFreeHost(b.host_ptr);
        return fail_cuda(e, fn, "cudaHostGetDevicePointer");
      }
      return GPUOPT_SUCCESS;
    case GPUOPT_MEMORY_COMPRESSIBLE:
      GPUOPT_TRY(vmm_allocate(fn, b));
      if (b.compressed) add_compressible_range(*b.ctx, b.device_ptr, b.bytes);
      log(LogLevel::info, "compressible buffer of %zu bytes: %s", b.bytes,
          b.compressed ? "compressed by the driver" : "the driver gave an UNCOMPRESSED allocation");
      return GPUOPT_SUCCESS;
    case GPUOPT_MEMORY_EXTERNAL:
      break;
  }
  return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
              "kind is %d; expected GPUOPT_MEMORY_DEVICE, _PINNED_HOST, _MAPPED or _COMPRESSIBLE "
              "(external memory is wrapped with gpuopt_buffer_wrap)",
              static_cast<int>(b.kind));
}
}  // namespace

gpuopt_status_t buffer_allocate(const char* fn, Buffer& b) {
  if (deviceless_active() && b.kind >= GPUOPT_MEMORY_DEVICE &&
      b.kind <= GPUOPT_MEMORY_COMPRESSIBLE) {
    GPUOPT_TRY(deviceless_allocate(fn, b.ctx->device, b.bytes, &b.device_ptr));
    if (b.kind == GPUOPT_MEMORY_PINNED_HOST || b.kind == GPUOPT_MEMORY_MAPPED)
      b.host_ptr = b.device_ptr;  // never dereferenced: copies stop at the CUDA call site
    if (b.kind == GPUOPT_MEMORY_PINNED_HOST) b.device_ptr = nullptr;
    return GPUOPT_SUCCESS;
  }
  reap_deallocations(b.ctx->ordered, b.ctx->device, false);
  GPUOPT_TRY(allocate_kind(fn, b));
  if (b.device_ptr) remember_owned_range(*b.ctx, b.device_ptr, b.bytes);
  return GPUOPT_SUCCESS;
}

gpuopt_status_t buffer_release(const char* fn, Buffer& b) {
  if (deviceless_active()) {
    // The checks cached the fake allocation as foreign memory: forgotten as a real buffer's is.
    forget_range(*b.ctx, b.device_ptr);
    forget_range(*b.ctx, b.host_ptr);
    if (b.kind != GPUOPT_MEMORY_EXTERNAL) deviceless_free(b.host_ptr ? b.host_ptr : b.device_ptr);
    return GPUOPT_SUCCESS;
  }
  if (b.kind == GPUOPT_MEMORY_EXTERNAL) {
    forget_range(*b.ctx, b.device_ptr);  // the borrow ends; the memory stays the caller's
    return GPUOPT_SUCCESS;
  }
  reap_deallocations(b.ctx->ordered, b.ctx->device, false);
  forget_range(*b.ctx, b.device_ptr);
  if (b.kind == GPUOPT_MEMORY_COMPRESSIBLE && b.compressed)
    remove_compressible_range(*b.ctx, b.device_ptr);
  // Each of these frees synchronizes the device: through the free gate (deferred while one of
  // gpuopt's graph captures is open). The copy of b outlives the handle.
  return gate_free(b.ctx->device, [fn, b]() mutable -> gpuopt_status_t {
    switch (b.kind) {
      case GPUOPT_MEMORY_DEVICE:
        if (b.stream_ordered)
          GPUOPT_TRY(ordered_free_synchronized(fn, b.device_ptr));
        else
          GPUOPT_TRY(device_release(fn, b.allocator, b.device_ptr, b.bytes));
        break;
      case GPUOPT_MEMORY_PINNED_HOST:
      case GPUOPT_MEMORY_MAPPED:
        GPUOPT_TRY_CUDA(cudaFreeHost(b.host_ptr), fn, "cudaFreeHost");
        break;
      case GPUOPT_MEMORY_COMPRESSIBLE:
        GPUOPT_TRY(vmm_free(fn, b));
        break;
      case GPUOPT_MEMORY_EXTERNAL:
        break;
    }
    return GPUOPT_SUCCESS;
  });
}

gpuopt_status_t buffer_release_ordered(const char* fn, Buffer& b, cudaStream_t stream) {
  const bool ordered =
      b.kind == GPUOPT_MEMORY_DEVICE && (b.stream_ordered || b.allocator.deallocate);
  if (deviceless_active() || !ordered) return buffer_release(fn, b);
  forget_range(*b.ctx, b.device_ptr);
  if (b.stream_ordered) return ordered_free(fn, b.device_ptr, stream);
  reap_deallocations(b.ctx->ordered, b.ctx->device, false);
  return defer_deallocate(fn, b.ctx->ordered, b.allocator, b.device_ptr, b.bytes, stream);
}

}  // namespace gpuopt
