!> host_checks: the Fortran binding's checks that need no GPU (ctest fortran_binding_host).
!> Calls every function of the module with NULL handles (or through its no-device path), checks
!> the statuses, that each failure's message names the function, the version, the name
!> functions, and the convenience procedures. Exit 0 when every check passed.
!> The log sink of the logging checks: counts the lines and keeps the last one.
module host_checks_log
  use, intrinsic :: iso_c_binding
  use gpuopt, only: gpuopt_fstring
  implicit none
  integer(c_int), target :: lines = 0
  character(len=:), allocatable :: last_line
contains
  subroutine sink(level, message, user) bind(c)
    integer(c_int), value :: level
    type(c_ptr), value :: message, user
    integer(c_int), pointer :: count
    call c_f_pointer(user, count)
    count = count + 1
    last_line = gpuopt_fstring(message)
    if (level < 1) count = -1000  ! only GPUOPT_LOG_INFO and _DEBUG lines are delivered
  end subroutine
end module host_checks_log

program host_checks
  use, intrinsic :: iso_c_binding
  use gpuopt
  use host_checks_log
  implicit none
  integer :: failures = 0, checks = 0
  type(c_ptr) :: h, p
  integer(c_int) :: i32, st
  integer(c_size_t) :: sz
  type(gpuopt_device_info_t) :: dinfo
  type(gpuopt_variant_info_t) :: vinfo
  type(gpuopt_tune_result_t) :: tres
  type(gpuopt_gemm_desc_t) :: gemm
  type(gpuopt_reduce_desc_t) :: reduce
  type(gpuopt_segmented_sort_desc_t) :: sort
  type(gpuopt_stencil_desc_t) :: stencil
  type(gpuopt_transpose_desc_t) :: transpose
  type(gpuopt_gdn_desc_t) :: gdn
  real(c_double) :: x(4)
  character(len=16) :: version

  ! version and names
  write (version, '(i0,".",i0,".",i0)') GPUOPT_VERSION_MAJOR, GPUOPT_VERSION_MINOR, &
    GPUOPT_VERSION_PATCH
  call expect(gpuopt_version() == GPUOPT_HEADER_VERSION, 'gpuopt_version')
  call expect(gpuopt_fstring(gpuopt_version_string()) == trim(version), 'gpuopt_version_string')
  call expect(gpuopt_fstring(gpuopt_status_name(GPUOPT_ERROR_NO_DEVICE)) == &
              'GPUOPT_ERROR_NO_DEVICE', 'gpuopt_status_name')
  call expect(gpuopt_fstring(gpuopt_op_name(GPUOPT_OP_GDN)) == 'gdn', 'gpuopt_op_name')
  call expect(.not. c_associated(gpuopt_op_name(9999_c_int)), 'gpuopt_op_name(9999)')
  call expect(gpuopt_fstring(gpuopt_dtype_name(GPUOPT_DTYPE_BF16)) == 'bf16', 'gpuopt_dtype_name')
  call expect(gpuopt_fstring(gpuopt_reduce_op_name(GPUOPT_REDUCE_ARGMAX)) == 'argmax', &
              'gpuopt_reduce_op_name')
  call expect(gpuopt_last_error_message(c_null_ptr, 0_c_size_t, c_null_ptr) == GPUOPT_SUCCESS, &
              'gpuopt_last_error_message')

  ! logging: the level round-trips, a bad level fails, the callback sees the context line (the
  ! context is created, or refused with the no-device reason), NULL restores stderr
  call expect(gpuopt_set_log_level(GPUOPT_LOG_INFO) == GPUOPT_SUCCESS, 'gpuopt_set_log_level')
  call expect(gpuopt_get_log_level(i32) == GPUOPT_SUCCESS .and. i32 == GPUOPT_LOG_INFO, &
              'gpuopt_get_log_level')
  call failed(gpuopt_set_log_level(7_c_int), 'gpuopt_set_log_level')
  call expect(gpuopt_set_log_callback(c_funloc(sink), c_loc(lines)) == GPUOPT_SUCCESS, &
              'gpuopt_set_log_callback')
  st = gpuopt_context_create(0_c_int, h)
  if (st == GPUOPT_SUCCESS) st = gpuopt_context_destroy(h)
  call expect(lines >= 1, 'the log callback received a line')
  if (lines >= 1) call expect(index(last_line, 'context') > 0, 'log line: "' // last_line // '"')
  call expect(gpuopt_set_log_callback(c_null_funptr, c_null_ptr) == GPUOPT_SUCCESS, &
              'gpuopt_set_log_callback(NULL)')
  call expect(gpuopt_set_log_level(GPUOPT_LOG_OFF) == GPUOPT_SUCCESS, 'gpuopt_set_log_level(off)')

  ! devices and contexts: a count always comes back; the rest fails on NULL outputs
  call expect(gpuopt_device_count(i32) == GPUOPT_SUCCESS .or. i32 == 0, 'gpuopt_device_count')
  dinfo%struct_size = c_sizeof(dinfo)
  st = gpuopt_device_info(-1_c_int, dinfo)
  call failed(st, 'gpuopt_device_info')
  call failed(gpuopt_context_device_info(c_null_ptr, dinfo), 'gpuopt_context_device_info')
  call expect(gpuopt_context_destroy(c_null_ptr) == GPUOPT_SUCCESS, 'gpuopt_context_destroy')

  ! streams, buffers, graphs with NULL handles
  call failed(gpuopt_stream_create(c_null_ptr, h), 'gpuopt_stream_create')
  call failed(gpuopt_stream_wrap(c_null_ptr, c_null_ptr, h), 'gpuopt_stream_wrap')
  call failed(gpuopt_stream_native(c_null_ptr, p), 'gpuopt_stream_native')
  call failed(gpuopt_stream_synchronize(c_null_ptr), 'gpuopt_stream_synchronize')
  call expect(gpuopt_stream_destroy(c_null_ptr) == GPUOPT_SUCCESS, 'gpuopt_stream_destroy')
  call failed(gpuopt_buffer_create(c_null_ptr, 8_c_size_t, GPUOPT_MEMORY_DEVICE, h), &
              'gpuopt_buffer_create')
  call failed(gpuopt_buffer_wrap(c_null_ptr, c_null_ptr, 8_c_size_t, h), 'gpuopt_buffer_wrap')
  call failed(gpuopt_buffer_device_pointer(c_null_ptr, p), 'gpuopt_buffer_device_pointer')
  call failed(gpuopt_buffer_host_pointer(c_null_ptr, p), 'gpuopt_buffer_host_pointer')
  call failed(gpuopt_buffer_size(c_null_ptr, sz), 'gpuopt_buffer_size')
  call failed(gpuopt_buffer_kind(c_null_ptr, i32), 'gpuopt_buffer_kind')
  call failed(gpuopt_buffer_is_compressed(c_null_ptr, i32), 'gpuopt_buffer_is_compressed')
  x = 1
  call failed(gpuopt_copy_to_device(c_null_ptr, c_null_ptr, x), 'gpuopt_buffer_copy_from_host')
  call failed(gpuopt_copy_from_device(c_null_ptr, c_null_ptr, x), 'gpuopt_buffer_copy_to_host')
  call expect(gpuopt_buffer_destroy(c_null_ptr) == GPUOPT_SUCCESS, 'gpuopt_buffer_destroy')
  call expect(gpuopt_buffer_destroy_async(c_null_ptr, c_null_ptr) == GPUOPT_SUCCESS, &
              'gpuopt_buffer_destroy_async')
  call failed(gpuopt_graph_begin(c_null_ptr, c_null_ptr), 'gpuopt_graph_begin')
  call failed(gpuopt_graph_end(c_null_ptr, h), 'gpuopt_graph_end')
  call failed(gpuopt_graph_end_update(c_null_ptr, c_null_ptr, i32), 'gpuopt_graph_end_update')
  call failed(gpuopt_graph_launch(c_null_ptr, c_null_ptr), 'gpuopt_graph_launch')
  call expect(gpuopt_graph_destroy(c_null_ptr) == GPUOPT_SUCCESS, 'gpuopt_graph_destroy')
  call failed(gpuopt_context_set_allocator(c_null_ptr, c_null_ptr), 'gpuopt_context_set_allocator')
  call failed(gpuopt_context_set_pointer_checks(c_null_ptr, GPUOPT_POINTER_CHECKS_CACHED), &
              'gpuopt_context_set_pointer_checks')
  call failed(gpuopt_context_pointer_checks(c_null_ptr, i32), 'gpuopt_context_pointer_checks')
  call failed(gpuopt_context_forget_pointers(c_null_ptr), 'gpuopt_context_forget_pointers')

  ! variants
  vinfo%struct_size = c_sizeof(vinfo)
  call failed(gpuopt_variant_count(c_null_ptr, GPUOPT_OP_GEMM, i32), 'gpuopt_variant_count')
  call failed(gpuopt_variant_name(c_null_ptr, GPUOPT_OP_GEMM, 0_c_int, p), 'gpuopt_variant_name')
  call failed(gpuopt_variant_info(c_null_ptr, GPUOPT_OP_GEMM, 0_c_int, vinfo), &
              'gpuopt_variant_info')
  call failed(gpuopt_set_variant(c_null_ptr, GPUOPT_OP_GEMM, 'naive'), &
              'gpuopt_context_set_variant')
  call failed(gpuopt_context_get_variant(c_null_ptr, GPUOPT_OP_GEMM, p), &
              'gpuopt_context_get_variant')
  call failed(gpuopt_last_variant(c_null_ptr, GPUOPT_OP_GEMM, p), 'gpuopt_last_variant')

  ! tuning cache
  tres%struct_size = c_sizeof(tres)
  call failed(gpuopt_set_tune_cache(c_null_ptr, 'tune.cache'), 'gpuopt_context_set_tune_cache')
  call failed(gpuopt_context_tune_cache_entries(c_null_ptr, i32), &
              'gpuopt_context_tune_cache_entries')
  call failed(gpuopt_tune(c_null_ptr, c_null_ptr, GPUOPT_OP_GEMM, c_null_funptr, c_null_ptr, &
                          1.0_c_double, tres), 'gpuopt_tune')

  ! operations
  gemm%struct_size = c_sizeof(gemm)
  reduce%struct_size = c_sizeof(reduce)
  sort%struct_size = c_sizeof(sort)
  stencil%struct_size = c_sizeof(stencil)
  transpose%struct_size = c_sizeof(transpose)
  gdn%struct_size = c_sizeof(gdn)
  call failed(gpuopt_axpy(c_null_ptr, c_null_ptr, GPUOPT_DTYPE_F64, 4_c_int64_t, 1.0_c_double, &
                          c_null_ptr, 1_c_int64_t, c_null_ptr, 1_c_int64_t), 'gpuopt_axpy')
  call failed(gpuopt_gemm(c_null_ptr, c_null_ptr, gemm, c_null_ptr, c_null_ptr, c_null_ptr), &
              'gpuopt_gemm')
  call failed(gpuopt_dgemm_dev(c_null_ptr, c_null_ptr, GPUOPT_TRANS_N, GPUOPT_TRANS_N, &
                               2_c_int64_t, 2_c_int64_t, 2_c_int64_t, 1.0_c_double, c_null_ptr, &
                               2_c_int64_t, c_null_ptr, 2_c_int64_t, 0.0_c_double, c_null_ptr, &
                               2_c_int64_t), 'gpuopt_gemm')
  call failed(gpuopt_reduce(c_null_ptr, c_null_ptr, reduce, c_null_ptr, c_null_ptr), &
              'gpuopt_reduce')
  call failed(gpuopt_reduce_dev(c_null_ptr, c_null_ptr, GPUOPT_REDUCE_SUM, GPUOPT_DTYPE_F64, &
                                4_c_int64_t, c_null_ptr, c_null_ptr), 'gpuopt_reduce')
  call failed(gpuopt_segmented_sort_workspace_size(c_null_ptr, sort, sz), &
              'gpuopt_segmented_sort_workspace_size')
  call failed(gpuopt_segmented_sort(c_null_ptr, c_null_ptr, sort, c_null_ptr, c_null_ptr, &
                                    c_null_ptr, c_null_ptr, c_null_ptr, 0_c_size_t), &
              'gpuopt_segmented_sort')
  call failed(gpuopt_stencil(c_null_ptr, c_null_ptr, stencil, c_null_ptr, c_null_ptr), &
              'gpuopt_stencil')
  call failed(gpuopt_transpose(c_null_ptr, c_null_ptr, transpose, c_null_ptr, c_null_ptr), &
              'gpuopt_transpose')
  call failed(gpuopt_gdn_workspace_size(c_null_ptr, gdn, GPUOPT_GDN_FORWARD_PASS, sz), &
              'gpuopt_gdn_workspace_size')
  call failed(gpuopt_gdn_forward(c_null_ptr, c_null_ptr, gdn, c_null_ptr, c_null_ptr, &
                                 c_null_ptr, c_null_ptr, c_null_ptr, 0_c_size_t), &
              'gpuopt_gdn_forward')
  call failed(gpuopt_gdn_backward(c_null_ptr, c_null_ptr, gdn, c_null_ptr, c_null_ptr, &
                                  c_null_ptr, c_null_ptr, c_null_ptr, c_null_ptr, c_null_ptr, &
                                  c_null_ptr, 0_c_size_t), 'gpuopt_gdn_backward')

  print '(i0,a,i0,a)', checks, ' checks, ', failures, ' failed'
  if (failures > 0) error stop 1

contains

  subroutine expect(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    checks = checks + 1
    if (.not. ok) then
      failures = failures + 1
      print '(2a)', 'check failed: ', what
    end if
  end subroutine

  !> st must be a failure whose message names function fn.
  subroutine failed(st, fn)
    integer(c_int), intent(in) :: st
    character(len=*), intent(in) :: fn
    character(len=:), allocatable :: msg
    msg = gpuopt_message()
    call expect(st /= GPUOPT_SUCCESS, fn // ' failed')
    call expect(index(msg, fn) > 0, fn // ' is named by its message: "' // msg // '"')
  end subroutine
end program host_checks
