/* When counting happens: from MPI_Init (or MPI_Init_thread) to MPI_Finalize, or -- with
 * HYBRIDPERF_MPI_PCONTROL=1 -- only between MPI_Pcontrol(1) and MPI_Pcontrol(0), mpiP's convention,
 * which lets a program (our kernels do, through hp_comm_count) say where its measured loop is.
 * Without that variable MPI_Pcontrol is passed on and otherwise ignored, so a program that calls it
 * for another tool is still counted whole. Levels other than 0 and 1 (mpiP's reset, report) are
 * ignored. */
#include <stdlib.h>
#include <string.h>

#include "pmpi.h"

static int requested_level = MPI_THREAD_SINGLE, pcontrol_mode, started;

void hp_started(int requested)
{
    if (started) return; /* once, whichever binding's MPI_Init came first */
    started = 1;
    requested_level = requested;
    const char *mode = getenv("HYBRIDPERF_MPI_PCONTROL");
    pcontrol_mode = mode && strcmp(mode, "1") == 0;
    hp_counters_open(); /* before the program's OpenMP team starts: the team inherits them */
    hp_trace_start();
    hp_switch(!pcontrol_mode);
}

void hp_pcontrol(int level)
{
    if (pcontrol_mode && (level == 0 || level == 1)) hp_switch(level);
}

void hp_finishing(void)
{
    if (!started) return; /* an MPI_Init this library did not see: nothing was counted */
    started = 0;
    hp_switch(0);
    hp_trace_finish();
    int provided;
    PMPI_Query_thread(&provided);
    hp_profile_write(requested_level, provided, pcontrol_mode);
}

int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS) hp_started(MPI_THREAD_SINGLE);
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS) hp_started(required);
    return rc;
}

int MPI_Finalize(void)
{
    hp_finishing();
    return PMPI_Finalize();
}

int MPI_Pcontrol(const int level, ...)
{
    hp_pcontrol(level);
    return PMPI_Pcontrol(level);
}
