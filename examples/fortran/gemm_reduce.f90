!> gemm_reduce: gpuopt from Fortran, end to end.
!>
!> Creates a context (exits 77, ctest's "skipped", printing the NO_DEVICE status and message
!> when there is no GPU), runs a DGEMM and a sum reduction on the device through gpuopt buffers,
!> checks them against Fortran's own matmul and sum, then makes a deliberate error and prints
!> the status and message it leaves.
!>
!>   ./example_fortran_gemm_reduce          run and check
!>   ./example_fortran_gemm_reduce --time   the binding timing protocol (docs/integration-c.md):
!>                                          prints "gpuopt-binding-time lang=fortran ..."
program gemm_reduce
  use, intrinsic :: iso_c_binding
  use gpuopt
  implicit none
  type(c_ptr) :: ctx, stream
  integer(c_int) :: st
  logical :: timing
  character(len=32) :: arg
  integer :: i

  timing = .false.
  do i = 1, command_argument_count()
    call get_command_argument(i, arg)
    if (trim(arg) == '--time') timing = .true.
  end do

  print '(2a)', 'gpuopt ', gpuopt_fstring(gpuopt_version_string())
  st = gpuopt_context_create(0_c_int, ctx)
  if (st == GPUOPT_ERROR_NO_DEVICE) then
    print '(2a)', 'no CUDA device, nothing to run: ', gpuopt_fstring(gpuopt_status_name(st))
    print '(2x,a)', gpuopt_message()
    stop 77, quiet=.true.
  end if
  call check(st, 'gpuopt_context_create')
  call check(gpuopt_stream_create(ctx, stream), 'gpuopt_stream_create')

  if (timing) then
    call time_dgemm(ctx, stream)
  else
    call print_device(ctx)
    call check_dgemm(ctx, stream)
    call check_sum(ctx, stream)
    call deliberate_error(ctx, stream)
  end if

  call check(gpuopt_stream_destroy(stream), 'gpuopt_stream_destroy')
  call check(gpuopt_context_destroy(ctx), 'gpuopt_context_destroy')
  if (.not. timing) print '(a)', 'OK'

contains

  !> Stops with the status name and message when st is not GPUOPT_SUCCESS.
  subroutine check(st, what)
    integer(c_int), intent(in) :: st
    character(len=*), intent(in) :: what
    if (st == GPUOPT_SUCCESS) return
    print '(4a,/,2x,a)', what, ' failed: ', gpuopt_fstring(gpuopt_status_name(st)), '', &
      gpuopt_message()
    error stop 1
  end subroutine

  subroutine print_device(ctx)
    type(c_ptr), intent(in) :: ctx
    type(gpuopt_device_info_t) :: info
    character(len=256) :: name
    integer :: j
    info%struct_size = c_sizeof(info)
    call check(gpuopt_context_device_info(ctx, info), 'gpuopt_context_device_info')
    name = ''
    do j = 1, size(info%name)
      if (info%name(j) == c_null_char) exit
      name(j:j) = info%name(j)
    end do
    print '(a,i0,3a,i0,a,i0,a,i0,a)', 'device ', info%device, ': ', trim(name), ', cc ', &
      info%cc_major, '.', info%cc_minor, ', ', info%sm_count, ' SMs'
  end subroutine

  !> A device buffer of `bytes` bytes and its device pointer.
  subroutine device_buffer(ctx, bytes, buf, ptr)
    type(c_ptr), intent(in) :: ctx
    integer(c_size_t), intent(in) :: bytes
    type(c_ptr), intent(out) :: buf, ptr
    call check(gpuopt_buffer_create(ctx, bytes, GPUOPT_MEMORY_DEVICE, buf), 'gpuopt_buffer_create')
    call check(gpuopt_buffer_device_pointer(buf, ptr), 'gpuopt_buffer_device_pointer')
  end subroutine

  !> C = A B on the device (odd sizes) against matmul(A, B).
  subroutine check_dgemm(ctx, stream)
    type(c_ptr), intent(in) :: ctx, stream
    integer(c_int64_t), parameter :: m = 257, n = 129, k = 193
    real(c_double), allocatable :: a(:, :), b(:, :), c(:, :), ref(:, :)
    type(c_ptr) :: ba, bb, bc, pa, pb, pc
    real(c_double) :: err
    allocate (a(m, k), b(k, n), c(m, n))
    call random_number(a)
    call random_number(b)
    a = a - 0.5_c_double
    b = b - 0.5_c_double
    call device_buffer(ctx, int(m * k * 8, c_size_t), ba, pa)
    call device_buffer(ctx, int(k * n * 8, c_size_t), bb, pb)
    call device_buffer(ctx, int(m * n * 8, c_size_t), bc, pc)
    call check(gpuopt_copy_to_device(ba, stream, a), 'gpuopt_copy_to_device(a)')
    call check(gpuopt_copy_to_device(bb, stream, b), 'gpuopt_copy_to_device(b)')
    call check(gpuopt_dgemm_dev(ctx, stream, GPUOPT_TRANS_N, GPUOPT_TRANS_N, m, n, k, &
                                1.0_c_double, pa, m, pb, k, 0.0_c_double, pc, m), 'gpuopt_dgemm_dev')
    call check(gpuopt_copy_from_device(bc, stream, c), 'gpuopt_copy_from_device(c)')
    call check(gpuopt_stream_synchronize(stream), 'gpuopt_stream_synchronize')
    ref = matmul(a, b)
    err = norm2(c - ref) / norm2(ref)
    print '(a,3(i0,a),es9.2,a)', 'dgemm ', m, ' x ', n, ' x ', k, &
      ': relative error against matmul ', err, merge(' (ok)   ', ' (WRONG)', err < 1e-12_c_double)
    call check(gpuopt_buffer_destroy(ba), 'gpuopt_buffer_destroy')
    call check(gpuopt_buffer_destroy(bb), 'gpuopt_buffer_destroy')
    call check(gpuopt_buffer_destroy(bc), 'gpuopt_buffer_destroy')
    if (.not. err < 1e-12_c_double) error stop 1
  end subroutine

  !> sum(x) on the device against Fortran's sum.
  subroutine check_sum(ctx, stream)
    type(c_ptr), intent(in) :: ctx, stream
    integer(c_int64_t), parameter :: n = 1000003
    real(c_double), allocatable :: x(:)
    real(c_double) :: got(1), want, tol
    type(c_ptr) :: bx, bs, px, ps
    allocate (x(n))
    call random_number(x)
    x = x - 0.25_c_double
    call device_buffer(ctx, int(n * 8, c_size_t), bx, px)
    call device_buffer(ctx, 8_c_size_t, bs, ps)
    call check(gpuopt_copy_to_device(bx, stream, x), 'gpuopt_copy_to_device(x)')
    call check(gpuopt_reduce_dev(ctx, stream, GPUOPT_REDUCE_SUM, GPUOPT_DTYPE_F64, n, px, ps), &
               'gpuopt_reduce_dev')
    call check(gpuopt_copy_from_device(bs, stream, got), 'gpuopt_copy_from_device(sum)')
    call check(gpuopt_stream_synchronize(stream), 'gpuopt_stream_synchronize')
    want = sum(x)
    tol = 1e-12_c_double * sum(abs(x))
    print '(a,i0,a,es22.15,a,es22.15,a)', 'sum of ', n, ' doubles: ', got(1), ' (Fortran sum ', &
      want, merge(', ok)   ', ', WRONG)', abs(got(1) - want) <= tol)
    call check(gpuopt_buffer_destroy(bx), 'gpuopt_buffer_destroy')
    call check(gpuopt_buffer_destroy(bs), 'gpuopt_buffer_destroy')
    if (.not. abs(got(1) - want) <= tol) error stop 1
  end subroutine

  !> A GEMM with m = -1: INVALID_ARGUMENT and a message naming gpuopt_gemm and the argument.
  subroutine deliberate_error(ctx, stream)
    type(c_ptr), intent(in) :: ctx, stream
    integer(c_int) :: st
    character(len=:), allocatable :: msg
    st = gpuopt_dgemm_dev(ctx, stream, GPUOPT_TRANS_N, GPUOPT_TRANS_N, -1_c_int64_t, &
                          4_c_int64_t, 4_c_int64_t, 1.0_c_double, c_null_ptr, 4_c_int64_t, &
                          c_null_ptr, 4_c_int64_t, 0.0_c_double, c_null_ptr, 4_c_int64_t)
    msg = gpuopt_message()
    print '(2a,/,2x,a)', 'deliberate error (m = -1): ', gpuopt_fstring(gpuopt_status_name(st)), msg
    if (st /= GPUOPT_ERROR_INVALID_ARGUMENT .or. index(msg, 'gpuopt_gemm') == 0) error stop 1
  end subroutine

  !> The binding timing protocol of docs/integration-c.md: f64 2048^3 GEMM, 3 warm-up calls,
  !> then 5 repeats of 20 calls, each timed by the host clock around the calls and a stream
  !> synchronize; the median repeat divided by 20.
  subroutine time_dgemm(ctx, stream)
    type(c_ptr), intent(in) :: ctx, stream
    integer(c_int64_t), parameter :: n = 2048
    integer, parameter :: warmup = 3, repeats = 5, calls = 20
    real(c_double), allocatable :: a(:, :)
    type(c_ptr) :: ba, bb, bc, pa, pb, pc
    integer(c_int64_t) :: t0, t1, rate
    real(c_double) :: ms(repeats), tmp
    character(len=32) :: txt
    integer :: r, j, l
    allocate (a(n, n))
    do j = 1, int(n)
      do l = 1, int(n)
        a(l, j) = real(mod(l + 3 * j, 17) - 8, c_double) / 8.0_c_double
      end do
    end do
    call device_buffer(ctx, int(n * n * 8, c_size_t), ba, pa)
    call device_buffer(ctx, int(n * n * 8, c_size_t), bb, pb)
    call device_buffer(ctx, int(n * n * 8, c_size_t), bc, pc)
    call check(gpuopt_copy_to_device(ba, stream, a), 'gpuopt_copy_to_device(a)')
    call check(gpuopt_copy_to_device(bb, stream, a), 'gpuopt_copy_to_device(b)')
    do j = 1, warmup
      call check(gpuopt_dgemm_dev(ctx, stream, GPUOPT_TRANS_N, GPUOPT_TRANS_N, n, n, n, &
                 1.0_c_double, pa, n, pb, n, 0.0_c_double, pc, n), 'gpuopt_dgemm_dev')
    end do
    call check(gpuopt_stream_synchronize(stream), 'gpuopt_stream_synchronize')
    do r = 1, repeats
      call system_clock(t0, rate)
      do j = 1, calls
        call check(gpuopt_dgemm_dev(ctx, stream, GPUOPT_TRANS_N, GPUOPT_TRANS_N, n, n, n, &
                 1.0_c_double, pa, n, pb, n, 0.0_c_double, pc, n), 'gpuopt_dgemm_dev')
      end do
      call check(gpuopt_stream_synchronize(stream), 'gpuopt_stream_synchronize')
      call system_clock(t1)
      ms(r) = real(t1 - t0, c_double) * 1000.0_c_double / real(rate, c_double) / calls
    end do
    do r = 2, repeats  ! insertion sort, for the median
      tmp = ms(r)
      j = r - 1
      do while (j >= 1)
        if (ms(j) <= tmp) exit
        ms(j + 1) = ms(j)
        j = j - 1
      end do
      ms(j + 1) = tmp
    end do
    write (txt, '(f12.4)') ms((repeats + 1) / 2)
    print '(a,i0,2a)', 'gpuopt-binding-time lang=fortran op=dgemm n=', n, ' ms_per_call=', &
      trim(adjustl(txt))
    call check(gpuopt_buffer_destroy(ba), 'gpuopt_buffer_destroy')
    call check(gpuopt_buffer_destroy(bb), 'gpuopt_buffer_destroy')
    call check(gpuopt_buffer_destroy(bc), 'gpuopt_buffer_destroy')
  end subroutine
end program gemm_reduce
