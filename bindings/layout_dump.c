/* layout_dump: prints the size of every struct of gpuopt.h and the offset of each field, one
 * "struct.field offset" or "struct sizeof" line each, for the bindings' layout tests (Python's
 * ctypes mirrors, Fortran's bind(c) types) to compare with what the C compiler lays out. */
#include <stddef.h>
#include <stdio.h>

#include "gpuopt.h"

#define SIZE(T) printf("%s sizeof %lu\n", #T, (unsigned long)sizeof(T))
#define OFF(T, f) printf("%s.%s offsetof %lu\n", #T, #f, (unsigned long)offsetof(T, f))

int main(void) {
  SIZE(gpuopt_device_info_t);
  OFF(gpuopt_device_info_t, struct_size);
  OFF(gpuopt_device_info_t, device);
  OFF(gpuopt_device_info_t, name);
  OFF(gpuopt_device_info_t, cc_major);
  OFF(gpuopt_device_info_t, cc_minor);
  OFF(gpuopt_device_info_t, sm_count);
  OFF(gpuopt_device_info_t, max_threads_per_sm);
  OFF(gpuopt_device_info_t, total_memory);
  OFF(gpuopt_device_info_t, l2_cache_bytes);
  OFF(gpuopt_device_info_t, shared_memory_per_block_optin);
  OFF(gpuopt_device_info_t, shared_memory_per_sm);
  OFF(gpuopt_device_info_t, supports_clusters);
  OFF(gpuopt_device_info_t, supports_tma);
  OFF(gpuopt_device_info_t, supports_compression);
  OFF(gpuopt_device_info_t, supports_mapped_memory);
  OFF(gpuopt_device_info_t, memory_clock_khz);
  OFF(gpuopt_device_info_t, memory_bus_width_bits);
  OFF(gpuopt_device_info_t, theoretical_bandwidth_gbs);
  OFF(gpuopt_device_info_t, driver_version);
  OFF(gpuopt_device_info_t, runtime_version);

  SIZE(gpuopt_allocator_t);
  OFF(gpuopt_allocator_t, struct_size);
  OFF(gpuopt_allocator_t, allocate);
  OFF(gpuopt_allocator_t, deallocate);
  OFF(gpuopt_allocator_t, user);

  SIZE(gpuopt_variant_info_t);
  OFF(gpuopt_variant_info_t, struct_size);
  OFF(gpuopt_variant_info_t, name);
  OFF(gpuopt_variant_info_t, technique);
  OFF(gpuopt_variant_info_t, min_cc);
  OFF(gpuopt_variant_info_t, exact_cc);
  OFF(gpuopt_variant_info_t, is_vendor);
  OFF(gpuopt_variant_info_t, available);
  OFF(gpuopt_variant_info_t, dtype_mask);

  SIZE(gpuopt_tune_result_t);
  OFF(gpuopt_tune_result_t, struct_size);
  OFF(gpuopt_tune_result_t, variant);
  OFF(gpuopt_tune_result_t, ms);
  OFF(gpuopt_tune_result_t, timed);
  OFF(gpuopt_tune_result_t, refused);
  OFF(gpuopt_tune_result_t, config);

  SIZE(gpuopt_gemm_desc_t);
  OFF(gpuopt_gemm_desc_t, struct_size);
  OFF(gpuopt_gemm_desc_t, trans_a);
  OFF(gpuopt_gemm_desc_t, trans_b);
  OFF(gpuopt_gemm_desc_t, m);
  OFF(gpuopt_gemm_desc_t, n);
  OFF(gpuopt_gemm_desc_t, k);
  OFF(gpuopt_gemm_desc_t, alpha);
  OFF(gpuopt_gemm_desc_t, beta);
  OFF(gpuopt_gemm_desc_t, a_type);
  OFF(gpuopt_gemm_desc_t, c_type);
  OFF(gpuopt_gemm_desc_t, compute);
  OFF(gpuopt_gemm_desc_t, lda);
  OFF(gpuopt_gemm_desc_t, ldb);
  OFF(gpuopt_gemm_desc_t, ldc);
  OFF(gpuopt_gemm_desc_t, batch_count);
  OFF(gpuopt_gemm_desc_t, stride_a);
  OFF(gpuopt_gemm_desc_t, stride_b);
  OFF(gpuopt_gemm_desc_t, stride_c);

  SIZE(gpuopt_reduce_desc_t);
  OFF(gpuopt_reduce_desc_t, struct_size);
  OFF(gpuopt_reduce_desc_t, op);
  OFF(gpuopt_reduce_desc_t, in_type);
  OFF(gpuopt_reduce_desc_t, n);
  OFF(gpuopt_reduce_desc_t, num_segments);
  OFF(gpuopt_reduce_desc_t, segment_stride);
  OFF(gpuopt_reduce_desc_t, offsets);
  OFF(gpuopt_reduce_desc_t, mode);

  SIZE(gpuopt_segmented_sort_desc_t);
  OFF(gpuopt_segmented_sort_desc_t, struct_size);
  OFF(gpuopt_segmented_sort_desc_t, key_type);
  OFF(gpuopt_segmented_sort_desc_t, value_bytes);
  OFF(gpuopt_segmented_sort_desc_t, order);
  OFF(gpuopt_segmented_sort_desc_t, num_items);
  OFF(gpuopt_segmented_sort_desc_t, num_segments);
  OFF(gpuopt_segmented_sort_desc_t, segment_size);
  OFF(gpuopt_segmented_sort_desc_t, offsets);

  SIZE(gpuopt_stencil_desc_t);
  OFF(gpuopt_stencil_desc_t, struct_size);
  OFF(gpuopt_stencil_desc_t, dtype);
  OFF(gpuopt_stencil_desc_t, dims);
  OFF(gpuopt_stencil_desc_t, radius);
  OFF(gpuopt_stencil_desc_t, boundary);
  OFF(gpuopt_stencil_desc_t, nx);
  OFF(gpuopt_stencil_desc_t, ny);
  OFF(gpuopt_stencil_desc_t, nz);
  OFF(gpuopt_stencil_desc_t, in_pitch);
  OFF(gpuopt_stencil_desc_t, in_slice_pitch);
  OFF(gpuopt_stencil_desc_t, out_pitch);
  OFF(gpuopt_stencil_desc_t, out_slice_pitch);
  OFF(gpuopt_stencil_desc_t, coeffs);

  SIZE(gpuopt_transpose_desc_t);
  OFF(gpuopt_transpose_desc_t, struct_size);
  OFF(gpuopt_transpose_desc_t, dtype);
  OFF(gpuopt_transpose_desc_t, rows);
  OFF(gpuopt_transpose_desc_t, cols);
  OFF(gpuopt_transpose_desc_t, lda);
  OFF(gpuopt_transpose_desc_t, ldb);

  SIZE(gpuopt_gdn_desc_t);
  OFF(gpuopt_gdn_desc_t, struct_size);
  OFF(gpuopt_gdn_desc_t, batch);
  OFF(gpuopt_gdn_desc_t, channels);
  OFF(gpuopt_gdn_desc_t, height);
  OFF(gpuopt_gdn_desc_t, width);
  OFF(gpuopt_gdn_desc_t, inverse);
  OFF(gpuopt_gdn_desc_t, compute);
  SIZE(gpuopt_comm_id_t);
  OFF(gpuopt_comm_id_t, bytes);
  SIZE(gpuopt_dist_desc_t);
  OFF(gpuopt_dist_desc_t, struct_size);
  OFF(gpuopt_dist_desc_t, dtype);
  OFF(gpuopt_dist_desc_t, rows);
  OFF(gpuopt_dist_desc_t, cols);
  OFF(gpuopt_dist_desc_t, row_block);
  OFF(gpuopt_dist_desc_t, col_block);
  OFF(gpuopt_dist_desc_t, grid_rows);
  OFF(gpuopt_dist_desc_t, grid_cols);
  OFF(gpuopt_dist_desc_t, ld);
  SIZE(gpuopt_gemm_dist_desc_t);
  OFF(gpuopt_gemm_dist_desc_t, struct_size);
  OFF(gpuopt_gemm_dist_desc_t, m);
  OFF(gpuopt_gemm_dist_desc_t, n);
  OFF(gpuopt_gemm_dist_desc_t, k);
  OFF(gpuopt_gemm_dist_desc_t, alpha);
  OFF(gpuopt_gemm_dist_desc_t, beta);
  OFF(gpuopt_gemm_dist_desc_t, a_type);
  OFF(gpuopt_gemm_dist_desc_t, c_type);
  OFF(gpuopt_gemm_dist_desc_t, compute);
  OFF(gpuopt_gemm_dist_desc_t, mb);
  OFF(gpuopt_gemm_dist_desc_t, nb);
  OFF(gpuopt_gemm_dist_desc_t, kb);
  OFF(gpuopt_gemm_dist_desc_t, lda);
  OFF(gpuopt_gemm_dist_desc_t, ldb);
  OFF(gpuopt_gemm_dist_desc_t, ldc);
  return 0;
}
