! A halo exchange on a ring through the Fortran binding (mpif.h / `use mpi`), which Open MPI does not
! route through the C MPI_ entry points: per step a Sendrecv, Isend/Irecv to both neighbours and one
! Waitall, an Allreduce; then an in-place Allgather of 2 integers and a Barrier.
!
!     halo_f STEPS N
program halo
  use mpi
  implicit none
  integer :: ierr, rank, nranks, right, left, steps, n, step, reqs(4)
  integer, allocatable :: gathered(:)
  double precision, allocatable :: out(:), in(:)
  double precision :: local, total
  character(len=32) :: arg

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call get_command_argument(1, arg)
  read (arg, *) steps
  call get_command_argument(2, arg)
  read (arg, *) n
  right = mod(rank + 1, nranks)
  left = mod(rank + nranks - 1, nranks)
  allocate (out(n), in(2*n), gathered(2*nranks))
  out = rank
  gathered = rank
  do step = 1, steps
    call MPI_Sendrecv(out, n, MPI_DOUBLE_PRECISION, right, 1, in, n, MPI_DOUBLE_PRECISION, left, 1, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_Irecv(in, n, MPI_DOUBLE_PRECISION, left, 2, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_Irecv(in(n + 1), n, MPI_DOUBLE_PRECISION, right, 3, MPI_COMM_WORLD, reqs(2), ierr)
    call MPI_Isend(out, n, MPI_DOUBLE_PRECISION, right, 2, MPI_COMM_WORLD, reqs(3), ierr)
    call MPI_Isend(out, n, MPI_DOUBLE_PRECISION, left, 3, MPI_COMM_WORLD, reqs(4), ierr)
    call MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE, ierr)
    local = in(1) + 1.0d0
    call MPI_Allreduce(local, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  end do
  call MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, gathered, 2, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a, f10.1)', 'halo_f done: ', total
  call MPI_Finalize(ierr)
end program halo
