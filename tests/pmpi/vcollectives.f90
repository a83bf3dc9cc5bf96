! The collectives with per-rank counts, and Scatter and Reduce_scatter, through the Fortran binding (mpif.h /
! `use mpi`), which Open MPI does not route through the C MPI_ entry points: rank r contributes r + 1 integers.
! One call each of Gatherv (root 0), Allgatherv, Scatter, Scatterv, Alltoallv, Reduce_scatter,
! Reduce_scatter_block, then a non-blocking Igatherv and Iallgatherv completed by one Waitall.
!
!     vcollectives
program vcollectives
  use mpi
  implicit none
  integer :: ierr, rank, nranks, r, reqs(2)
  integer, allocatable :: counts(:), displs(:), mine(:), all(:), ones(:), got(:), sums(:)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  allocate (counts(nranks), displs(nranks), ones(nranks))
  counts = [(r + 1, r = 0, nranks - 1)]
  displs = [(r * (r + 1) / 2, r = 0, nranks - 1)]
  ones = 1
  allocate (mine(rank + 1), all(sum(counts)), got(sum(counts)), sums(rank + 1))
  mine = rank
  all = 1
  call MPI_Gatherv(mine, rank + 1, MPI_INTEGER, all, counts, displs, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call MPI_Allgatherv(mine, rank + 1, MPI_INTEGER, all, counts, displs, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call MPI_Scatter(all, 1, MPI_INTEGER, got, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call MPI_Scatterv(all, counts, displs, MPI_INTEGER, got, rank + 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call MPI_Alltoallv(all, ones, [(r, r = 0, nranks - 1)], MPI_INTEGER, got, ones, [(r, r = 0, nranks - 1)], &
                     MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call MPI_Reduce_scatter(all, sums, counts, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Reduce_scatter_block(all, sums, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Igatherv(mine, rank + 1, MPI_INTEGER, all, counts, displs, MPI_INTEGER, 0, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Iallgatherv(mine, rank + 1, MPI_INTEGER, got, counts, displs, MPI_INTEGER, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
  if (rank == 0) print '(a, i0)', 'vcollectives done: ', sum(got)
  call MPI_Finalize(ierr)
end program vcollectives
