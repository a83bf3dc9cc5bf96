/* Cross-rank statistics; see hp_stats.h. */
#include "hp_stats.h"

hp_stat hp_stat_across(hp_comm *c, double local, MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    struct {
        double value;
        int rank;
    } in = {local, rank}, lo, hi;
    hp_stat s;
    hp_allreduce(c, &in, &lo, 1, MPI_DOUBLE_INT, MPI_MINLOC, comm);
    hp_allreduce(c, &in, &hi, 1, MPI_DOUBLE_INT, MPI_MAXLOC, comm);
    hp_allreduce(c, &local, &s.sum, 1, MPI_DOUBLE, MPI_SUM, comm);
    s.min = lo.value;
    s.min_rank = lo.rank;
    s.max = hi.value;
    s.max_rank = hi.rank;
    s.avg = s.sum / size;
    return s;
}

double hp_imbalance(const hp_stat *s) { return s->avg > 0.0 ? s->max / s->avg - 1.0 : 0.0; }

void hp_stat_json(hp_json *j, const char *key, const hp_stat *s)
{
    hp_json_object_begin(j, key);
    HP_JSON_NUMBERS(j, {"min", s->min}, {"min_rank", s->min_rank}, {"avg", s->avg}, {"max", s->max},
                    {"max_rank", s->max_rank});
    hp_json_object_end(j);
}
