// Device pieces shared by the tiled stencil rungs (sm80_cpasync, sm90_tma, zmarch_sync,
// sm90_zmarch_tma): the tile geometry, boundary-aware global fetches, the tile loader (through
// registers or cp.async), the register-blocked tile computation and the predicated stores, plus
// the runtime-radius -> template switch and the resident-block count of the persistent launches.
//
// Tile layout in shared memory: ROWS x COLS elements, dense rows, element (i, j) holding the
// input at (x0 - HX + j, y0 - R + i) of one z-plane. HX is R rounded up to the 16-byte vector
// width W, so every thread's W outputs and their x-neighbours are whole aligned vectors.
#pragma once
#include <cuda_runtime.h>

#include <cstring>
#include <type_traits>

#include "arch/sm80/cp_async.cuh"
#include "common/vector_types.cuh"
#include "kernels/stencil/stencil.hpp"
#include "kernels/stencil/stencil_geometry.hpp"

namespace gpuopt {
namespace stencil {

using i64 = long long;

// Calls f(std::integral_constant<int, R>{}) for the runtime radius r (1..8).
template <class F>
gpuopt_status_t with_radius(int r, F&& f) {
  switch (r) {
    case 1:
      return f(std::integral_constant<int, 1>{});
    case 2:
      return f(std::integral_constant<int, 2>{});
    case 3:
      return f(std::integral_constant<int, 3>{});
    case 4:
      return f(std::integral_constant<int, 4>{});
    case 5:
      return f(std::integral_constant<int, 5>{});
    case 6:
      return f(std::integral_constant<int, 6>{});
    case 7:
      return f(std::integral_constant<int, 7>{});
    default:
      return f(std::integral_constant<int, 8>{});
  }
}

// Blocks of kernel that fit on the device at once (at least one per multiprocessor).
template <class Kernel>
i64 resident_blocks(Kernel kernel, int threads, int smem, int sm_count) {
  int per_sm = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem) !=
      cudaSuccess) {
    cudaGetLastError();
    per_sm = 1;
  }
  return static_cast<i64>(per_sm > 0 ? per_sm : 1) * (sm_count > 0 ? sm_count : 1);
}

// Tile of 32 * W x (V * RG) outputs computed by 32 x RG threads; each thread owns W consecutive
// x and V consecutive y.
template <class T, int R, int V, int RG>
struct TileShape {
  static constexpr int E = static_cast<int>(sizeof(T));
  static constexpr int W = vec_width(E);
  static constexpr int TX = 32 * W;
  static constexpr int TY = V * RG;
  static constexpr int HX = halo_x(E, R);
  static constexpr int COLS = tile_cols(E, R);
  static constexpr int ROWS = tile_rows(TY, R);
  static constexpr int THREADS = 32 * RG;
  static constexpr int BYTES = tile_bytes(E, R, TY);
  // Stage stride in shared memory: 128-byte multiples (TMA destinations).
  static constexpr int STAGE_BYTES = stage_bytes(E, R, TY);
  static constexpr int VEC_PER_ROW = COLS / W;
  static_assert(W == Vec16<T>::width, "vector width");
};

// The first 128-byte aligned shared address at or after p (TMA destinations; the launchers add
// 128 bytes of slack to the dynamic shared memory).
__device__ __forceinline__ unsigned char* align128(unsigned char* p) {
  const auto a = sm80::smem_addr(p);
  return p + ((128u - (a & 127u)) & 127u);
}

// W lanes of one 16-byte vector in registers.
template <class T>
struct Lanes {
  T v[Vec16<T>::width];
};

template <class T>
__device__ __forceinline__ Lanes<T> lds_vec(const T* p) {
  const typename Vec16<T>::type raw = *reinterpret_cast<const typename Vec16<T>::type*>(p);
  Lanes<T> l;
  memcpy(&l, &raw, sizeof l);
  return l;
}

template <class T>
__device__ __forceinline__ void st_vec(T* p, const Lanes<T>& l) {
  typename Vec16<T>::type raw;
  memcpy(&raw, &l, sizeof raw);
  *reinterpret_cast<typename Vec16<T>::type*>(p) = raw;
}

__device__ __forceinline__ i64 clamp_index(i64 v, i64 n) {
  return v < 0 ? 0 : (v >= n ? n - 1 : v);
}

// Address of input element (x, y, z) after the boundary rule: clamped, or nullptr outside the
// grid for the zero boundary.
template <class T>
__device__ __forceinline__ const T* element_at(const T* in, const StencilGrid& g, i64 x, i64 y,
                                               i64 z) {
  if (g.clamp) {
    x = clamp_index(x, g.nx);
    y = clamp_index(y, g.ny);
    z = clamp_index(z, g.nz);
  } else if (x < 0 || x >= g.nx || y < 0 || y >= g.ny || z < 0 || z >= g.nz) {
    return nullptr;
  }
  return in + x + y * g.in_pitch + z * g.in_slice;
}

template <class T>
__device__ __forceinline__ T fetch(const T* in, const StencilGrid& g, i64 x, i64 y, i64 z) {
  const T* p = element_at(in, g, x, y, z);
  return p ? *p : T(0);
}

// The W inputs at x .. x + W - 1 (x a multiple of W) of row (y, z), boundary applied.
template <class T>
__device__ __forceinline__ Lanes<T> fetch_vec(const T* in, const StencilGrid& g, i64 x, i64 y,
                                              i64 z) {
  constexpr int W = Vec16<T>::width;
  const bool row_in = y >= 0 && y < g.ny && z >= 0 && z < g.nz;
  if (g.in_vec_ok && row_in && x >= 0 && x + W <= g.nx)
    return lds_vec(in + x + y * g.in_pitch + z * g.in_slice);
  Lanes<T> l;
#pragma unroll
  for (int e = 0; e < W; ++e) l.v[e] = fetch(in, g, x + e, y, z);
  return l;
}

// Loads the tile of plane z with origin (x0, y0) into s, vector by vector over the block's
// threads: through registers (kAsync false) or with cp.async (kAsync true; the caller commits
// and waits).
template <class Shape, bool kAsync, class T>
__device__ __forceinline__ void load_tile(T* s, const T* in, const StencilGrid& g, i64 x0, i64 y0,
                                          i64 z, int tid) {
  constexpr int W = Shape::W;
  constexpr int kVecs = Shape::ROWS * Shape::VEC_PER_ROW;
  const i64 gx0 = x0 - Shape::HX, gy0 = y0 - (Shape::ROWS - Shape::TY) / 2;
  for (int v = tid; v < kVecs; v += Shape::THREADS) {
    const int i = v / Shape::VEC_PER_ROW, k = v - i * Shape::VEC_PER_ROW;
    const i64 gx = gx0 + k * W, gy = gy0 + i;
    T* dst = s + i * Shape::COLS + k * W;
    const bool row_in = gy >= 0 && gy < g.ny && z >= 0 && z < g.nz;
    if (g.in_vec_ok && row_in && gx >= 0 && gx + W <= g.nx) {
      const T* src = in + gx + gy * g.in_pitch + z * g.in_slice;
      if constexpr (kAsync) {
        sm80::cp_async_cg16_zfill(dst, src, 16);
      } else {
        st_vec(dst, lds_vec(src));
      }
    } else {
#pragma unroll
      for (int e = 0; e < W; ++e) {
        const T* src = element_at(in, g, gx + e, gy, z);
        if constexpr (kAsync) {
          sm80::cp_async_ca_zfill<sizeof(T)>(dst + e, src ? src : in, src != nullptr);
        } else {
          dst[e] = src ? *src : T(0);
        }
      }
    }
  }
}

// Coefficient of axis a (0 x, 1 y, 2 z) at offset o (a constant once the loops unroll).
template <int R, int A, class T>
__device__ __forceinline__ T coef_rt(const StencilCoeffs<T>& k, int o) {
  return k.c[1 + A * 2 * R + (o < 0 ? o + R : o + R - 1)];
}

// Where a thread finds its vectors in a staged plane: the centre vector of window row `row` (0 ..
// V - 1 + 2R: tile rows ty * V - R ..) and vector q (0 .. 2 HX / W) of the x window
// (x - HX .. x + W - 1 + HX) of row `row`. DenseWindow: the ROWS x COLS layout above.
template <class Shape, class T>
struct DenseWindow {
  const T* col;  // window row 0, column tx * W - HX
  __device__ __forceinline__ DenseWindow(const T* s, int tx, int ty, int v)
      : col(s + (ty * v) * Shape::COLS + tx * Shape::W) {}
  __device__ __forceinline__ const T* centre(int row) const {
    return col + row * Shape::COLS + Shape::HX;
  }
  __device__ __forceinline__ const T* vec(int row, int q) const {
    return col + row * Shape::COLS + q * Shape::W;
  }
};

// Centre, x and y terms of the thread's V x W outputs from a staged plane (window w): thread
// column tx (0..31) owns x = tx * W .. + W - 1, thread row ty owns y = ty * V .. + V - 1 (tile
// coordinates). acc[i] receives the sum for output row i. Each tile row the thread needs is read
// once as vectors: the centre vector of rows -R .. V - 1 + R feeds the y terms of every output
// row it touches (register reuse along y), the x-neighbour vectors only for the V own rows.
// window_accumulate adds the sums to acc (which may hold other terms, as the z partial sums of
// sm90_zmarch_fwd) and returns the centre vectors of the V own rows; tile_compute starts from 0.
template <class Shape, int R, int V, class T, class Window>
__device__ __forceinline__ void window_accumulate(const Window& w, const StencilCoeffs<T>& k,
                                                  Lanes<T> (&acc)[V], Lanes<T> (&centre)[V]) {
  constexpr int W = Shape::W;
  constexpr int NV = 2 * Shape::HX / W + 1;  // vectors spanning x - HX .. x + W - 1 + HX
#pragma unroll
  for (int j = -R; j < V + R; ++j) {
    Lanes<T> c;
    if (j >= 0 && j < V) {  // an own row: centre and x terms
      Lanes<T> win[NV];
#pragma unroll
      for (int q = 0; q < NV; ++q)
        win[q] = q == Shape::HX / W ? lds_vec(w.centre(j + R)) : lds_vec(w.vec(j + R, q));
      c = win[Shape::HX / W];
      centre[j] = c;
#pragma unroll
      for (int e = 0; e < W; ++e) {
        constexpr int C = Shape::HX;
        T a = k.c[0] * c.v[e];
#pragma unroll
        for (int o = 1; o <= R; ++o) {
          const int lo = C + e - o, hi = C + e + o;
          a = fma(coef_rt<R, 0>(k, -o), win[lo / W].v[lo % W], a);
          a = fma(coef_rt<R, 0>(k, o), win[hi / W].v[hi % W], a);
        }
        acc[j].v[e] += a;
      }
    } else {
      c = lds_vec(w.centre(j + R));
    }
    // The row's centre vector feeds the y terms of every own row within R.
#pragma unroll
    for (int i = 0; i < V; ++i) {
      const int o = j - i;
      if (o != 0 && o >= -R && o <= R) {
#pragma unroll
        for (int e = 0; e < W; ++e) acc[i].v[e] = fma(coef_rt<R, 1>(k, o), c.v[e], acc[i].v[e]);
      }
    }
  }
}

template <class Shape, int R, int V, class T>
__device__ __forceinline__ void tile_compute(const T* s, int tx, int ty, const StencilCoeffs<T>& k,
                                             Lanes<T> (&acc)[V]) {
#pragma unroll
  for (int i = 0; i < V; ++i)
#pragma unroll
    for (int e = 0; e < Shape::W; ++e) acc[i].v[e] = T(0);
  Lanes<T> centre[V];
  window_accumulate<Shape, R, V>(DenseWindow<Shape, T>(s, tx, ty, V), k, acc, centre);
}

// Stores the W lanes of output row (y, z) at x (a multiple of W): one 16-byte store when the row
// is aligned and whole, else element by element inside the grid.
template <class T>
__device__ __forceinline__ void store_vec(T* out, const StencilGrid& g, i64 x, i64 y, i64 z,
                                          const Lanes<T>& l) {
  constexpr int W = Vec16<T>::width;
  if (y >= g.ny || x >= g.nx) return;
  T* p = out + x + y * g.out_pitch + z * g.out_slice;
  if (g.out_vec_ok && x + W <= g.nx) {
    st_vec(p, l);
    return;
  }
#pragma unroll
  for (int e = 0; e < W; ++e)
    if (x + e < g.nx) p[e] = l.v[e];
}

}  // namespace stencil
}  // namespace gpuopt
