/* The communication half of an SPMV call: the paper's steps 1-4.
 *
 * Step 1 fills one send buffer per neighbour (up to 26: faces, edges, corners) with the values of the
 * points the neighbour needs; it is an OpenMP loop per neighbour, its threads timed as the product's
 * (hp_omp_idle.h); a buffer of 4,096 points or fewer is filled by the master alone, a team of one.
 * Steps 2-4 are done by the master thread alone, outside any parallel region (master-only): post every
 * non-blocking send, post every non-blocking receive straight into the ghost slots of x, wait for all.
 * There is no overlap of communication with computation and no global communication, deliberately, as
 * in the paper. */
#include <stdlib.h>

#include "spmv.h"

void spmv_exchange(hp_comm *c, spmv_halo *h, double *x, long rows, MPI_Comm comm, hp_timers *t, int pack_id,
                   int exchange_id, hp_omp_idle *idle)
{
    hp_timer_start(t, pack_id);
    long first = 0;
    for (int k = 0; k < h->count; k++) {
        double *restrict out = h->sendbuf + first;
        const int *restrict idx = h->send_index[k];
        const int n = h->send_points[k];
        hp_omp_idle_begin(idle);
#pragma omp parallel if (n > 4096)
        {
            hp_omp_idle_enter(idle);
#pragma omp for schedule(static) nowait
            for (int m = 0; m < n; m++) out[m] = x[idx[m]];
            hp_omp_idle_done(idle);
        }
        hp_omp_idle_end(idle);
        first += n;
    }
    hp_timer_stop(t, pack_id);

    hp_timer_start(t, exchange_id);
    MPI_Request requests[2 * SPMV_NEIGHBOURS];
    first = 0;
    for (int k = 0; k < h->count; k++) { /* step 2: sends, tagged with the direction they go in */
        hp_isend(c, h->sendbuf + first, h->send_points[k], MPI_DOUBLE, h->rank[k], h->dir[k], comm, &requests[k]);
        first += h->send_points[k];
    }
    for (int k = 0; k < h->count; k++) /* step 3: the neighbour in direction d sent towards us: 25 - d */
        hp_irecv(c, x + rows + h->recv_offset[k], h->send_points[k], MPI_DOUBLE, h->rank[k],
                 SPMV_NEIGHBOURS - 1 - h->dir[k], comm, &requests[h->count + k]);
    hp_waitall(c, 2 * h->count, requests); /* step 4 */
    hp_timer_stop(t, exchange_id);
}

void spmv_halo_free(spmv_halo *h)
{
    for (int k = 0; k < h->count; k++) free(h->send_index[k]);
    free(h->sendbuf);
}
