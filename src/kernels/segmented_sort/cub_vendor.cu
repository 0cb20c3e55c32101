// segmented_sort cub (vendor): cub::DeviceSegmentedSort::StableSortKeys / StableSortPairs with
// segment iterators that clamp the offsets like the own kernels do; temp storage from the
// caller's workspace (sized on the host by the null-pointer query). CUB is compiled for two key
// types only, int and unsigned long long (one file each, cub_vendor_sort.hpp): 32-bit signed
// and 64-bit unsigned keys in ascending order go to CUB as they are; every other problem (floats,
// whose order puts every NaN last and -0.0 before +0.0, unsigned 32-bit and signed 64-bit keys,
// descending sorts) goes through the own kernels' order-preserving map: a map pass into the
// workspace, CUB on the mapped bits (32-bit ones with the sign bit flipped, so that CUB's signed
// order is their unsigned order), an unmap pass per segment into keys_out.
#include <algorithm>
#include <type_traits>

#include "common/launch.hpp"
#include "kernels/segmented_sort/cub_vendor_sort.hpp"
#include "kernels/segmented_sort/sort_keys.cuh"

namespace gpuopt {
namespace {

// Keys go to CUB unmapped when CUB's order for them is gpuopt's: ascending 32-bit signed and
// 64-bit unsigned keys.
bool direct(const SegmentedSortProblem& p) {
  return !p.descending && (p.key_type == GPUOPT_DTYPE_I32 || p.key_type == GPUOPT_DTYPE_U64);
}

// The key type CUB sorts for mapped keys of unsigned type U, and the bits that turn U's order
// into that type's: 32-bit keys sort as int with the sign bit flipped (no unsigned 32-bit
// instantiation of CUB's sort, the costliest template of the library to compile).
template <class U>
struct CubKeyOf;
template <>
struct CubKeyOf<unsigned> {
  using type = int;
  static constexpr unsigned kFlip = sort::KeyBits<unsigned>::kSign;
};
template <>
struct CubKeyOf<unsigned long long> {
  using type = unsigned long long;
  static constexpr unsigned long long kFlip = 0;
};

// Calls f(K{}) with the key type CUB sorts for the problem (mapped or not).
template <class F>
cudaError_t with_cub_key(const SegmentedSortProblem& p, F&& f) {
  if (sort_key_size(p.key_type) == 8) return f(0ull);
  return f(0);
}

template <class U>
__global__ void map_kernel(const U* in, typename CubKeyOf<U>::type* out, long long n, int kind,
                           int descending) {
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    out[i] = static_cast<typename CubKeyOf<U>::type>(sort::map_key(in[i], kind, descending) ^
                                                     CubKeyOf<U>::kFlip);
}

// Unmaps each segment's keys into keys_out (items outside every segment stay unwritten).
template <class U>
__global__ void unmap_kernel(const sort::SortArgs a, const typename CubKeyOf<U>::type* sorted) {
  U* out = static_cast<U*>(a.keys_out);
  for (long long s = blockIdx.x; s < a.num_segments; s += gridDim.x) {
    long long lo = 0, size = 0;
    sort::segment_range(a, s, &lo, &size);
    for (long long i = threadIdx.x; i < size; i += blockDim.x)
      out[lo + i] = sort::unmap_key(static_cast<U>(sorted[lo + i]) ^ CubKeyOf<U>::kFlip, a.kind,
                                    a.descending);
  }
}

// The mapped path: map into the workspace, CUB on the mapped bits, unmap per segment.
template <class U>
cudaError_t map_sort_unmap(const SegmentedSortProblem& p, const sort::SortArgs& a,
                           const CubLayout& l, unsigned char* ws, std::size_t& bytes,
                           long long blocks, const ExecEnv& env) {
  using K = typename CubKeyOf<U>::type;
  K* min = reinterpret_cast<K*>(ws + l.mapped_in);
  K* mout = reinterpret_cast<K*>(ws + l.mapped_out);
  map_kernel<U><<<static_cast<unsigned>(blocks), 256, 0, env.stream>>>(
      static_cast<const U*>(p.keys_in), min, p.num_items, a.kind, a.descending);
  cudaError_t e = cub_segmented_sort<K>(p, ws + l.temp, bytes, min, mout, env.stream);
  if (e != cudaSuccess) return e;
  const long long seg_blocks =
      std::min<long long>(std::max<long long>(1, p.num_segments), env.device->sm_count * 16LL);
  unmap_kernel<U><<<static_cast<unsigned>(seg_blocks), 256, 0, env.stream>>>(a, mout);
  return cudaGetLastError();
}

}  // namespace

bool cub_layout(const SegmentedSortProblem& p, CubLayout* out) {
  CubLayout l;
  l.mapped = !direct(p);
  const std::size_t keys = static_cast<std::size_t>(p.num_items) * sort_key_size(p.key_type);
  std::size_t at = 0;
  if (l.mapped) {
    l.mapped_in = at;
    at += align256(keys);
    l.mapped_out = at;
    at += align256(keys);
  }
  std::size_t bytes = 0;
  const cudaError_t err = with_cub_key(p, [&](auto k) {
    using K = decltype(k);
    return cub_segmented_sort<K>(p, nullptr, bytes, nullptr, nullptr, nullptr);
  });
  if (err != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  l.temp = at;
  l.temp_bytes = bytes;
  l.total = at + align256(bytes);
  *out = l;
  return true;
}

gpuopt_status_t sort_launch_cub(const SegmentedSortProblem& p, const ExecEnv& env) {
  CubLayout l;
  if (!cub_layout(p, &l) || !p.workspace || p.workspace_bytes < l.total)
    return fail(GPUOPT_ERROR_INTERNAL, env.fn, "segmented_sort cub: workspace too small");
  unsigned char* ws = static_cast<unsigned char*>(p.workspace);
  const sort::SortArgs a = sort::make_sort_args(p);
  const long long blocks = std::min<long long>(std::max<long long>(1, ceil_div(p.num_items, 256)),
                                               env.device->sm_count * 32LL);
  std::size_t bytes = l.temp_bytes;
  const cudaError_t err = with_cub_key(p, [&](auto k) {
    using K = decltype(k);
    if (!l.mapped)
      return cub_segmented_sort<K>(p, ws + l.temp, bytes, static_cast<const K*>(p.keys_in),
                                   static_cast<K*>(p.keys_out), env.stream);
    using U = std::conditional_t<sizeof(K) == 8, unsigned long long, unsigned>;
    return map_sort_unmap<U>(p, a, l, ws, bytes, blocks, env);
  });
  if (err != cudaSuccess) {
    return fail_cuda(err, env.fn, "cub::DeviceSegmentedSort");
  }
  return check_launch(env.fn, "cub::DeviceSegmentedSort");
}

}  // namespace gpuopt
