/* The regions md's loop is timed in: their names (the timers, the plan's messages) and the profile's two groups.
 *
 * Every potential has the first eight; a many-body potential adds its own, which the stages of its table name
 * (md.h). Its regions are the eight and the own ones up to the last its stages use: md_region orders the own ones
 * so that this is exactly Tersoff's two and eam/fs's four, and so the timers, the plan and the profile's groups all
 * follow from the one table, with no list of regions per potential to keep in step with it. */
#include "md.h"

typedef enum { UNGROUPED, COMPUTATION, COMMUNICATION } region_group;

static const struct {
    const char *name;
    region_group group;
} regions[MD_REGIONS] = {
    [R_FORCE] = {"force", COMPUTATION},
    [R_NEIGHBOR] = {"neighbor", COMPUTATION},
    [R_INTEGRATE] = {"integrate", UNGROUPED},
    [R_HALO] = {"halo_exchange", COMMUNICATION},
    [R_MIGRATION] = {"migration", COMMUNICATION},
    [R_REDUCTION] = {"reduction", COMMUNICATION},
    [R_OTHER] = {"other", UNGROUPED},
    [R_TOTAL] = {"total", UNGROUPED},
    [R_FORCE_REDUCTION] = {"force_reduction", COMPUTATION},
    [R_FORCE_EXCHANGE] = {"force_exchange", COMMUNICATION},
    [R_DENSITY] = {"density", COMPUTATION},
    [R_DENSITY_EXCHANGE] = {"density_exchange", COMMUNICATION},
};

const char *md_region_name(md_region r) { return regions[r].name; }

static int regions_of(const md_potential_ops *potential)
{
    int count = R_TOTAL + 1;
    for (int k = 0; k < potential->nstages; k++)
        if ((int)potential->stages[k].region >= count) count = (int)potential->stages[k].region + 1;
    return count;
}

void md_regions_add(hp_timers *t, const md_potential_ops *potential)
{
    for (int r = 0; r < regions_of(potential); r++) hp_timer_add(t, regions[r].name);
}

void md_region_groups_json(hp_json *j, const md_potential_ops *potential)
{
    static const char *const keys[] = {[COMPUTATION] = "computation", [COMMUNICATION] = "communication"};
    hp_json_object_begin(j, "region_groups");
    for (region_group g = COMPUTATION; g <= COMMUNICATION; g++) {
        const char *names[MD_REGIONS];
        int n = 0;
        for (int r = 0; r < regions_of(potential); r++)
            if (regions[r].group == g) names[n++] = regions[r].name;
        hp_json_strings(j, keys[g], names, n);
    }
    hp_json_object_end(j);
}
