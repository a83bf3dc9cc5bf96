! The same halo exchange as halo.f90 through the mpi_f08 binding (its handles are derived types, its
! ierror optional and left out here): per step a Sendrecv, Isend/Irecv to both neighbours and one
! Waitall, an Allreduce; then an in-place Allgather of 2 integers and a Barrier.
!
!     halo_f08 STEPS N
program halo_f08
  use mpi_f08
  implicit none
  integer :: rank, nranks, right, left, steps, n, step
  type(MPI_Request) :: reqs(4)
  integer, allocatable :: gathered(:)
  double precision, allocatable :: out(:), in(:)
  double precision :: local, total
  character(len=32) :: arg

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
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
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    call MPI_Irecv(in, n, MPI_DOUBLE_PRECISION, left, 2, MPI_COMM_WORLD, reqs(1))
    call MPI_Irecv(in(n + 1), n, MPI_DOUBLE_PRECISION, right, 3, MPI_COMM_WORLD, reqs(2))
    call MPI_Isend(out, n, MPI_DOUBLE_PRECISION, right, 2, MPI_COMM_WORLD, reqs(3))
    call MPI_Isend(out, n, MPI_DOUBLE_PRECISION, left, 3, MPI_COMM_WORLD, reqs(4))
    call MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE)
    local = in(1) + 1.0d0
    call MPI_Allreduce(local, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  end do
  call MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, gathered, 2, MPI_INTEGER, MPI_COMM_WORLD)
  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a, f10.1)', 'halo_f08 done: ', total
  call MPI_Finalize()
end program halo_f08
