/* What a call sends, by hp_counts.h's conventions: a point-to-point send its message; a collective the
 * caller's own contribution -- the send buffer it passes. Shared by the C and Fortran wrappers, so the
 * two bindings count a routine alike.
 *
 * The send buffer of an all-to-all holds one block per peer, and that of a scatter's root one block
 * per rank; a non-root rank of a scatter passes none and contributes nothing. A broadcast counts its
 * buffer on every rank, as hp_bcast does. With MPI_IN_PLACE the contribution sits in the receive
 * buffer, so it is read from the receive arguments. On an intercommunicator, the peers of an
 * all-to-all are the remote group. These functions are called only for counted calls, after MPI has
 * accepted the arguments. */
#include "pmpi.h"

long long hp_bytes(int count, MPI_Datatype type)
{
    if (count <= 0) return 0; /* the datatype of an empty message may be MPI_DATATYPE_NULL */
    int size;
    PMPI_Type_size(type, &size);
    return (long long)count * size;
}

static long long bytes_sum(const int *counts, int n, MPI_Datatype type)
{
    long long total = 0;
    for (int i = 0; i < n; i++) total += hp_bytes(counts[i], type);
    return total;
}

static int is_inter(MPI_Comm comm)
{
    int inter;
    PMPI_Comm_test_inter(comm, &inter);
    return inter;
}

int hp_peers(MPI_Comm comm)
{
    int n;
    if (is_inter(comm))
        PMPI_Comm_remote_size(comm, &n);
    else
        PMPI_Comm_size(comm, &n);
    return n;
}

static int rank_in(MPI_Comm comm)
{
    int rank;
    PMPI_Comm_rank(comm, &rank);
    return rank;
}

int hp_is_root(int root, MPI_Comm comm)
{
    return root == MPI_ROOT || (!is_inter(comm) && root == rank_in(comm));
}

long long hp_bytes_gather(int in_place, int scount, MPI_Datatype stype, int rcount, MPI_Datatype rtype)
{
    return in_place ? hp_bytes(rcount, rtype) : hp_bytes(scount, stype);
}

long long hp_bytes_gatherv(int in_place, int scount, MPI_Datatype stype, const int *rcounts, MPI_Datatype rtype,
                           MPI_Comm comm)
{
    return in_place ? hp_bytes(rcounts[rank_in(comm)], rtype) : hp_bytes(scount, stype);
}

long long hp_bytes_scatter(int root, int scount, MPI_Datatype stype, MPI_Comm comm)
{
    return hp_is_root(root, comm) ? hp_peers(comm) * hp_bytes(scount, stype) : 0;
}

long long hp_bytes_scatterv(int root, const int *scounts, MPI_Datatype stype, MPI_Comm comm)
{
    return hp_is_root(root, comm) ? bytes_sum(scounts, hp_peers(comm), stype) : 0;
}

long long hp_bytes_alltoall(int in_place, int scount, MPI_Datatype stype, int rcount, MPI_Datatype rtype,
                            MPI_Comm comm)
{
    return hp_peers(comm) * hp_bytes_gather(in_place, scount, stype, rcount, rtype);
}

long long hp_bytes_alltoallv(int in_place, const int *scounts, MPI_Datatype stype, const int *rcounts,
                             MPI_Datatype rtype, MPI_Comm comm)
{
    return in_place ? bytes_sum(rcounts, hp_peers(comm), rtype) : bytes_sum(scounts, hp_peers(comm), stype);
}

long long hp_bytes_alltoallw(int in_place, const int *scounts, const MPI_Datatype *stypes, const int *rcounts,
                             const MPI_Datatype *rtypes, MPI_Comm comm)
{
    const int *counts = in_place ? rcounts : scounts;
    const MPI_Datatype *types = in_place ? rtypes : stypes;
    long long total = 0;
    for (int i = 0, n = hp_peers(comm); i < n; i++) total += hp_bytes(counts[i], types[i]);
    return total;
}

long long hp_bytes_reduce_scatter(const int *rcounts, MPI_Datatype type, MPI_Comm comm)
{
    int n;
    PMPI_Comm_size(comm, &n);
    return bytes_sum(rcounts, n, type);
}

long long hp_bytes_reduce_scatter_block(int rcount, MPI_Datatype type, MPI_Comm comm)
{
    int n;
    PMPI_Comm_size(comm, &n);
    return n * hp_bytes(rcount, type);
}
