/* hybridperf-md: set-up, the time-step loop, and the report.
 *
 * One step is the thesis's sequence (movea, movout, force, moveb, sum) in velocity-Verlet form:
 *   half kick + drift | halo update, or at rebuild steps migrate + sort + halo build + lists |
 *   forces | half kick | global sums at thermo steps.
 * Only the loop is timed and its communication counted, as the thesis timed its main loop; set-up
 * and output are outside. Every rank runs the same code; rank 0 prints and writes the profile. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "hp_output.h"
#include "hp_report.h"
#include "hp_run.h"
#include "md.h"

enum { EXIT_BAD_INPUT = 2, EXIT_CHECK_FAILED = 3 };

static const char *const region_names[] = {"force",     "neighbor",  "integrate", "halo_exchange",
                                           "migration", "reduction", "other",     "total"};

typedef struct {
    const char *name;
    double value, expected, tolerance;
    int pass;
} md_check;

enum { N_CHECKS = 5 };

typedef struct {
    double loop_seconds;
    md_check checks[N_CHECKS];
    hp_region_stat regions[HP_MAX_REGIONS];
    int nregions;
    hp_comm_stat comm[HP_NCLASSES];
    hp_stat halo_messages_per_exchange;
    int *halo_sizes; /* rank 0: 6 per rank, atoms per message at the last halo build */
    double mean_neighbors;
} md_results;

static int is_thermo_step(const md_params *p, long long step)
{
    return step == 0 || step == p->steps || (p->thermo > 0 && step % p->thermo == 0);
}

/* Returns the number of lost atoms (same on every rank). */
static long long record_thermo(md_sim *s, long long step)
{
    md_thermo_row row;
    md_thermo_compute(s, step, &row);
    if (s->rank != 0) return row.lost;
    if (s->nthermo == s->thermo_cap) {
        s->thermo_cap = s->thermo_cap ? 2 * s->thermo_cap : 64;
        s->thermo = realloc(s->thermo, (size_t)s->thermo_cap * sizeof *s->thermo);
    }
    s->thermo[s->nthermo++] = row;
    md_thermo_print(stdout, &row);
    if (row.lost)
        printf("%s: %lld atoms lost at step %lld (non-finite or beyond the ghost cut outside their subdomain): the "
               "run is unstable, stopping; try a smaller --dt\n",
               MD_PROGRAM, row.lost, step);
    fflush(stdout);
    return row.lost;
}

/* Builds the box and the owned atoms (lattice or data file) and the decomposition. */
static int setup_system(md_sim *s, char *err, size_t errlen)
{
    md_data file = {0};
    int ok = 1;
    if (s->p.read_data) {
        if (s->rank == 0) ok = md_data_load(s->p.read_data, &file, err, errlen) == 0;
        if (hp_any_error(&s->comm, MPI_COMM_WORLD, ok, MD_KERNEL, err)) return -1;
        double header[8] = {file.lo[0],  file.lo[1],  file.lo[2],          file.len[0],
                            file.len[1], file.len[2], (double)file.natoms, file.has_velocities};
        hp_bcast(&s->comm, header, 8, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        memcpy(s->box_lo, header, 3 * sizeof(double));
        memcpy(s->box_len, header + 3, 3 * sizeof(double));
        s->natoms = (long long)header[6];
        file.has_velocities = (int)header[7];
    } else {
        md_lattice_box(s->p.size, s->p.density, s->box_lo, s->box_len);
    }
    ok = hp_decomp_create(&s->decomp, MPI_COMM_WORLD, s->p.grid, s->box_lo, s->box_len, s->ghost_cut, err, errlen) == 0;
    if (!ok && !s->p.read_data && strstr(err, "thinner")) {
        const int *dims = s->decomp.dims;
        int widest = dims[0] > dims[1] ? dims[0] : dims[1];
        widest = widest > dims[2] ? widest : dims[2];
        int size = (int)ceil(s->ghost_cut * widest / cbrt(4.0 / s->p.density));
        size_t used = strlen(err);
        snprintf(err + used, errlen - used, ": -s %d or more for a %d x %d x %d grid", size, dims[0], dims[1], dims[2]);
    }
    if (hp_any_error(&s->comm, MPI_COMM_WORLD, ok, MD_KERNEL, err)) {
        md_data_free(&file);
        return -1;
    }
    if (s->p.read_data)
        md_data_distribute(s, &file);
    else
        md_lattice_create(s);
    if (!file.has_velocities) md_velocity_create(s);
    md_data_free(&file);
    return 0;
}

static void print_banner(const md_sim *s, const hp_run *run)
{
    const hp_decomp *d = &s->decomp;
    printf("%s: Lennard-Jones %s, %lld atoms in a %.6g x %.6g x %.6g box, %d steps\n", MD_PROGRAM, s->p.potential_name,
           s->natoms, s->box_len[0], s->box_len[1], s->box_len[2], s->p.steps);
    hp_args_print(stdout, s->args, s->nargs);
    printf("decomposition: %d ranks as %d x %d x %d, %d thread%s per rank, %d node%s (MPI thread level %d of %d "
           "requested)\n",
           s->nranks, d->dims[0], d->dims[1], d->dims[2], s->threads, s->threads > 1 ? "s" : "", run->nodes,
           run->nodes > 1 ? "s" : "", run->thread_provided, run->thread_requested);
    md_thermo_print_header(stdout);
}

static void rebuild(md_sim *s)
{
    hp_timer_start(&s->timers, R_MIGRATION);
    md_migrate(s);
    hp_timer_stop(&s->timers, R_MIGRATION);
    hp_timer_start(&s->timers, R_NEIGHBOR);
    md_neighbor_sort_locals(s);
    hp_timer_stop(&s->timers, R_NEIGHBOR);
    hp_timer_start(&s->timers, R_HALO);
    md_halo_build(s);
    hp_timer_stop(&s->timers, R_HALO);
    hp_timer_start(&s->timers, R_NEIGHBOR);
    md_neighbor_build(s);
    hp_timer_stop(&s->timers, R_NEIGHBOR);
}

/* Step 0: lists, forces and energies of the initial state; not timed, not counted. */
static void setup_dynamics(md_sim *s)
{
    md_neighbor_init(s);
    hp_timers_init(&s->timers, 0);
    rebuild(s);
    md_force(s, 1);
    record_thermo(s, 0);
}

static double run_loop(md_sim *s)
{
    const md_params *p = &s->p;
    hp_timers *t = &s->timers;
    hp_timers_init(t, !p->no_timers);
    for (size_t k = 0; k < sizeof region_names / sizeof *region_names; k++) hp_timer_add(t, region_names[k]);
    s->halo.exchanges = s->halo.messages = 0;
    hp_comm_count(&s->comm, 1);
    const double start = hp_now();
    for (long long step = 1; step <= p->steps; step++) {
        const int thermo = is_thermo_step(p, step);
        hp_timer_start(t, R_INTEGRATE);
        md_initial_integrate(s);
        hp_timer_stop(t, R_INTEGRATE);
        if (step % p->neigh_every == 0) {
            rebuild(s);
        } else {
            hp_timer_start(t, R_HALO);
            md_halo_update(s);
            hp_timer_stop(t, R_HALO);
        }
        hp_timer_start(t, R_FORCE);
        md_force(s, thermo);
        hp_timer_stop(t, R_FORCE);
        hp_timer_start(t, R_INTEGRATE);
        md_final_integrate(s);
        hp_timer_stop(t, R_INTEGRATE);
        s->steps_done = step;
        if (thermo) {
            hp_timer_start(t, R_REDUCTION);
            long long lost = record_thermo(s, step);
            hp_timer_stop(t, R_REDUCTION);
            if (lost) break;
        }
    }
    const double seconds = hp_now() - start;
    hp_comm_count(&s->comm, 0);
    /* "total" is always known; "other" is what no region claims (loop overhead, thermo printing). */
    double claimed = 0.0;
    for (int k = 0; k < R_OTHER; k++) claimed += t->region[k].seconds;
    if (t->enabled) {
        t->region[R_OTHER].seconds = seconds - claimed;
        t->region[R_OTHER].calls = s->steps_done;
    }
    t->region[R_TOTAL].seconds = seconds;
    t->region[R_TOTAL].calls = 1;
    return seconds;
}

static md_check check(const char *name, double value, double expected, double tolerance)
{
    return (md_check){name, value, expected, tolerance, fabs(value - expected) <= tolerance};
}

static void collect_results(md_sim *s, md_results *out)
{
    const md_atoms *a = &s->atoms;
    MPI_Comm comm = s->decomp.cart;
    double momentum[3] = {0, 0, 0}, total_momentum[3];
    for (int i = 0; i < a->nlocal; i++)
        for (int d = 0; d < 3; d++) momentum[d] += a->v[MD_VEC * i + d];
    long long counts[3] = {a->nlocal, s->misplaced, 0}, totals[3];
    for (int i = 0; i < a->nlocal; i++) counts[2] += s->nl.numneigh[i];
    hp_allreduce(&s->comm, momentum, total_momentum, 3, MPI_DOUBLE, MPI_SUM, comm);
    hp_allreduce(&s->comm, counts, totals, 3, MPI_LONG_LONG, MPI_SUM, comm);

    const double n = (double)s->natoms;
    const md_thermo_row *first = s->thermo, *last = s->thermo + s->nthermo - 1;
    double drift = s->rank == 0 ? fabs(last->etotal - first->etotal) / fabs(first->etotal) : 0.0;
    out->checks[0] = check("energy_drift", drift, 0.0, s->p.drift_tolerance);
    out->checks[1] = check("net_momentum",
                           sqrt(total_momentum[0] * total_momentum[0] + total_momentum[1] * total_momentum[1] +
                                total_momentum[2] * total_momentum[2]) /
                               n,
                           0.0, 1e-10);
    out->checks[2] = check("atom_count", (double)totals[0], n, 0.0);
    out->checks[3] = check("atoms_misplaced", (double)totals[1], 0.0, 0.0);
    out->checks[4] = check("lost_atoms", s->rank == 0 ? (double)last->lost : 0.0, 0.0, 0.0);
    out->mean_neighbors = (double)totals[2] / n;

    out->nregions = hp_reduce_regions(&s->comm, &s->timers, comm, out->regions);
    hp_reduce_comm(&s->comm, comm, out->comm);
    const md_halo *h = &s->halo;
    out->halo_messages_per_exchange =
        hp_stat_across(&s->comm, h->exchanges ? (double)h->messages / (double)h->exchanges : 0.0, comm);
    out->halo_sizes = s->rank == 0 ? malloc((size_t)s->nranks * MD_DIRECTIONS * sizeof(int)) : NULL;
    hp_gather(&s->comm, h->send_count, MD_DIRECTIONS, MPI_INT, out->halo_sizes, 0, comm);
}

static int all_pass(const md_results *r)
{
    for (int k = 0; k < N_CHECKS; k++)
        if (!r->checks[k].pass) return 0;
    return 1;
}

static void print_summary(const md_sim *s, const md_results *r)
{
    const double atom_steps = (double)s->natoms * s->steps_done;
    const double loop = r->regions[R_TOTAL].seconds.max;
    printf("\nLoop time of %.6g s on %d rank%s x %d thread%s for %d steps with %lld atoms\n", loop, s->nranks,
           s->nranks > 1 ? "s" : "", s->threads, s->threads > 1 ? "s" : "", (int)s->steps_done, s->natoms);
    if (s->timers.enabled) hp_print_regions(stdout, r->regions, r->nregions, r->regions[R_TOTAL].seconds.avg);
    hp_print_comm(stdout, r->comm);
    printf("neighbors: %.2f per atom (full list), %d builds\n", r->mean_neighbors, s->nl.builds);
    printf("checks:");
    for (int k = 0; k < N_CHECKS; k++)
        printf(" %s %.3g (tolerance %.3g) %s;", r->checks[k].name, r->checks[k].value, r->checks[k].tolerance,
               r->checks[k].pass ? "pass" : "FAIL");
    printf("\nPERF kernel=md ns_per_atom_step=%.4f atom_steps_per_s=%.6e atoms=%lld steps=%d ranks=%d threads=%d "
           "loop_s=%.6f\n",
           atom_steps > 0 ? 1e9 * loop / atom_steps : 0.0, loop > 0 ? atom_steps / loop : 0.0, s->natoms,
           (int)s->steps_done, s->nranks, s->threads, loop);
    fflush(stdout);
}

static void figure(hp_json *j, const char *name, double value, const char *unit, const char *better)
{
    hp_json_object_begin(j, NULL);
    hp_json_string(j, "name", name);
    hp_json_real(j, "value", value);
    hp_json_string(j, "unit", unit);
    hp_json_string(j, "better", better);
    hp_json_object_end(j);
}

static void kernel_json(hp_json *j, const md_sim *s, const md_results *r)
{
    static const char *const directions[MD_DIRECTIONS] = {"-x", "+x", "-y", "+y", "-z", "+z"};
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
    hp_json_object_begin(j, "neighbor");
    hp_json_int(j, "builds", s->nl.builds);
    hp_json_real(j, "mean_neighbors", r->mean_neighbors);
    hp_json_string(j, "list", "full");
    hp_json_object_end(j);
    hp_json_object_begin(j, "halo");
    hp_stat_json(j, "messages_per_exchange", &r->halo_messages_per_exchange);
    hp_json_array_begin(j, "directions");
    for (int k = 0; k < MD_DIRECTIONS; k++) hp_json_string(j, NULL, directions[k]);
    hp_json_array_end(j);
    hp_json_array_begin(j, "atoms_per_message");
    for (int rank = 0; rank < s->nranks; rank++) {
        hp_json_array_begin(j, NULL);
        for (int k = 0; k < MD_DIRECTIONS; k++) hp_json_int(j, NULL, r->halo_sizes[rank * MD_DIRECTIONS + k]);
        hp_json_array_end(j);
    }
    hp_json_array_end(j);
    hp_json_object_end(j);
    hp_json_array_begin(j, "thermo");
    for (int k = 0; k < s->nthermo; k++) {
        const md_thermo_row *t = &s->thermo[k];
        hp_json_object_begin(j, NULL);
        hp_json_int(j, "step", t->step);
        hp_json_real(j, "temp", t->temp);
        hp_json_real(j, "pe", t->pe);
        hp_json_real(j, "ke", t->ke);
        hp_json_real(j, "etotal", t->etotal);
        hp_json_real(j, "press", t->press);
        hp_json_object_end(j);
    }
    hp_json_array_end(j);
    hp_json_object_end(j);
}

static int write_profile(const md_sim *s, const hp_run *run, const md_results *r, char *err, size_t errlen)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    hp_json j;
    hp_json_open(&j, out);
    hp_json_object_begin(&j, NULL);
    hp_profile_header(&j, run);
    hp_json_object_begin(&j, "params");
    hp_args_json(&j, s->args, s->nargs);
    hp_json_object_end(&j);
    hp_json_string(&j, "status", all_pass(r) ? "ok" : "check-failed");
    hp_json_object_begin(&j, "checks");
    for (int k = 0; k < N_CHECKS; k++) {
        hp_json_object_begin(&j, r->checks[k].name);
        hp_json_real(&j, "value", r->checks[k].value);
        hp_json_real(&j, "expected", r->checks[k].expected);
        hp_json_real(&j, "tolerance", r->checks[k].tolerance);
        hp_json_bool(&j, "pass", r->checks[k].pass);
        hp_json_object_end(&j);
    }
    hp_json_object_end(&j);
    const double loop = r->regions[R_TOTAL].seconds.max, atom_steps = (double)s->natoms * s->steps_done;
    hp_json_array_begin(&j, "figures_of_merit");
    figure(&j, "ns_per_atom_step", atom_steps > 0 ? 1e9 * loop / atom_steps : 0.0, "ns", "lower");
    figure(&j, "atom_steps_per_second", loop > 0 ? atom_steps / loop : 0.0, "1/s", "higher");
    figure(&j, "loop_time", loop, "s", "lower");
    hp_json_array_end(&j);
    if (s->timers.enabled)
        hp_json_regions(&j, r->regions, r->nregions);
    else
        hp_json_regions(&j, &r->regions[R_TOTAL], 1); /* --no-timers: only the loop time is known */
    hp_json_object_begin(&j, "region_groups");
    const char *computation[] = {"force", "neighbor"}, *communication[] = {"halo_exchange", "migration", "reduction"};
    hp_json_array_begin(&j, "computation");
    for (int k = 0; k < 2; k++) hp_json_string(&j, NULL, computation[k]);
    hp_json_array_end(&j);
    hp_json_array_begin(&j, "communication");
    for (int k = 0; k < 3; k++) hp_json_string(&j, NULL, communication[k]);
    hp_json_array_end(&j);
    hp_json_object_end(&j);
    hp_json_comm(&j, r->comm);
    kernel_json(&j, s, r);
    hp_json_object_end(&j);
    fclose(out);
    int status = hp_write_atomic(s->p.profile, text, len, err, errlen);
    free(text);
    return status;
}

static int validate_options(md_sim *s, int argc, char **argv, char *err, size_t errlen)
{
    s->nargs = md_params_table(&s->p, s->args);
    if (hp_args_parse(s->args, s->nargs, argc, argv, err, errlen)) return -1;
    if (md_params_validate(&s->p, s->args, s->nargs, err, errlen)) return -1;
    if (s->p.profile && hp_check_writable(s->p.profile, err, errlen)) return -1;
    if (s->p.write_data && hp_check_writable(s->p.write_data, err, errlen)) return -1;
    return 0;
}

static int simulate(md_sim *s, hp_run *run)
{
    char err[1024] = "";
    int ok = validate_options(s, run->argc, run->argv, err, sizeof err) == 0;
    if (hp_any_error(&s->comm, MPI_COMM_WORLD, ok, MD_KERNEL, err)) return EXIT_BAD_INPUT;
    s->comm.timing = !s->p.no_timers;
    s->rank = run->rank;
    s->nranks = run->ranks;
    s->threads = run->threads;
    s->ghost_cut = s->p.cutoff + s->p.skin;
    if (setup_system(s, err, sizeof err)) return EXIT_BAD_INPUT;
    if (s->rank == 0) print_banner(s, run);
    setup_dynamics(s);
    run_loop(s);

    md_results r = {0};
    collect_results(s, &r);
    hp_run_capture_affinity(run, &s->comm);
    ok = 1;
    if (s->rank == 0) {
        print_summary(s, &r);
        if (s->p.profile) ok = write_profile(s, run, &r, err, sizeof err) == 0;
    }
    if (hp_any_error(&s->comm, MPI_COMM_WORLD, ok, MD_KERNEL, err)) return EXIT_FAILURE;
    if (s->p.write_data) {
        ok = md_data_write(s, s->p.write_data, s->steps_done, err, sizeof err) == 0;
        if (hp_any_error(&s->comm, MPI_COMM_WORLD, ok, MD_KERNEL, err)) return EXIT_FAILURE;
    }
    int passed = all_pass(&r);
    hp_bcast(&s->comm, &passed, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(r.halo_sizes);
    return passed ? EXIT_SUCCESS : EXIT_CHECK_FAILED;
}

int main(int argc, char **argv)
{
    if (hp_run_early_exit(argc, argv, MD_PROGRAM, md_params_help)) return EXIT_SUCCESS;
    md_sim *s = calloc(1, sizeof *s);
    s->decomp.cart = MPI_COMM_NULL; /* freed at exit whether or not set-up got that far */
    hp_run run;
    hp_comm_init(&s->comm, 1);
    hp_run_start(&run, MD_KERNEL, argc, argv, MPI_THREAD_FUNNELED, &s->comm);
    int status = simulate(s, &run);
    md_halo_free(&s->halo);
    md_neighbor_free(&s->nl);
    md_atoms_free(&s->atoms);
    free(s->thermo);
    hp_decomp_free(&s->decomp);
    free(s);
    hp_run_finish(&run);
    return status;
}
