!> gpuopt: the C ABI of include/gpuopt.h for Fortran, through iso_c_binding.
!>
!> - Handles (gpuopt_context_t, gpuopt_stream_t, gpuopt_buffer_t, gpuopt_graph_t) are type(c_ptr).
!> - Every enum value and numeric macro is an integer(c_int) parameter of the same name, except
!>   where Fortran (case-insensitive) cannot tell it from a function: GPUOPT_VERSION is
!>   GPUOPT_HEADER_VERSION, GPUOPT_GDN_FORWARD and GPUOPT_GDN_BACKWARD are GPUOPT_GDN_FORWARD_PASS
!>   and GPUOPT_GDN_BACKWARD_PASS.
!> - Every struct is a bind(c) derived type of the same name; its struct_size component starts
!>   as 0: set it with c_sizeof(), or use the gpuopt_*_desc() constructors below.
!> - Every function is an interface with bind(c) and returns integer(c_int), the status.
!>   Pointers that may be NULL (const char*, host and device addresses) are type(c_ptr), value.
!> - Convenience procedures: gpuopt_copy_to_device / gpuopt_copy_from_device (Fortran arrays of
!>   real64, real32, int32, int64, any rank, contiguous), gpuopt_dgemm_dev / gpuopt_sgemm_dev and
!>   gpuopt_reduce_dev (device pointers), gpuopt_fstring (C string to Fortran), gpuopt_message
!>   (the thread's last error message), gpuopt_set_variant and gpuopt_set_tune_cache (Fortran
!>   strings).
!>
!> Kept in step with the header by the ctests fortran_binding_coverage (every function) and
!> fortran_binding_enums (every value).
module gpuopt
  use, intrinsic :: iso_c_binding
  implicit none
  private :: copy_in_f64, copy_in_f32, copy_in_i32, copy_in_i64
  private :: copy_out_f64, copy_out_f32, copy_out_i32, copy_out_i64, copy_in, copy_out

  ! --- numeric macros --------------------------------------------------------------------------
  integer(c_int), parameter :: GPUOPT_VERSION_MAJOR = 0
  integer(c_int), parameter :: GPUOPT_VERSION_MINOR = 1
  integer(c_int), parameter :: GPUOPT_VERSION_PATCH = 0
  integer(c_int), parameter :: GPUOPT_HEADER_VERSION = GPUOPT_VERSION_MAJOR * 10000 + &
                                                       GPUOPT_VERSION_MINOR * 100 + &
                                                       GPUOPT_VERSION_PATCH
  integer(c_int), parameter :: GPUOPT_STENCIL_MAX_RADIUS = 8
  integer(c_int), parameter :: GPUOPT_COMM_ID_BYTES = 128
  integer(c_int), parameter :: GPUOPT_COMM_ID_HEX_SIZE = 257
  integer(c_int), parameter :: GPUOPT_COMM_SPLIT_NONE = -1

  ! --- gpuopt_status_t ------------------------------------------------------------------------
  integer(c_int), parameter :: GPUOPT_SUCCESS = 0
  integer(c_int), parameter :: GPUOPT_ERROR_INVALID_ARGUMENT = 1
  integer(c_int), parameter :: GPUOPT_ERROR_INVALID_HANDLE = 2
  integer(c_int), parameter :: GPUOPT_ERROR_NO_DEVICE = 3
  integer(c_int), parameter :: GPUOPT_ERROR_UNSUPPORTED = 4
  integer(c_int), parameter :: GPUOPT_ERROR_OUT_OF_MEMORY = 5
  integer(c_int), parameter :: GPUOPT_ERROR_MISALIGNED = 6
  integer(c_int), parameter :: GPUOPT_ERROR_CAPTURE_ILLEGAL = 7
  integer(c_int), parameter :: GPUOPT_ERROR_NOT_FOUND = 8
  integer(c_int), parameter :: GPUOPT_ERROR_CUDA = 9
  integer(c_int), parameter :: GPUOPT_ERROR_CUBLAS = 10
  integer(c_int), parameter :: GPUOPT_ERROR_INTERNAL = 11
  integer(c_int), parameter :: GPUOPT_ERROR_WRONG_DEVICE = 12
  integer(c_int), parameter :: GPUOPT_ERROR_COMM = 13
  ! --- gpuopt_pointer_checks_t ----------------------------------------------------------------
  integer(c_int), parameter :: GPUOPT_POINTER_CHECKS_FULL = 0
  integer(c_int), parameter :: GPUOPT_POINTER_CHECKS_CACHED = 1
  ! --- gpuopt_memory_kind_t -------------------------------------------------------------------
  integer(c_int), parameter :: GPUOPT_MEMORY_DEVICE = 0
  integer(c_int), parameter :: GPUOPT_MEMORY_PINNED_HOST = 1
  integer(c_int), parameter :: GPUOPT_MEMORY_MAPPED = 2
  integer(c_int), parameter :: GPUOPT_MEMORY_COMPRESSIBLE = 3
  integer(c_int), parameter :: GPUOPT_MEMORY_EXTERNAL = 4
  ! --- gpuopt_op_t ----------------------------------------------------------------------------
  integer(c_int), parameter :: GPUOPT_OP_AXPY = 0
  integer(c_int), parameter :: GPUOPT_OP_GEMM = 1
  integer(c_int), parameter :: GPUOPT_OP_REDUCE = 2
  integer(c_int), parameter :: GPUOPT_OP_SEGMENTED_SORT = 3
  integer(c_int), parameter :: GPUOPT_OP_STENCIL = 4
  integer(c_int), parameter :: GPUOPT_OP_TRANSPOSE = 5
  integer(c_int), parameter :: GPUOPT_OP_GDN = 6
  ! --- gpuopt_dtype_t -------------------------------------------------------------------------
  integer(c_int), parameter :: GPUOPT_DTYPE_F32 = 0
  integer(c_int), parameter :: GPUOPT_DTYPE_F64 = 1
  integer(c_int), parameter :: GPUOPT_DTYPE_F16 = 2
  integer(c_int), parameter :: GPUOPT_DTYPE_BF16 = 3
  integer(c_int), parameter :: GPUOPT_DTYPE_I32 = 4
  integer(c_int), parameter :: GPUOPT_DTYPE_I64 = 5
  integer(c_int), parameter :: GPUOPT_DTYPE_U32 = 6
  integer(c_int), parameter :: GPUOPT_DTYPE_U64 = 7
  ! --- gpuopt_transpose_t, gpuopt_compute_t ---------------------------------------------------
  integer(c_int), parameter :: GPUOPT_TRANS_N = 0
  integer(c_int), parameter :: GPUOPT_TRANS_T = 1
  integer(c_int), parameter :: GPUOPT_COMPUTE_DEFAULT = 0
  integer(c_int), parameter :: GPUOPT_COMPUTE_F32 = 1
  integer(c_int), parameter :: GPUOPT_COMPUTE_TF32 = 2
  integer(c_int), parameter :: GPUOPT_COMPUTE_F64 = 3
  ! --- gpuopt_reduce_op_t, gpuopt_reduce_mode_t -----------------------------------------------
  integer(c_int), parameter :: GPUOPT_REDUCE_SUM = 0
  integer(c_int), parameter :: GPUOPT_REDUCE_MIN = 1
  integer(c_int), parameter :: GPUOPT_REDUCE_MAX = 2
  integer(c_int), parameter :: GPUOPT_REDUCE_ARGMIN = 3
  integer(c_int), parameter :: GPUOPT_REDUCE_ARGMAX = 4
  integer(c_int), parameter :: GPUOPT_REDUCE_DETERMINISTIC = 0
  integer(c_int), parameter :: GPUOPT_REDUCE_FAST = 1
  ! --- gpuopt_sort_order_t, gpuopt_boundary_t, gpuopt_gdn_pass_t ------------------------------
  integer(c_int), parameter :: GPUOPT_SORT_ASCENDING = 0
  integer(c_int), parameter :: GPUOPT_SORT_DESCENDING = 1
  integer(c_int), parameter :: GPUOPT_BOUNDARY_ZERO = 0
  integer(c_int), parameter :: GPUOPT_BOUNDARY_CLAMP = 1
  ! GPUOPT_GDN_FORWARD / _BACKWARD: Fortran cannot tell them from the functions gpuopt_gdn_forward
  ! and gpuopt_gdn_backward (names are case-insensitive), so they carry _PASS here.
  integer(c_int), parameter :: GPUOPT_GDN_FORWARD_PASS = 0
  integer(c_int), parameter :: GPUOPT_GDN_BACKWARD_PASS = 1
  ! --- gpuopt_log_level_t ---------------------------------------------------------------------
  integer(c_int), parameter :: GPUOPT_LOG_OFF = 0
  integer(c_int), parameter :: GPUOPT_LOG_INFO = 1
  integer(c_int), parameter :: GPUOPT_LOG_DEBUG = 2

  ! --- structs --------------------------------------------------------------------------------
  type, bind(c) :: gpuopt_device_info_t
    integer(c_size_t) :: struct_size = 0
    integer(c_int) :: device = 0
    character(kind=c_char) :: name(256) = c_null_char
    integer(c_int) :: cc_major = 0, cc_minor = 0, sm_count = 0, max_threads_per_sm = 0
    integer(c_size_t) :: total_memory = 0, l2_cache_bytes = 0
    integer(c_size_t) :: shared_memory_per_block_optin = 0, shared_memory_per_sm = 0
    integer(c_int) :: supports_clusters = 0, supports_tma = 0, supports_compression = 0
    integer(c_int) :: supports_mapped_memory = 0, memory_clock_khz = 0
    integer(c_int) :: memory_bus_width_bits = 0
    real(c_double) :: theoretical_bandwidth_gbs = 0
    integer(c_int) :: driver_version = 0, runtime_version = 0
  end type

  !> gpuopt_context_set_allocator: allocate and deallocate are c_funloc of bind(c) functions
  !> (type(c_ptr) function allocate(bytes, cuda_stream, user), both arguments by value).
  type, bind(c) :: gpuopt_allocator_t
    integer(c_size_t) :: struct_size = 0
    type(c_funptr) :: allocate = c_null_funptr
    type(c_funptr) :: deallocate = c_null_funptr
    type(c_ptr) :: user = c_null_ptr
  end type

  type, bind(c) :: gpuopt_variant_info_t
    integer(c_size_t) :: struct_size = 0
    type(c_ptr) :: name = c_null_ptr       ! const char*, static: gpuopt_fstring(info%name)
    type(c_ptr) :: technique = c_null_ptr
    integer(c_int) :: min_cc = 0, exact_cc = 0, is_vendor = 0, available = 0
    integer(c_int) :: dtype_mask = 0       ! unsigned in C: bit (1 << dtype)
  end type

  !> What gpuopt_tune measured (variant, config: static C strings, gpuopt_fstring(result%variant);
  !> config is c_null_ptr for the rung's own rule).
  type, bind(c) :: gpuopt_tune_result_t
    integer(c_size_t) :: struct_size = 0
    type(c_ptr) :: variant = c_null_ptr
    real(c_double) :: ms = 0
    integer(c_int) :: timed = 0, refused = 0
    type(c_ptr) :: config = c_null_ptr
  end type

  type, bind(c) :: gpuopt_gemm_desc_t
    integer(c_size_t) :: struct_size = 0
    integer(c_int) :: trans_a = GPUOPT_TRANS_N, trans_b = GPUOPT_TRANS_N
    integer(c_int64_t) :: m = 0, n = 0, k = 0
    real(c_double) :: alpha = 1, beta = 0
    integer(c_int) :: a_type = GPUOPT_DTYPE_F64, c_type = GPUOPT_DTYPE_F64
    integer(c_int) :: compute = GPUOPT_COMPUTE_DEFAULT
    integer(c_int64_t) :: lda = 1, ldb = 1, ldc = 1
    integer(c_int64_t) :: batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0
  end type

  type, bind(c) :: gpuopt_reduce_desc_t
    integer(c_size_t) :: struct_size = 0
    integer(c_int) :: op = GPUOPT_REDUCE_SUM, in_type = GPUOPT_DTYPE_F64
    integer(c_int64_t) :: n = 0, num_segments = 1, segment_stride = 0
    type(c_ptr) :: offsets = c_null_ptr    ! device array of int64, or NULL
    integer(c_int) :: mode = GPUOPT_REDUCE_DETERMINISTIC
  end type

  type, bind(c) :: gpuopt_segmented_sort_desc_t
    integer(c_size_t) :: struct_size = 0
    integer(c_int) :: key_type = GPUOPT_DTYPE_F32, value_bytes = 0
    integer(c_int) :: order = GPUOPT_SORT_ASCENDING
    integer(c_int64_t) :: num_items = 0, num_segments = 0, segment_size = 0
    type(c_ptr) :: offsets = c_null_ptr
  end type

  type, bind(c) :: gpuopt_stencil_desc_t
    integer(c_size_t) :: struct_size = 0
    integer(c_int) :: dtype = GPUOPT_DTYPE_F32, dims = 2, radius = 1
    integer(c_int) :: boundary = GPUOPT_BOUNDARY_ZERO
    integer(c_int64_t) :: nx = 0, ny = 0, nz = 1
    integer(c_int64_t) :: in_pitch = 0, in_slice_pitch = 0, out_pitch = 0, out_slice_pitch = 0
    type(c_ptr) :: coeffs = c_null_ptr     ! host array of real(c_double): c_loc(coeffs)
  end type

  type, bind(c) :: gpuopt_transpose_desc_t
    integer(c_size_t) :: struct_size = 0
    integer(c_int) :: dtype = GPUOPT_DTYPE_F32
    integer(c_int64_t) :: rows = 0, cols = 0, lda = 1, ldb = 1
  end type

  type, bind(c) :: gpuopt_gdn_desc_t
    integer(c_size_t) :: struct_size = 0
    integer(c_int64_t) :: batch = 0, channels = 1, height = 0, width = 0
    integer(c_int) :: inverse = 0, compute = GPUOPT_COMPUTE_DEFAULT
  end type

  ! --- gpuopt_log_fn: what gpuopt_set_log_callback takes, as c_funloc(sink) ------------------
  abstract interface
    !> A log sink: level (GPUOPT_LOG_INFO or _DEBUG), message (a C string valid during the call:
    !> gpuopt_fstring(message)), user (the pointer given to gpuopt_set_log_callback).
    subroutine gpuopt_log_fn(level, message, user) bind(c)
      import :: c_int, c_ptr
      integer(c_int), value :: level
      type(c_ptr), value :: message, user
    end subroutine
  end interface
  ! --- gpuopt_tune_call_fn: what gpuopt_tune takes, as c_funloc(call) -------------------------
  abstract interface
    !> One call of the tuned op on gpuopt_tune's stream; returns its status. user: gpuopt_tune's.
    integer(c_int) function gpuopt_tune_call_fn(user) bind(c)
      import :: c_int, c_ptr
      type(c_ptr), value :: user
    end function
  end interface
  !> A communicator's rendezvous id; handles gpuopt_comm_t and gpuopt_grid_t are type(c_ptr).
  type, bind(c) :: gpuopt_comm_id_t
    integer(c_signed_char) :: bytes(GPUOPT_COMM_ID_BYTES) = 0_c_signed_char
  end type

  type, bind(c) :: gpuopt_dist_desc_t
    integer(c_size_t) :: struct_size = 0
    integer(c_int) :: dtype = GPUOPT_DTYPE_F64
    integer(c_int64_t) :: rows = 0, cols = 0, row_block = 1, col_block = 1
    integer(c_int) :: grid_rows = 1, grid_cols = 1
    integer(c_int64_t) :: ld = 1
  end type

  type, bind(c) :: gpuopt_gemm_dist_desc_t
    integer(c_size_t) :: struct_size = 0
    integer(c_int64_t) :: m = 0, n = 0, k = 0
    real(c_double) :: alpha = 1.0_c_double, beta = 0.0_c_double
    integer(c_int) :: a_type = GPUOPT_DTYPE_F64, c_type = GPUOPT_DTYPE_F64
    integer(c_int) :: compute = GPUOPT_COMPUTE_DEFAULT
    integer(c_int64_t) :: mb = 1, nb = 1, kb = 1, lda = 1, ldb = 1, ldc = 1
  end type

  ! --- functions ------------------------------------------------------------------------------
  interface
    ! base
    integer(c_int) function gpuopt_version() bind(c, name='gpuopt_version')
      import :: c_int
    end function
    type(c_ptr) function gpuopt_version_string() bind(c, name='gpuopt_version_string')
      import :: c_ptr
    end function
    type(c_ptr) function gpuopt_status_name(status) bind(c, name='gpuopt_status_name')
      import :: c_ptr, c_int
      integer(c_int), value :: status
    end function
    integer(c_int) function gpuopt_last_error_message(buf, size, length) &
        bind(c, name='gpuopt_last_error_message')
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: buf, length  ! char*, size_t* (either may be c_null_ptr)
      integer(c_size_t), value :: size
    end function
    ! logging
    !> fn: c_funloc of a bind(c) subroutine with gpuopt_log_fn's interface, or c_null_funptr
    !> (back to stderr).
    integer(c_int) function gpuopt_set_log_callback(fn, user) &
        bind(c, name='gpuopt_set_log_callback')
      import :: c_int, c_funptr, c_ptr
      type(c_funptr), value :: fn
      type(c_ptr), value :: user
    end function
    integer(c_int) function gpuopt_set_log_level(level) bind(c, name='gpuopt_set_log_level')
      import :: c_int
      integer(c_int), value :: level
    end function
    integer(c_int) function gpuopt_get_log_level(level) bind(c, name='gpuopt_get_log_level')
      import :: c_int
      integer(c_int), intent(out) :: level
    end function
    ! devices
    integer(c_int) function gpuopt_device_count(count) bind(c, name='gpuopt_device_count')
      import :: c_int
      integer(c_int), intent(out) :: count
    end function
    integer(c_int) function gpuopt_device_info(device, info) bind(c, name='gpuopt_device_info')
      import :: c_int, gpuopt_device_info_t
      integer(c_int), value :: device
      type(gpuopt_device_info_t), intent(inout) :: info
    end function
    ! contexts
    integer(c_int) function gpuopt_context_create(device, ctx) &
        bind(c, name='gpuopt_context_create')
      import :: c_int, c_ptr
      integer(c_int), value :: device
      type(c_ptr), intent(out) :: ctx
    end function
    integer(c_int) function gpuopt_context_destroy(ctx) bind(c, name='gpuopt_context_destroy')
      import :: c_int, c_ptr
      type(c_ptr), value :: ctx
    end function
    integer(c_int) function gpuopt_context_device_info(ctx, info) &
        bind(c, name='gpuopt_context_device_info')
      import :: c_int, c_ptr, gpuopt_device_info_t
      type(c_ptr), value :: ctx
      type(gpuopt_device_info_t), intent(inout) :: info
    end function
    integer(c_int) function gpuopt_context_set_allocator(ctx, allocator) &
        bind(c, name='gpuopt_context_set_allocator')
      import :: c_int, c_ptr
      type(c_ptr), value :: ctx
      type(c_ptr), value :: allocator  ! c_loc of a gpuopt_allocator_t, or c_null_ptr
    end function
    ! pointer checks (docs/memory.md)
    integer(c_int) function gpuopt_context_set_pointer_checks(ctx, mode) &
        bind(c, name='gpuopt_context_set_pointer_checks')
      import :: c_int, c_ptr
      type(c_ptr), value :: ctx
      integer(c_int), value :: mode  ! GPUOPT_POINTER_CHECKS_FULL or _CACHED
    end function
    integer(c_int) function gpuopt_context_pointer_checks(ctx, mode) &
        bind(c, name='gpuopt_context_pointer_checks')
      import :: c_int, c_ptr
      type(c_ptr), value :: ctx
      integer(c_int), intent(out) :: mode
    end function
    integer(c_int) function gpuopt_context_forget_pointers(ctx) &
        bind(c, name='gpuopt_context_forget_pointers')
      import :: c_int, c_ptr
      type(c_ptr), value :: ctx
    end function
    ! streams
    integer(c_int) function gpuopt_stream_create(ctx, stream) &
        bind(c, name='gpuopt_stream_create')
      import :: c_int, c_ptr
      type(c_ptr), value :: ctx
      type(c_ptr), intent(out) :: stream
    end function
    integer(c_int) function gpuopt_stream_wrap(ctx, cuda_stream, stream) &
        bind(c, name='gpuopt_stream_wrap')
      import :: c_int, c_ptr
      type(c_ptr), value :: ctx, cuda_stream
      type(c_ptr), intent(out) :: stream
    end function
    integer(c_int) function gpuopt_stream_native(stream, cuda_stream) &
        bind(c, name='gpuopt_stream_native')
      import :: c_int, c_ptr
      type(c_ptr), value :: stream
      type(c_ptr), intent(out) :: cuda_stream
    end function
    integer(c_int) function gpuopt_stream_synchronize(stream) &
        bind(c, name='gpuopt_stream_synchronize')
      import :: c_int, c_ptr
      type(c_ptr), value :: stream
    end function
    integer(c_int) function gpuopt_stream_destroy(stream) bind(c, name='gpuopt_stream_destroy')
      import :: c_int, c_ptr
      type(c_ptr), value :: stream
    end function
    ! buffers
    integer(c_int) function gpuopt_buffer_create(ctx, bytes, kind, buffer) &
        bind(c, name='gpuopt_buffer_create')
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: ctx
      integer(c_size_t), value :: bytes
      integer(c_int), value :: kind
      type(c_ptr), intent(out) :: buffer
    end function
    integer(c_int) function gpuopt_buffer_wrap(ctx, device_ptr, bytes, buffer) &
        bind(c, name='gpuopt_buffer_wrap')
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: ctx, device_ptr
      integer(c_size_t), value :: bytes
      type(c_ptr), intent(out) :: buffer
    end function
    integer(c_int) function gpuopt_buffer_device_pointer(buffer, ptr) &
        bind(c, name='gpuopt_buffer_device_pointer')
      import :: c_int, c_ptr
      type(c_ptr), value :: buffer
      type(c_ptr), intent(out) :: ptr
    end function
    integer(c_int) function gpuopt_buffer_host_pointer(buffer, ptr) &
        bind(c, name='gpuopt_buffer_host_pointer')
      import :: c_int, c_ptr
      type(c_ptr), value :: buffer
      type(c_ptr), intent(out) :: ptr
    end function
    integer(c_int) function gpuopt_buffer_size(buffer, bytes) bind(c, name='gpuopt_buffer_size')
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: buffer
      integer(c_size_t), intent(out) :: bytes
    end function
    integer(c_int) function gpuopt_buffer_kind(buffer, kind) bind(c, name='gpuopt_buffer_kind')
      import :: c_int, c_ptr
      type(c_ptr), value :: buffer
      integer(c_int), intent(out) :: kind
    end function
    integer(c_int) function gpuopt_buffer_is_compressed(buffer, compressed) &
        bind(c, name='gpuopt_buffer_is_compressed')
      import :: c_int, c_ptr
      type(c_ptr), value :: buffer
      integer(c_int), intent(out) :: compressed
    end function
    integer(c_int) function gpuopt_buffer_copy_from_host(buffer, stream, offset, src, bytes) &
        bind(c, name='gpuopt_buffer_copy_from_host')
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: buffer, stream, src
      integer(c_size_t), value :: offset, bytes
    end function
    integer(c_int) function gpuopt_buffer_copy_to_host(buffer, stream, offset, dst, bytes) &
        bind(c, name='gpuopt_buffer_copy_to_host')
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: buffer, stream, dst
      integer(c_size_t), value :: offset, bytes
    end function
    integer(c_int) function gpuopt_buffer_destroy(buffer) bind(c, name='gpuopt_buffer_destroy')
      import :: c_int, c_ptr
      type(c_ptr), value :: buffer
    end function
    integer(c_int) function gpuopt_buffer_destroy_async(buffer, stream) &
        bind(c, name='gpuopt_buffer_destroy_async')
      import :: c_int, c_ptr
      type(c_ptr), value :: buffer, stream
    end function
    ! graphs
    integer(c_int) function gpuopt_graph_begin(ctx, stream) bind(c, name='gpuopt_graph_begin')
      import :: c_int, c_ptr
      type(c_ptr), value :: ctx, stream
    end function
    integer(c_int) function gpuopt_graph_end(stream, graph) bind(c, name='gpuopt_graph_end')
      import :: c_int, c_ptr
      type(c_ptr), value :: stream
      type(c_ptr), intent(out) :: graph
    end function
    integer(c_int) function gpuopt_graph_end_update(stream, graph, in_place) &
        bind(c, name='gpuopt_graph_end_update')
      import :: c_int, c_ptr
      type(c_ptr), value :: stream, graph
      integer(c_int), intent(out) :: in_place
    end function
    integer(c_int) function gpuopt_graph_launch(graph, stream) bind(c, name='gpuopt_graph_launch')
      import :: c_int, c_ptr
      type(c_ptr), value :: graph, stream
    end function
    integer(c_int) function gpuopt_graph_destroy(graph) bind(c, name='gpuopt_graph_destroy')
      import :: c_int, c_ptr
      type(c_ptr), value :: graph
    end function
    ! variants and dispatch
    type(c_ptr) function gpuopt_op_name(op) bind(c, name='gpuopt_op_name')
      import :: c_ptr, c_int
      integer(c_int), value :: op
    end function
    type(c_ptr) function gpuopt_dtype_name(dtype) bind(c, name='gpuopt_dtype_name')
      import :: c_ptr, c_int
      integer(c_int), value :: dtype
    end function
    integer(c_int) function gpuopt_variant_count(ctx, op, count) &
        bind(c, name='gpuopt_variant_count')
      import :: c_int, c_ptr
      type(c_ptr), value :: ctx
      integer(c_int), value :: op
      integer(c_int), intent(out) :: count
    end function
    integer(c_int) function gpuopt_variant_name(ctx, op, index, name) &
        bind(c, name='gpuopt_variant_name')
      import :: c_int, c_ptr
      type(c_ptr), value :: ctx
      integer(c_int), value :: op, index
      type(c_ptr), intent(out) :: name
    end function
    integer(c_int) function gpuopt_variant_info(ctx, op, index, info) &
        bind(c, name='gpuopt_variant_info')
      import :: c_int, c_ptr, gpuopt_variant_info_t
      type(c_ptr), value :: ctx
      integer(c_int), value :: op, index
      type(gpuopt_variant_info_t), intent(inout) :: info
    end function
    integer(c_int) function gpuopt_context_set_variant(ctx, op, name) &
        bind(c, name='gpuopt_context_set_variant')
      import :: c_int, c_ptr
      type(c_ptr), value :: ctx, name  ! name: NUL-terminated, or c_null_ptr for "auto"
      integer(c_int), value :: op
    end function
    integer(c_int) function gpuopt_context_get_variant(ctx, op, name) &
        bind(c, name='gpuopt_context_get_variant')
      import :: c_int, c_ptr
      type(c_ptr), value :: ctx
      integer(c_int), value :: op
      type(c_ptr), intent(out) :: name
    end function
    integer(c_int) function gpuopt_last_variant(ctx, op, name) bind(c, name='gpuopt_last_variant')
      import :: c_int, c_ptr
      type(c_ptr), value :: ctx
      integer(c_int), value :: op
      type(c_ptr), intent(out) :: name
    end function
    ! tuning cache (docs/tuning.md)
    integer(c_int) function gpuopt_context_set_tune_cache(ctx, path) &
        bind(c, name='gpuopt_context_set_tune_cache')
      import :: c_int, c_ptr
      type(c_ptr), value :: ctx, path  ! path: NUL-terminated, or c_null_ptr to detach
    end function
    integer(c_int) function gpuopt_context_tune_cache_entries(ctx, entries) &
        bind(c, name='gpuopt_context_tune_cache_entries')
      import :: c_int, c_ptr
      type(c_ptr), value :: ctx
      integer(c_int), intent(out) :: entries
    end function
    !> call: c_funloc of a bind(c) function with gpuopt_tune_call_fn's interface; result may be
    !> passed as a gpuopt_tune_result_t with struct_size = c_sizeof(result).
    integer(c_int) function gpuopt_tune(ctx, stream, op, call, user, budget_seconds, result) &
        bind(c, name='gpuopt_tune')
      import :: c_int, c_ptr, c_funptr, c_double, gpuopt_tune_result_t
      type(c_ptr), value :: ctx, stream, user
      integer(c_int), value :: op
      type(c_funptr), value :: call
      real(c_double), value :: budget_seconds
      type(gpuopt_tune_result_t), intent(inout) :: result
    end function
    ! operations
    integer(c_int) function gpuopt_axpy(ctx, stream, dtype, n, alpha, x, incx, y, incy) &
        bind(c, name='gpuopt_axpy')
      import :: c_int, c_ptr, c_int64_t, c_double
      type(c_ptr), value :: ctx, stream, x, y
      integer(c_int), value :: dtype
      integer(c_int64_t), value :: n, incx, incy
      real(c_double), value :: alpha
    end function
    integer(c_int) function gpuopt_gemm(ctx, stream, desc, a, b, c) bind(c, name='gpuopt_gemm')
      import :: c_int, c_ptr, gpuopt_gemm_desc_t
      type(c_ptr), value :: ctx, stream, a, b, c
      type(gpuopt_gemm_desc_t), intent(in) :: desc
    end function
    integer(c_int) function gpuopt_reduce(ctx, stream, desc, in, out) &
        bind(c, name='gpuopt_reduce')
      import :: c_int, c_ptr, gpuopt_reduce_desc_t
      type(c_ptr), value :: ctx, stream, in, out
      type(gpuopt_reduce_desc_t), intent(in) :: desc
    end function
    type(c_ptr) function gpuopt_reduce_op_name(op) bind(c, name='gpuopt_reduce_op_name')
      import :: c_ptr, c_int
      integer(c_int), value :: op
    end function
    integer(c_int) function gpuopt_segmented_sort_workspace_size(ctx, desc, bytes) &
        bind(c, name='gpuopt_segmented_sort_workspace_size')
      import :: c_int, c_ptr, c_size_t, gpuopt_segmented_sort_desc_t
      type(c_ptr), value :: ctx
      type(gpuopt_segmented_sort_desc_t), intent(in) :: desc
      integer(c_size_t), intent(out) :: bytes
    end function
    integer(c_int) function gpuopt_segmented_sort(ctx, stream, desc, keys_in, keys_out, &
        values_in, values_out, workspace, workspace_bytes) bind(c, name='gpuopt_segmented_sort')
      import :: c_int, c_ptr, c_size_t, gpuopt_segmented_sort_desc_t
      type(c_ptr), value :: ctx, stream, keys_in, keys_out, values_in, values_out, workspace
      type(gpuopt_segmented_sort_desc_t), intent(in) :: desc
      integer(c_size_t), value :: workspace_bytes
    end function
    integer(c_int) function gpuopt_stencil(ctx, stream, desc, in, out) &
        bind(c, name='gpuopt_stencil')
      import :: c_int, c_ptr, gpuopt_stencil_desc_t
      type(c_ptr), value :: ctx, stream, in, out
      type(gpuopt_stencil_desc_t), intent(in) :: desc
    end function
    integer(c_int) function gpuopt_transpose(ctx, stream, desc, a, b) &
        bind(c, name='gpuopt_transpose')
      import :: c_int, c_ptr, gpuopt_transpose_desc_t
      type(c_ptr), value :: ctx, stream, a, b
      type(gpuopt_transpose_desc_t), intent(in) :: desc
    end function
    integer(c_int) function gpuopt_gdn_workspace_size(ctx, desc, pass, bytes) &
        bind(c, name='gpuopt_gdn_workspace_size')
      import :: c_int, c_ptr, c_size_t, gpuopt_gdn_desc_t
      type(c_ptr), value :: ctx
      type(gpuopt_gdn_desc_t), intent(in) :: desc
      integer(c_int), value :: pass
      integer(c_size_t), intent(out) :: bytes
    end function
    integer(c_int) function gpuopt_gdn_forward(ctx, stream, desc, x, beta, gamma, y, &
        workspace, workspace_bytes) bind(c, name='gpuopt_gdn_forward')
      import :: c_int, c_ptr, c_size_t, gpuopt_gdn_desc_t
      type(c_ptr), value :: ctx, stream, x, beta, gamma, y, workspace
      type(gpuopt_gdn_desc_t), intent(in) :: desc
      integer(c_size_t), value :: workspace_bytes
    end function
    integer(c_int) function gpuopt_gdn_backward(ctx, stream, desc, x, beta, gamma, dy, dx, &
        dbeta, dgamma, workspace, workspace_bytes) bind(c, name='gpuopt_gdn_backward')
      import :: c_int, c_ptr, c_size_t, gpuopt_gdn_desc_t
      type(c_ptr), value :: ctx, stream, x, beta, gamma, dy, dx, dbeta, dgamma, workspace
      type(gpuopt_gdn_desc_t), intent(in) :: desc
      integer(c_size_t), value :: workspace_bytes
    end function
  end interface

  ! --- multi-GPU: communicators, collectives, grids, distributed GEMM (docs/multi-gpu.md) --------
  interface
    integer(c_int) function gpuopt_comm_nccl_version(version) bind(c, name='gpuopt_comm_nccl_version')
      import :: c_int
      integer(c_int), intent(out) :: version
    end function
    integer(c_int) function gpuopt_comm_id_create(id) bind(c, name='gpuopt_comm_id_create')
      import :: c_int, gpuopt_comm_id_t
      type(gpuopt_comm_id_t), intent(out) :: id
    end function
    integer(c_int) function gpuopt_comm_id_to_hex(id, hex, size) bind(c, name='gpuopt_comm_id_to_hex')
      import :: c_int, c_char, c_size_t, gpuopt_comm_id_t
      type(gpuopt_comm_id_t), intent(in) :: id
      character(kind=c_char), intent(out) :: hex(*)
      integer(c_size_t), value :: size
    end function
    integer(c_int) function gpuopt_comm_id_from_hex(hex, id) bind(c, name='gpuopt_comm_id_from_hex')
      import :: c_int, c_char, gpuopt_comm_id_t
      character(kind=c_char), intent(in) :: hex(*)
      type(gpuopt_comm_id_t), intent(out) :: id
    end function
    integer(c_int) function gpuopt_comm_create(ctx, id, nranks, rank, comm) &
        bind(c, name='gpuopt_comm_create')
      import :: c_int, c_ptr, gpuopt_comm_id_t
      type(c_ptr), value :: ctx
      type(gpuopt_comm_id_t), intent(in) :: id
      integer(c_int), value :: nranks, rank
      type(c_ptr), intent(out) :: comm
    end function
    integer(c_int) function gpuopt_comm_create_local(ctxs, count, comms) &
        bind(c, name='gpuopt_comm_create_local')
      import :: c_int, c_ptr
      type(c_ptr), intent(in) :: ctxs(*)
      integer(c_int), value :: count
      type(c_ptr), intent(out) :: comms(*)
    end function
    integer(c_int) function gpuopt_comm_split(comm, color, key, out) bind(c, name='gpuopt_comm_split')
      import :: c_int, c_ptr
      type(c_ptr), value :: comm
      integer(c_int), value :: color, key
      type(c_ptr), intent(out) :: out
    end function
    integer(c_int) function gpuopt_comm_rank(comm, rank) bind(c, name='gpuopt_comm_rank')
      import :: c_int, c_ptr
      type(c_ptr), value :: comm
      integer(c_int), intent(out) :: rank
    end function
    integer(c_int) function gpuopt_comm_size(comm, size) bind(c, name='gpuopt_comm_size')
      import :: c_int, c_ptr
      type(c_ptr), value :: comm
      integer(c_int), intent(out) :: size
    end function
    integer(c_int) function gpuopt_comm_device(comm, device) bind(c, name='gpuopt_comm_device')
      import :: c_int, c_ptr
      type(c_ptr), value :: comm
      integer(c_int), intent(out) :: device
    end function
    integer(c_int) function gpuopt_comm_set_checked(comm, checked) &
        bind(c, name='gpuopt_comm_set_checked')
      import :: c_int, c_ptr
      type(c_ptr), value :: comm
      integer(c_int), value :: checked
    end function
    integer(c_int) function gpuopt_comm_status(comm) bind(c, name='gpuopt_comm_status')
      import :: c_int, c_ptr
      type(c_ptr), value :: comm
    end function
    integer(c_int) function gpuopt_comm_abort(comm) bind(c, name='gpuopt_comm_abort')
      import :: c_int, c_ptr
      type(c_ptr), value :: comm
    end function
    integer(c_int) function gpuopt_comm_destroy(comm) bind(c, name='gpuopt_comm_destroy')
      import :: c_int, c_ptr
      type(c_ptr), value :: comm
    end function
    integer(c_int) function gpuopt_group_begin() bind(c, name='gpuopt_group_begin')
      import :: c_int
    end function
    integer(c_int) function gpuopt_group_end() bind(c, name='gpuopt_group_end')
      import :: c_int
    end function
    integer(c_int) function gpuopt_allreduce(comm, stream, dtype, op, send, recv, count) &
        bind(c, name='gpuopt_allreduce')
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: comm, stream, send, recv
      integer(c_int), value :: dtype, op
      integer(c_int64_t), value :: count
    end function
    integer(c_int) function gpuopt_reduce_scatter(comm, stream, dtype, op, send, recv, &
        recv_count) bind(c, name='gpuopt_reduce_scatter')
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: comm, stream, send, recv
      integer(c_int), value :: dtype, op
      integer(c_int64_t), value :: recv_count
    end function
    integer(c_int) function gpuopt_allgather(comm, stream, dtype, send, recv, send_count) &
        bind(c, name='gpuopt_allgather')
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: comm, stream, send, recv
      integer(c_int), value :: dtype
      integer(c_int64_t), value :: send_count
    end function
    integer(c_int) function gpuopt_broadcast(comm, stream, dtype, send, recv, count, root) &
        bind(c, name='gpuopt_broadcast')
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: comm, stream, send, recv
      integer(c_int), value :: dtype, root
      integer(c_int64_t), value :: count
    end function
    integer(c_int) function gpuopt_reduce_dist(comm, stream, desc, x, out) &
        bind(c, name='gpuopt_reduce_dist')
      import :: c_int, c_ptr, gpuopt_reduce_desc_t
      type(c_ptr), value :: comm, stream, x, out
      type(gpuopt_reduce_desc_t), intent(in) :: desc
    end function
    integer(c_int) function gpuopt_grid_create(comm, grid_rows, grid_cols, grid) &
        bind(c, name='gpuopt_grid_create')
      import :: c_int, c_ptr
      type(c_ptr), value :: comm
      integer(c_int), value :: grid_rows, grid_cols
      type(c_ptr), intent(out) :: grid
    end function
    integer(c_int) function gpuopt_grid_info(grid, grid_rows, grid_cols, my_row, my_col) &
        bind(c, name='gpuopt_grid_info')
      import :: c_int, c_ptr
      type(c_ptr), value :: grid
      integer(c_int), intent(out) :: grid_rows, grid_cols, my_row, my_col
    end function
    integer(c_int) function gpuopt_grid_destroy(grid) bind(c, name='gpuopt_grid_destroy')
      import :: c_int, c_ptr
      type(c_ptr), value :: grid
    end function
    integer(c_int) function gpuopt_dist_local_shape(desc, grid_row, grid_col, local_rows, &
        local_cols) bind(c, name='gpuopt_dist_local_shape')
      import :: c_int, c_int64_t, gpuopt_dist_desc_t
      type(gpuopt_dist_desc_t), intent(in) :: desc
      integer(c_int), value :: grid_row, grid_col
      integer(c_int64_t), intent(out) :: local_rows, local_cols
    end function
    integer(c_int) function gpuopt_dist_locate(desc, i, j, grid_row, grid_col, local_i, &
        local_j) bind(c, name='gpuopt_dist_locate')
      import :: c_int, c_int64_t, gpuopt_dist_desc_t
      type(gpuopt_dist_desc_t), intent(in) :: desc
      integer(c_int64_t), value :: i, j
      integer(c_int), intent(out) :: grid_row, grid_col
      integer(c_int64_t), intent(out) :: local_i, local_j
    end function
    integer(c_int) function gpuopt_dist_scatter(grid, stream, desc, root, src, ld_src, local) &
        bind(c, name='gpuopt_dist_scatter')
      import :: c_int, c_ptr, c_int64_t, gpuopt_dist_desc_t
      type(c_ptr), value :: grid, stream, src, local
      type(gpuopt_dist_desc_t), intent(in) :: desc
      integer(c_int), value :: root
      integer(c_int64_t), value :: ld_src
    end function
    integer(c_int) function gpuopt_dist_gather(grid, stream, desc, root, local, dst, ld_dst) &
        bind(c, name='gpuopt_dist_gather')
      import :: c_int, c_ptr, c_int64_t, gpuopt_dist_desc_t
      type(c_ptr), value :: grid, stream, local, dst
      type(gpuopt_dist_desc_t), intent(in) :: desc
      integer(c_int), value :: root
      integer(c_int64_t), value :: ld_dst
    end function
    integer(c_int) function gpuopt_gemm_dist_workspace_size(grid, desc, bytes) &
        bind(c, name='gpuopt_gemm_dist_workspace_size')
      import :: c_int, c_ptr, c_size_t, gpuopt_gemm_dist_desc_t
      type(c_ptr), value :: grid
      type(gpuopt_gemm_dist_desc_t), intent(in) :: desc
      integer(c_size_t), intent(out) :: bytes
    end function
    integer(c_int) function gpuopt_gemm_dist(grid, stream, desc, a, b, c, workspace, &
        workspace_bytes) bind(c, name='gpuopt_gemm_dist')
      import :: c_int, c_ptr, c_size_t, gpuopt_gemm_dist_desc_t
      type(c_ptr), value :: grid, stream, a, b, c, workspace
      type(gpuopt_gemm_dist_desc_t), intent(in) :: desc
      integer(c_size_t), value :: workspace_bytes
    end function
  end interface

  interface
    integer(c_size_t) function c_strlen(s) bind(c, name='strlen')
      import :: c_size_t, c_ptr
      type(c_ptr), value :: s
    end function
  end interface

  !> Host array -> gpuopt buffer: status = gpuopt_copy_to_device(buffer, stream, array
  !> [, offset_bytes]). Arrays of real64, real32, int32, int64, any rank, contiguous, target.
  interface gpuopt_copy_to_device
    module procedure copy_in_f64, copy_in_f32, copy_in_i32, copy_in_i64
  end interface
  !> gpuopt buffer -> host array: status = gpuopt_copy_from_device(buffer, stream, array
  !> [, offset_bytes]). Enqueued: read the array after gpuopt_stream_synchronize().
  interface gpuopt_copy_from_device
    module procedure copy_out_f64, copy_out_f32, copy_out_i32, copy_out_i64
  end interface

contains

  !> A C string (const char*, NUL-terminated) as a Fortran string; '' for c_null_ptr.
  function gpuopt_fstring(p) result(s)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: s
    character(kind=c_char), pointer :: chars(:)
    integer(c_size_t) :: n, i
    if (.not. c_associated(p)) then
      s = ''
      return
    end if
    n = c_strlen(p)
    call c_f_pointer(p, chars, [n])
    allocate (character(len=n) :: s)
    do i = 1, n
      s(i:i) = chars(i)
    end do
  end function

  !> The calling thread's message for its last failed gpuopt call.
  function gpuopt_message() result(s)
    character(len=:), allocatable :: s
    integer(c_size_t), target :: length
    character(kind=c_char), allocatable, target :: buf(:)
    integer(c_int) :: st
    integer(c_size_t) :: i
    length = 0
    st = gpuopt_last_error_message(c_null_ptr, 0_c_size_t, c_loc(length))
    allocate (buf(length + 1))
    st = gpuopt_last_error_message(c_loc(buf), length + 1, c_null_ptr)
    allocate (character(len=length) :: s)
    do i = 1, length
      s(i:i) = buf(i)
    end do
  end function

  !> Forces variant `name` ('auto' for automatic choice) of `op` on `ctx`.
  integer(c_int) function gpuopt_set_variant(ctx, op, name) result(st)
    type(c_ptr), intent(in) :: ctx
    integer(c_int), intent(in) :: op
    character(len=*), intent(in) :: name
    character(kind=c_char, len=len(name) + 1), target :: cname
    cname = name // c_null_char
    st = gpuopt_context_set_variant(ctx, op, c_loc(cname))
  end function

  !> gpuopt_context_set_tune_cache with a Fortran string path.
  integer(c_int) function gpuopt_set_tune_cache(ctx, path) result(st)
    type(c_ptr), intent(in) :: ctx
    character(len=*), intent(in) :: path
    character(kind=c_char, len=len(path) + 1), target :: cpath
    cpath = path // c_null_char
    st = gpuopt_context_set_tune_cache(ctx, c_loc(cpath))
  end function

  !> C = alpha op(A) op(B) + beta C in real64 on device pointers (column-major, as Fortran).
  integer(c_int) function gpuopt_dgemm_dev(ctx, stream, trans_a, trans_b, m, n, k, alpha, a, &
                                           lda, b, ldb, beta, c, ldc) result(st)
    type(c_ptr), intent(in) :: ctx, stream, a, b, c
    integer(c_int), intent(in) :: trans_a, trans_b
    integer(c_int64_t), intent(in) :: m, n, k, lda, ldb, ldc
    real(c_double), intent(in) :: alpha, beta
    st = gemm_dev(ctx, stream, GPUOPT_DTYPE_F64, trans_a, trans_b, m, n, k, alpha, a, lda, b, &
                  ldb, beta, c, ldc)
  end function

  !> C = alpha op(A) op(B) + beta C in real32 (exact fp32) on device pointers.
  integer(c_int) function gpuopt_sgemm_dev(ctx, stream, trans_a, trans_b, m, n, k, alpha, a, &
                                           lda, b, ldb, beta, c, ldc) result(st)
    type(c_ptr), intent(in) :: ctx, stream, a, b, c
    integer(c_int), intent(in) :: trans_a, trans_b
    integer(c_int64_t), intent(in) :: m, n, k, lda, ldb, ldc
    real(c_double), intent(in) :: alpha, beta
    st = gemm_dev(ctx, stream, GPUOPT_DTYPE_F32, trans_a, trans_b, m, n, k, alpha, a, lda, b, &
                  ldb, beta, c, ldc)
  end function

  integer(c_int) function gemm_dev(ctx, stream, dtype, trans_a, trans_b, m, n, k, alpha, a, &
                                   lda, b, ldb, beta, c, ldc) result(st)
    type(c_ptr), intent(in) :: ctx, stream, a, b, c
    integer(c_int), intent(in) :: dtype, trans_a, trans_b
    integer(c_int64_t), intent(in) :: m, n, k, lda, ldb, ldc
    real(c_double), intent(in) :: alpha, beta
    type(gpuopt_gemm_desc_t) :: d
    d%struct_size = c_sizeof(d)
    d%trans_a = trans_a
    d%trans_b = trans_b
    d%m = m
    d%n = n
    d%k = k
    d%alpha = alpha
    d%beta = beta
    d%a_type = dtype
    d%c_type = dtype
    d%lda = lda
    d%ldb = ldb
    d%ldc = ldc
    st = gpuopt_gemm(ctx, stream, d, a, b, c)
  end function

  !> out(1) = op (GPUOPT_REDUCE_*) over n elements of type dtype at device pointer `in`; the
  !> result type is that of gpuopt_reduce()'s table (f64 sum: real64).
  integer(c_int) function gpuopt_reduce_dev(ctx, stream, op, dtype, n, in, out) result(st)
    type(c_ptr), intent(in) :: ctx, stream, in, out
    integer(c_int), intent(in) :: op, dtype
    integer(c_int64_t), intent(in) :: n
    type(gpuopt_reduce_desc_t) :: d
    d%struct_size = c_sizeof(d)
    d%op = op
    d%in_type = dtype
    d%n = n
    d%num_segments = 1
    d%segment_stride = n
    st = gpuopt_reduce(ctx, stream, d, in, out)
  end function

  integer(c_int) function copy_in(buffer, stream, p, bytes, offset) result(st)
    type(c_ptr), intent(in) :: buffer, stream, p
    integer(c_size_t), intent(in) :: bytes
    integer(c_size_t), intent(in), optional :: offset
    integer(c_size_t) :: off
    off = 0
    if (present(offset)) off = offset
    st = gpuopt_buffer_copy_from_host(buffer, stream, off, p, bytes)
  end function

  integer(c_int) function copy_out(buffer, stream, p, bytes, offset) result(st)
    type(c_ptr), intent(in) :: buffer, stream, p
    integer(c_size_t), intent(in) :: bytes
    integer(c_size_t), intent(in), optional :: offset
    integer(c_size_t) :: off
    off = 0
    if (present(offset)) off = offset
    st = gpuopt_buffer_copy_to_host(buffer, stream, off, p, bytes)
  end function

  integer(c_int) function copy_in_f64(buffer, stream, a, offset) result(st)
    type(c_ptr), intent(in) :: buffer, stream
    real(c_double), dimension(..), contiguous, target, intent(in) :: a
    integer(c_size_t), intent(in), optional :: offset
    st = copy_in(buffer, stream, c_loc(a), int(size(a), c_size_t) * c_sizeof(1.0_c_double), &
                 offset)
  end function
  integer(c_int) function copy_in_f32(buffer, stream, a, offset) result(st)
    type(c_ptr), intent(in) :: buffer, stream
    real(c_float), dimension(..), contiguous, target, intent(in) :: a
    integer(c_size_t), intent(in), optional :: offset
    st = copy_in(buffer, stream, c_loc(a), int(size(a), c_size_t) * c_sizeof(1.0_c_float), &
                 offset)
  end function
  integer(c_int) function copy_in_i32(buffer, stream, a, offset) result(st)
    type(c_ptr), intent(in) :: buffer, stream
    integer(c_int32_t), dimension(..), contiguous, target, intent(in) :: a
    integer(c_size_t), intent(in), optional :: offset
    st = copy_in(buffer, stream, c_loc(a), int(size(a), c_size_t) * c_sizeof(1_c_int32_t), &
                 offset)
  end function
  integer(c_int) function copy_in_i64(buffer, stream, a, offset) result(st)
    type(c_ptr), intent(in) :: buffer, stream
    integer(c_int64_t), dimension(..), contiguous, target, intent(in) :: a
    integer(c_size_t), intent(in), optional :: offset
    st = copy_in(buffer, stream, c_loc(a), int(size(a), c_size_t) * c_sizeof(1_c_int64_t), &
                 offset)
  end function

  integer(c_int) function copy_out_f64(buffer, stream, a, offset) result(st)
    type(c_ptr), intent(in) :: buffer, stream
    real(c_double), dimension(..), contiguous, target, intent(inout) :: a
    integer(c_size_t), intent(in), optional :: offset
    st = copy_out(buffer, stream, c_loc(a), int(size(a), c_size_t) * c_sizeof(1.0_c_double), &
                  offset)
  end function
  integer(c_int) function copy_out_f32(buffer, stream, a, offset) result(st)
    type(c_ptr), intent(in) :: buffer, stream
    real(c_float), dimension(..), contiguous, target, intent(inout) :: a
    integer(c_size_t), intent(in), optional :: offset
    st = copy_out(buffer, stream, c_loc(a), int(size(a), c_size_t) * c_sizeof(1.0_c_float), &
                  offset)
  end function
  integer(c_int) function copy_out_i32(buffer, stream, a, offset) result(st)
    type(c_ptr), intent(in) :: buffer, stream
    integer(c_int32_t), dimension(..), contiguous, target, intent(inout) :: a
    integer(c_size_t), intent(in), optional :: offset
    st = copy_out(buffer, stream, c_loc(a), int(size(a), c_size_t) * c_sizeof(1_c_int32_t), &
                  offset)
  end function
  integer(c_int) function copy_out_i64(buffer, stream, a, offset) result(st)
    type(c_ptr), intent(in) :: buffer, stream
    integer(c_int64_t), dimension(..), contiguous, target, intent(inout) :: a
    integer(c_size_t), intent(in), optional :: offset
    st = copy_out(buffer, stream, c_loc(a), int(size(a), c_size_t) * c_sizeof(1_c_int64_t), &
                  offset)
  end function
end module gpuopt
