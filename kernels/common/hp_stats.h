/* Cross-rank statistics: min / avg / max of a per-rank value, with the ranks holding the extremes.
 *
 * The thesis reported rank 0 only; a rank-0 number hides the rank everybody waits for, so every
 * timer and counter is reduced across ranks and the imbalance max/avg - 1 is reported with it.
 * These reductions run after the measured loop and are not counted in the communication profile. */
#ifndef HP_STATS_H
#define HP_STATS_H

#include "hp_comm.h"
#include "hp_json.h"

typedef struct {
    double min, avg, max, sum;
    int min_rank, max_rank;
} hp_stat;

/* Collective over comm: every rank passes its value and receives the statistics. */
hp_stat hp_stat_across(hp_comm *c, double local, MPI_Comm comm);
double hp_imbalance(const hp_stat *s);
/* Writes {"min", "min_rank", "avg", "max", "max_rank"} under key. */
void hp_stat_json(hp_json *j, const char *key, const hp_stat *s);

#endif
