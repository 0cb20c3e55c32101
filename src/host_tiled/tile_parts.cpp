// The per-tile pieces both orders share: staging an operand (pinned ring or copy engines), the
// product of one k chunk, and rows i0 .. i0 + tm of C over their parts (copies in, products, copy
// out) with the deferred finish that writes each part into C whole.
#include <string.h>

#include <algorithm>

#include "copy_pool.hpp"
#include "deferred_finish.hpp"
#include "pipeline_internal.hpp"

namespace gpuopt_host_tiled {

namespace {

// Column blocks of a staged copy: each is copied in as soon as it is packed, so the link works
// while the CPU packs the next; blocks of at least cp.block bytes (a copy costs microseconds), 4
// at most.
int64_t staging_blocks(const Copier& cp, size_t bytes, int64_t cols) {
  return std::max<int64_t>(1, std::min<int64_t>({4, cols, static_cast<int64_t>(bytes / cp.block)}));
}

}  // namespace

// Brings rows x cols of a source operand into the device buffer of every target (packed, leading
// dimension rows): through the pinned slot for pageable host memory (packed once by the copy
// pool, block by block, each block copied to every target as soon as it is packed), by a 2D copy
// of the copy engines otherwise (page-locked host, device, managed).
bool stage(const Copier& cp, const Target* targets, size_t ntargets, void* pinned, const void* src,
           Memory mem, int64_t ld, int64_t rows, int64_t cols, size_t elem, std::string* error) {
  const size_t width = static_cast<size_t>(rows) * elem;
  if (mem != Memory::kHost) {
    for (size_t t = 0; t < ntargets; ++t) {
      HT_CUDA(cudaSetDevice(targets[t].device));
      HT_CUDA(cudaMemcpy2DAsync(targets[t].dst, width, src, static_cast<size_t>(ld) * elem, width,
                                static_cast<size_t>(cols), cudaMemcpyDefault, targets[t].stream));
    }
    return true;
  }
  const int64_t blocks = staging_blocks(cp, width * static_cast<size_t>(cols), cols);
  const int64_t per = (cols + blocks - 1) / blocks;
  for (int64_t c0 = 0; c0 < cols; c0 += per) {
    const int64_t nc = std::min(per, cols - c0);
    const size_t off = width * static_cast<size_t>(c0);
    char* p = static_cast<char*>(pinned) + off;
    copy_2d(cp.pool, cp.piece, p, rows, at(src, ld, 0, c0, elem), ld, rows, nc, elem);
    for (size_t t = 0; t < ntargets; ++t) {
      HT_CUDA(cudaSetDevice(targets[t].device));
      HT_CUDA(cudaMemcpyAsync(static_cast<char*>(targets[t].dst) + off, p,
                              width * static_cast<size_t>(nc), cudaMemcpyHostToDevice,
                              targets[t].stream));
    }
  }
  return true;
}

namespace {

gpuopt_gemm_desc_t product(const Call& c, int64_t tm, int64_t tn, int64_t tk, int64_t lda,
                           int64_t ldb, double beta) {
  gpuopt_gemm_desc_t d;
  memset(&d, 0, sizeof d);
  d.struct_size = sizeof d;
  d.trans_a = c.transa == 'N' ? GPUOPT_TRANS_N : GPUOPT_TRANS_T;
  d.trans_b = c.transb == 'N' ? GPUOPT_TRANS_N : GPUOPT_TRANS_T;
  d.m = tm;
  d.n = tn;
  d.k = tk;
  d.alpha = c.alpha;
  d.beta = beta;
  d.a_type = d.c_type = c.dtype;
  d.compute = GPUOPT_COMPUTE_DEFAULT;
  d.lda = lda;
  d.ldb = ldb;
  d.ldc = tm;
  return d;
}

// The finish of rows i0 .. i0 + tm over the parts, on the deferred-finish thread (the workers
// already run their next tile): each part is written to C only whole, after its own copy out has
// finished (out_done: an event, never the stream, which by now holds the next tile's work), and
// then marked done. A part whose copy out failed is neither written nor marked (the CPU redoes
// it after the join); @p fail_finish (testing) fails the whole finish before anything is written.
void finish_parts(Shared& sh, const std::vector<Part>& parts, int64_t i0, int64_t tm,
                  bool fail_finish, std::string* error) {
  const Call& c = *sh.call;
  const size_t elem = c.dtype == GPUOPT_DTYPE_F64 ? 8 : 4;
  const bool host_c = c.c_mem == Memory::kHost;
  if (fail_finish) {
    if (error->empty()) *error = "injected failure in a deferred finish (testing)";
    fail(sh);
    return;
  }
  for (const Part& part : parts) {
    Pipeline::Worker& w = *part.w;
    cudaError_t e = cudaSetDevice(w.device);
    if (e == cudaSuccess) e = cudaEventSynchronize(w.out_done);
    if (e != cudaSuccess) {
      if (error->empty()) *error = cuda_text(e, "cudaEventSynchronize(copy out)");
      fail(sh);
      return;
    }
    if (host_c) {
      void* dst = static_cast<char*>(c.C) + (part.j0 * c.ldc + i0) * static_cast<int64_t>(elem);
      if (c.beta == 0)  // C is not read
        copy_2d(sh.copier.pool, sh.copier.piece, dst, c.ldc, w.hC, tm, tm, part.tn, elem);
      else
        add_scaled_2d(sh.copier.pool, sh.copier.piece, dst, c.ldc, w.hC, tm, tm, part.tn, elem,
                      c.beta);
    }
    sh.done[static_cast<size_t>(part.index)] = 1;
  }
}

}  // namespace

// Rows i0 .. i0 + tm of C over the given parts (one part in the tiles order; one per device in the
// panels order, all fed from the same pinned A chunks: the first part's worker's slots). The
// finish (copy out waited for, unpacked into C) is handed to @p finish, which owns the parts'
// pinned C tiles until its next wait(); its failures go to @p finish_error.
bool run_parts(Shared& sh, Part* parts, size_t nparts, int64_t i0, int64_t tm, int64_t tile_k,
               DeferredFinish& finish, bool fail_finish, std::string* finish_error,
               std::string* error) {
  const Call& c = *sh.call;
  const size_t elem = c.dtype == GPUOPT_DTYPE_F64 ? 8 : 4;
  const bool na = c.transa == 'N', nb = c.transb == 'N';
  Pipeline::Worker& lead = *parts[0].w;
  // Copies in run on each worker's copy stream, products on its product stream: the copy of
  // chunk k+1 overlaps the product of chunk k. staged[slot] orders a product after its copy (and
  // the CPU's repacking of the pinned slot after the copies that read it, on every device);
  // consumed[slot] orders a copy into a device slot after the product that read it.
  // Pageable C is not staged in: the products start from beta = 0 and C = D + beta C is applied
  // on the CPU while the tile is unpacked (C read once, on the host, instead of packed, copied in
  // and copied out again).
  const bool host_c = c.c_mem == Memory::kHost;
  if (!host_c && c.beta != 0) {
    for (size_t p = 0; p < nparts; ++p) {
      Pipeline::Worker& w = *parts[p].w;
      // The previous tile's copy out of dC (on the product stream) may still be running.
      HT_CUDA(cudaSetDevice(w.device));
      HT_CUDA(cudaStreamWaitEvent(w.copy, w.out_done, 0));
      const Target t{w.device, w.copy, w.dC};
      if (!stage(sh.copier, &t, 1, w.hC, at(c.C, c.ldc, i0, parts[p].j0, elem), c.c_mem, c.ldc, tm,
                 parts[p].tn, elem, error))
        return false;
    }
  }
  std::vector<Target> a_targets(nparts);
  int slot = 0;
  for (int64_t k0 = 0, chunk = 0; k0 < c.k; k0 += tile_k, slot ^= 1, ++chunk) {
    const int64_t tk = std::min(tile_k, c.k - k0);
    for (size_t p = 0; p < nparts; ++p) {
      Pipeline::Worker& w = *parts[p].w;
      HT_CUDA(cudaSetDevice(w.device));
      HT_CUDA(cudaEventSynchronize(w.staged[slot]));  // the pinned slots' last copies are done
      HT_CUDA(cudaStreamWaitEvent(w.copy, w.consumed[slot], 0));
      a_targets[p] = Target{w.device, w.copy, w.dA[slot]};
    }
    // op(A)[i0:i0+tm, k0:k0+tk] as stored: A[i0.., k0..] (N) or A[k0.., i0..] (T).
    const int64_t ar = na ? tm : tk, ac = na ? tk : tm;
    const void* a = na ? at(c.A, c.lda, i0, k0, elem) : at(c.A, c.lda, k0, i0, elem);
    if (!stage(sh.copier, a_targets.data(), nparts, lead.hA[slot], a, c.a_mem, c.lda, ar, ac, elem,
               error))
      return false;
    for (size_t p = 0; p < nparts; ++p) {
      Pipeline::Worker& w = *parts[p].w;
      const int64_t j0 = parts[p].j0, tn = parts[p].tn;
      const int64_t br = nb ? tk : tn, bc = nb ? tn : tk;
      const void* b_dev = w.dB[slot];
      if (parts[p].panel) {
        if (!panel_chunk(sh, *parts[p].panel, w, chunk, k0, tk, j0, tn, error)) return false;
        b_dev = static_cast<const char*>(parts[p].panel->mem) +
                static_cast<size_t>(chunk * sh.plan.tile_n) * static_cast<size_t>(tile_k) * elem;
      } else {
        const void* b = nb ? at(c.B, c.ldb, k0, j0, elem) : at(c.B, c.ldb, j0, k0, elem);
        const Target t{w.device, w.copy, w.dB[slot]};
        if (!stage(sh.copier, &t, 1, w.hB[slot], b, c.b_mem, c.ldb, br, bc, elem, error))
          return false;
      }
      HT_CUDA(cudaSetDevice(w.device));
      HT_CUDA(cudaEventRecord(w.staged[slot], w.copy));
      HT_CUDA(cudaStreamWaitEvent(w.s, w.staged[slot], 0));
      const gpuopt_gemm_desc_t d = product(c, tm, tn, tk, ar, br,
                                           k0 > 0   ? 1.0
                                           : host_c ? 0.0
                                                    : c.beta);
      HT_GPUOPT(gpuopt_gemm(w.ctx, w.gs, &d, w.dA[slot], b_dev, w.dC));
      HT_CUDA(cudaEventRecord(w.consumed[slot], w.s));
    }
  }
  // Copies out, on each part's product stream (after the products, before the next tile's): the
  // previous finish of these workers must be done first, since it reads their pinned C tiles.
  // Then the finish is handed over and the workers go on to their next tile.
  finish.wait();
  for (size_t p = 0; p < nparts; ++p) {
    Pipeline::Worker& w = *parts[p].w;
    const size_t width = static_cast<size_t>(tm) * elem;
    HT_CUDA(cudaSetDevice(w.device));
    if (host_c) {
      HT_CUDA(cudaMemcpyAsync(w.hC, w.dC, width * static_cast<size_t>(parts[p].tn),
                              cudaMemcpyDeviceToHost, w.s));
    } else {
      void* dst = static_cast<char*>(c.C) + (parts[p].j0 * c.ldc + i0) * static_cast<int64_t>(elem);
      HT_CUDA(cudaMemcpy2DAsync(dst, static_cast<size_t>(c.ldc) * elem, w.dC, width, width,
                                static_cast<size_t>(parts[p].tn), cudaMemcpyDefault, w.s));
    }
    HT_CUDA(cudaEventRecord(w.out_done, w.s));
  }
  std::vector<Part> handed(parts, parts + nparts);
  finish.hand([&sh, handed, i0, tm, fail_finish, finish_error] {
    finish_parts(sh, handed, i0, tm, fail_finish, finish_error);
  });
  return true;
}

}  // namespace gpuopt_host_tiled
