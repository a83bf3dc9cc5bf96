/* One-sided (RMA) wrappers (C binding), counted in a class of their own, "one_sided".
 *
 * hp_comm's byte convention -- what the caller sends -- would make an MPI_Get move nothing, yet a get
 * is as much traffic as a put. So here every data-moving call is one message of the caller's origin
 * buffer: what a put or accumulate sends, what a get fetches (one element for the atomics).
 * Synchronisation (fences, locks, flushes, post/start/complete/wait) moves nothing of the program's
 * and is a call without a message. Request-based calls (MPI_Rput ...) make their waits one-sided. */
#include "pmpi.h"

int MPI_Put(const void *obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint disp, int tcount,
            MPI_Datatype ttype, MPI_Win win)
{
    return HP_COUNTED(HP_ONE_SIDED, 1, hp_bytes(ocount, otype),
                      PMPI_Put(obuf, ocount, otype, target, disp, tcount, ttype, win));
}

int MPI_Get(void *obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint disp, int tcount, MPI_Datatype ttype,
            MPI_Win win)
{
    return HP_COUNTED(HP_ONE_SIDED, 1, hp_bytes(ocount, otype),
                      PMPI_Get(obuf, ocount, otype, target, disp, tcount, ttype, win));
}

int MPI_Accumulate(const void *obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint disp, int tcount,
                   MPI_Datatype ttype, MPI_Op op, MPI_Win win)
{
    return HP_COUNTED(HP_ONE_SIDED, 1, hp_bytes(ocount, otype),
                      PMPI_Accumulate(obuf, ocount, otype, target, disp, tcount, ttype, op, win));
}

int MPI_Get_accumulate(const void *obuf, int ocount, MPI_Datatype otype, void *rbuf, int rcount, MPI_Datatype rtype,
                       int target, MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win)
{
    return HP_COUNTED(HP_ONE_SIDED, 1, hp_bytes(ocount, otype),
                      PMPI_Get_accumulate(obuf, ocount, otype, rbuf, rcount, rtype, target, disp, tcount, ttype, op,
                                          win));
}

int MPI_Fetch_and_op(const void *obuf, void *rbuf, MPI_Datatype type, int target, MPI_Aint disp, MPI_Op op,
                     MPI_Win win)
{
    return HP_COUNTED(HP_ONE_SIDED, 1, hp_bytes(1, type), PMPI_Fetch_and_op(obuf, rbuf, type, target, disp, op, win));
}

int MPI_Compare_and_swap(const void *obuf, const void *cbuf, void *rbuf, MPI_Datatype type, int target,
                         MPI_Aint disp, MPI_Win win)
{
    return HP_COUNTED(HP_ONE_SIDED, 1, hp_bytes(1, type),
                      PMPI_Compare_and_swap(obuf, cbuf, rbuf, type, target, disp, win));
}

int MPI_Rput(const void *obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint disp, int tcount,
             MPI_Datatype ttype, MPI_Win win, MPI_Request *req)
{
    return HP_STARTED(HP_ONE_SIDED, 1, hp_bytes(ocount, otype), *req,
                      PMPI_Rput(obuf, ocount, otype, target, disp, tcount, ttype, win, req));
}

int MPI_Rget(void *obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint disp, int tcount, MPI_Datatype ttype,
             MPI_Win win, MPI_Request *req)
{
    return HP_STARTED(HP_ONE_SIDED, 1, hp_bytes(ocount, otype), *req,
                      PMPI_Rget(obuf, ocount, otype, target, disp, tcount, ttype, win, req));
}

int MPI_Raccumulate(const void *obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint disp, int tcount,
                    MPI_Datatype ttype, MPI_Op op, MPI_Win win, MPI_Request *req)
{
    return HP_STARTED(HP_ONE_SIDED, 1, hp_bytes(ocount, otype), *req,
                      PMPI_Raccumulate(obuf, ocount, otype, target, disp, tcount, ttype, op, win, req));
}

int MPI_Win_fence(int assert, MPI_Win win) { return HP_COUNTED(HP_ONE_SIDED, 0, 0, PMPI_Win_fence(assert, win)); }

int MPI_Win_lock(int type, int rank, int assert, MPI_Win win)
{
    return HP_COUNTED(HP_ONE_SIDED, 0, 0, PMPI_Win_lock(type, rank, assert, win));
}

int MPI_Win_unlock(int rank, MPI_Win win) { return HP_COUNTED(HP_ONE_SIDED, 0, 0, PMPI_Win_unlock(rank, win)); }

int MPI_Win_lock_all(int assert, MPI_Win win)
{
    return HP_COUNTED(HP_ONE_SIDED, 0, 0, PMPI_Win_lock_all(assert, win));
}

int MPI_Win_unlock_all(MPI_Win win) { return HP_COUNTED(HP_ONE_SIDED, 0, 0, PMPI_Win_unlock_all(win)); }

int MPI_Win_flush(int rank, MPI_Win win) { return HP_COUNTED(HP_ONE_SIDED, 0, 0, PMPI_Win_flush(rank, win)); }

int MPI_Win_flush_all(MPI_Win win) { return HP_COUNTED(HP_ONE_SIDED, 0, 0, PMPI_Win_flush_all(win)); }

int MPI_Win_flush_local(int rank, MPI_Win win)
{
    return HP_COUNTED(HP_ONE_SIDED, 0, 0, PMPI_Win_flush_local(rank, win));
}

int MPI_Win_flush_local_all(MPI_Win win) { return HP_COUNTED(HP_ONE_SIDED, 0, 0, PMPI_Win_flush_local_all(win)); }

int MPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
    return HP_COUNTED(HP_ONE_SIDED, 0, 0, PMPI_Win_post(group, assert, win));
}

int MPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
    return HP_COUNTED(HP_ONE_SIDED, 0, 0, PMPI_Win_start(group, assert, win));
}

int MPI_Win_complete(MPI_Win win) { return HP_COUNTED(HP_ONE_SIDED, 0, 0, PMPI_Win_complete(win)); }

int MPI_Win_wait(MPI_Win win) { return HP_COUNTED(HP_ONE_SIDED, 0, 0, PMPI_Win_wait(win)); }
