! An unchanged program: Fortran linked with -lblas (gfortran dgemm_f.f90 -lblas), knowing nothing
! of gpuopt. It runs DGEMM and DSYRK on host arrays and writes the results (raw doubles) to the
! file named by its first argument; scripts/blas-check.sh compares two such files.
program dgemm_f
  implicit none
  integer, parameter :: n = 2500, k = 3000
  double precision, allocatable :: a(:,:), b(:,:), c(:,:), s(:,:)
  character(len=256) :: out
  integer :: i, j
  call get_command_argument(1, out)
  allocate(a(n,k), b(k,n), c(n,n), s(n,n))
  do j = 1, k
    do i = 1, n
      a(i,j) = sin(0.13d0 * i + 0.07d0 * j)
    end do
  end do
  do j = 1, n
    do i = 1, k
      b(i,j) = cos(0.05d0 * i - 0.03d0 * j)
    end do
  end do
  c = 1.0d0
  s = 0.0d0
  call dgemm('N', 'N', n, n, k, 0.75d0, a, n, b, k, 0.5d0, c, n)
  call dsyrk('U', 'N', n, k, 1.0d0, a, n, 0.0d0, s, n)
  open(10, file=trim(out), access='stream', form='unformatted', status='replace')
  write(10) c, s
  close(10)
  print '(a,i0,a,i0)', 'wrote ', n, ' x ', 2 * n
end program dgemm_f
