!> layout_sizes: prints "<struct> sizeof <n>" for every bind(c) type of the gpuopt module, for
!> the ctest fortran_binding_layout to compare with the C compiler's (layout_dump).
program layout_sizes
  use, intrinsic :: iso_c_binding
  use gpuopt
  implicit none
  type(gpuopt_device_info_t) :: device_info
  type(gpuopt_variant_info_t) :: variant_info
  type(gpuopt_allocator_t) :: allocator
  type(gpuopt_tune_result_t) :: tune_result
  type(gpuopt_gemm_desc_t) :: gemm
  type(gpuopt_reduce_desc_t) :: reduce
  type(gpuopt_segmented_sort_desc_t) :: sort
  type(gpuopt_stencil_desc_t) :: stencil
  type(gpuopt_transpose_desc_t) :: transpose
  type(gpuopt_gdn_desc_t) :: gdn
  type(gpuopt_comm_id_t) :: comm_id
  type(gpuopt_dist_desc_t) :: dist
  type(gpuopt_gemm_dist_desc_t) :: gemm_dist
  print '(a,i0)', 'gpuopt_device_info_t sizeof ', c_sizeof(device_info)
  print '(a,i0)', 'gpuopt_variant_info_t sizeof ', c_sizeof(variant_info)
  print '(a,i0)', 'gpuopt_allocator_t sizeof ', c_sizeof(allocator)
  print '(a,i0)', 'gpuopt_tune_result_t sizeof ', c_sizeof(tune_result)
  print '(a,i0)', 'gpuopt_gemm_desc_t sizeof ', c_sizeof(gemm)
  print '(a,i0)', 'gpuopt_reduce_desc_t sizeof ', c_sizeof(reduce)
  print '(a,i0)', 'gpuopt_segmented_sort_desc_t sizeof ', c_sizeof(sort)
  print '(a,i0)', 'gpuopt_stencil_desc_t sizeof ', c_sizeof(stencil)
  print '(a,i0)', 'gpuopt_transpose_desc_t sizeof ', c_sizeof(transpose)
  print '(a,i0)', 'gpuopt_gdn_desc_t sizeof ', c_sizeof(gdn)
  print '(a,i0)', 'gpuopt_comm_id_t sizeof ', c_sizeof(comm_id)
  print '(a,i0)', 'gpuopt_dist_desc_t sizeof ', c_sizeof(dist)
  print '(a,i0)', 'gpuopt_gemm_dist_desc_t sizeof ', c_sizeof(gemm_dist)
end program layout_sizes
