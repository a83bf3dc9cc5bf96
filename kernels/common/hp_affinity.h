/* Capture of each thread's real CPU affinity; see hp_affinity.c. */
#ifndef HP_AFFINITY_H
#define HP_AFFINITY_H

#include "hp_comm.h"
#include "hp_json.h"
#include "hp_run.h"

/* Collective: records every thread's CPU set and CPU, gathered into r->affinity on rank 0. */
void hp_run_capture_affinity(hp_run *r, hp_comm *c);
/* The profile's run.affinity array, from the gathered lines. */
void hp_affinity_json(hp_json *j, const hp_run *r);

#endif
