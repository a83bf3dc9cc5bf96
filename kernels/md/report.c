/* What a run of hybridperf-md reports: its correctness checks, the cross-rank results, the terminal
 * summary and the profile. Kept apart from main.c so the time-step loop reads on its own. */
#include <math.h>
#include <stdlib.h>

#include "md.h"

static const char *const directions[MD_DIRECTIONS] = {"-x", "+x", "-y", "+y", "-z", "+z"};

void md_collect_results(md_sim *s, md_results *out)
{
    const md_atoms *a = &s->atoms;
    MPI_Comm comm = s->decomp.cart;
    /* the centre of mass's velocity: sum m v / sum m */
    double momentum[4] = {0, 0, 0, 0}, total_momentum[4];
    for (int i = 0; i < a->nlocal; i++) {
        const double m = s->species.mass[a->type[i]];
        for (int d = 0; d < 3; d++) momentum[d] += m * a->v[MD_VEC * i + d];
        momentum[3] += m;
    }
    long long counts[3] = {a->nlocal, s->misplaced, 0}, totals[3];
    for (int i = 0; i < a->nlocal; i++) counts[2] += s->nl.numneigh[i];
    hp_allreduce(&s->comm, momentum, total_momentum, 4, MPI_DOUBLE, MPI_SUM, comm);
    hp_allreduce(&s->comm, counts, totals, 3, MPI_LONG_LONG, MPI_SUM, comm);

    /* The thermo table lives on rank 0; the other ranks' checks are placeholders, never reported. */
    const double n = (double)s->natoms;
    const md_thermo_row *first = s->thermo, *last = s->thermo + s->nthermo - 1;
    const int root = s->rank == 0;
    const double drift = root ? fabs(last->etotal - first->etotal) / fabs(first->etotal) : 0.0;
    out->checks[0] = hp_check_make("energy_drift", drift, 0.0, s->p.drift_tolerance);
    out->checks[1] = hp_check_make("net_momentum",
                                   sqrt(total_momentum[0] * total_momentum[0] + total_momentum[1] * total_momentum[1] +
                                        total_momentum[2] * total_momentum[2]) /
                                       total_momentum[3],
                                   0.0, 1e-10);
    out->checks[2] = hp_check_make("atom_count", (double)totals[0], n, 0.0);
    out->checks[3] = hp_check_make("atoms_misplaced", (double)totals[1], 0.0, 0.0);
    out->checks[4] = hp_check_make("lost_atoms", root ? (double)last->lost : 0.0, 0.0, 0.0);
    out->mean_neighbors = (double)totals[2] / n;

    out->nregions = hp_reduce_regions(&s->comm, &s->timers, comm, out->regions);
    hp_gather_loop_times(&s->comm, &s->timers, comm, &out->times);
    out->openmp_idle = s->timers.enabled && !s->p.no_thread_times ? hp_omp_idle_gather(&s->comm, &s->omp, comm) : NULL;
    hp_reduce_comm(&s->comm, comm, out->comm);
    const md_halo *h = &s->halo;
    out->halo_messages_per_exchange =
        hp_stat_across(&s->comm, h->exchanges ? (double)h->messages / (double)h->exchanges : 0.0, comm);
    out->halo_sizes = root ? malloc((size_t)s->nranks * MD_DIRECTIONS * sizeof(int)) : NULL;
    hp_gather(&s->comm, h->send_count, MD_DIRECTIONS, MPI_INT, out->halo_sizes, 0, comm);
}

int md_results_pass(const md_results *r) { return hp_checks_pass(r->checks, MD_CHECKS); }

static double loop_seconds(const md_results *r) { return r->regions[R_TOTAL].seconds.max; }

static double ns_per_atom_step(const md_sim *s, const md_results *r)
{
    const double atom_steps = (double)s->natoms * s->steps_done;
    return atom_steps > 0 ? 1e9 * loop_seconds(r) / atom_steps : 0.0;
}

void md_print_results(const void *state, const void *results)
{
    const md_sim *s = state;
    const md_results *r = results;
    const double loop = loop_seconds(r), ns = ns_per_atom_step(s, r);
    printf("\nLoop time of %.6g s on %d rank%s x %d thread%s for %lld steps with %lld atoms\n", loop, s->nranks,
           s->nranks > 1 ? "s" : "", s->threads, s->threads > 1 ? "s" : "", s->steps_done, s->natoms);
    if (s->timers.enabled) hp_print_regions(stdout, r->regions, r->nregions, r->regions[R_TOTAL].seconds.avg);
    hp_print_comm(stdout, r->comm);
    printf("neighbors: %.2f per atom (full list), %d builds\n", r->mean_neighbors, s->nl.builds);
    hp_print_checks(stdout, r->checks, MD_CHECKS);
    printf("PERF kernel=md ns_per_atom_step=%.4f atom_steps_per_s=%.6e atoms=%lld steps=%lld ranks=%d threads=%d "
           "loop_s=%.6f\n",
           ns, ns > 0 ? 1e9 / ns : 0.0, s->natoms, s->steps_done, s->nranks, s->threads, loop);
    fflush(stdout);
}

static void halo_json(hp_json *j, const md_sim *s, const md_results *r)
{
    hp_json_object_begin(j, "halo");
    hp_stat_json(j, "messages_per_exchange", &r->halo_messages_per_exchange);
    hp_json_strings(j, "directions", directions, MD_DIRECTIONS);
    hp_json_array_begin(j, "atoms_per_message");
    for (int rank = 0; rank < s->nranks; rank++) {
        hp_json_array_begin(j, NULL);
        for (int k = 0; k < MD_DIRECTIONS; k++) hp_json_int(j, NULL, r->halo_sizes[rank * MD_DIRECTIONS + k]);
        hp_json_array_end(j);
    }
    hp_json_array_end(j);
    hp_json_object_end(j);
}

static void thermo_json(hp_json *j, const md_sim *s)
{
    hp_json_array_begin(j, "thermo");
    for (int k = 0; k < s->nthermo; k++) {
        const md_thermo_row *t = &s->thermo[k];
        hp_json_object_begin(j, NULL);
        HP_JSON_NUMBERS(j, {"step", t->step}, {"temp", t->temp}, {"pe", t->pe}, {"ke", t->ke},
                        {"etotal", t->etotal}, {"press", t->press});
        hp_json_object_end(j);
    }
    hp_json_array_end(j);
}

/* The "md" member: what is particular to this kernel. */
static void md_json(hp_json *j, const md_sim *s, const md_results *r)
{
    hp_json_object_begin(j, "md");
    hp_json_int(j, "atoms", s->natoms);
    hp_json_int(j, "steps_done", s->steps_done);
    hp_json_array_begin(j, "box");
    for (int d = 0; d < 3; d++) hp_json_real(j, NULL, s->box_len[d]);
    hp_json_array_end(j);
    hp_json_array_begin(j, "grid");
    for (int d = 0; d < 3; d++) hp_json_int(j, NULL, s->decomp.dims[d]);
    hp_json_array_end(j);
    hp_json_real(j, "ghost_cut", s->ghost_cut);
    hp_json_string(j, "units", s->p.units->name);
    hp_json_array_begin(j, "masses"); /* of atom types 1, 2, ... */
    for (int t = 1; t <= s->species.ntypes; t++) hp_json_real(j, NULL, s->species.mass[t]);
    hp_json_array_end(j);
    hp_json_string(j, "pair_kernel", s->p.pair_kernel_name);
    hp_json_object_begin(j, "neighbor");
    hp_json_int(j, "builds", s->nl.builds);
    hp_json_real(j, "mean_neighbors", r->mean_neighbors);
    hp_json_string(j, "list", "full");
    hp_json_object_end(j);
    halo_json(j, s, r);
    thermo_json(j, s);
    hp_json_object_end(j);
}

void md_profile_members(hp_json *j, const void *state, const void *results)
{
    const md_sim *s = state;
    const md_results *r = results;
    hp_json_params_and_checks(j, s->args, s->nargs, r->checks, MD_CHECKS);
    hp_json_array_begin(j, "figures_of_merit");
    const double ns = ns_per_atom_step(s, r);
    hp_json_figure(j, "ns_per_atom_step", ns, "ns", "lower");
    hp_json_figure(j, "atom_steps_per_second", ns > 0 ? 1e9 / ns : 0.0, "1/s", "higher");
    hp_json_figure(j, "loop_time", loop_seconds(r), "s", "lower");
    hp_json_array_end(j);
    /* the regions, or with --no-timers the loop's alone (all that is timed) */
    hp_json_measured(j, s->timers.enabled ? r->regions : &r->regions[R_TOTAL], s->timers.enabled ? r->nregions : 1,
                     r->comm, &r->times);
    md_region_groups_json(j, s->p.potential);
    if (r->openmp_idle) hp_json_omp_idle(j, r->openmp_idle, s->nranks);
    md_json(j, s, r);
}
