/* Option parsing: values, bounds, choices, INT3, flags, and the one-line errors. */
#include <string.h>

#include "check.h"
#include "hp_args.h"

typedef struct {
    int steps, flag, grid[3];
    double dt;
    const char *pot, *path;
} opts;

static int table(opts *o, hp_arg *a)
{
    *o = (opts){.steps = 100, .dt = 0.005, .pot = "lj/cut"};
    const hp_arg t[] = {
        {HP_OPTION("steps", 'n', HP_ARG_INT, &o->steps, "N", "steps"), .min_rule = HP_MIN_INCLUSIVE},
        {HP_OPTION("dt", 0, HP_ARG_REAL, &o->dt, "DT", "step"), .min_rule = HP_MIN_EXCLUSIVE},
        {HP_OPTION("potential", 0, HP_ARG_CHOICE, &o->pot, "P", "pot"), .choices = "lj/cut|lj/sf"},
        {HP_OPTION("grid", 0, HP_ARG_INT3, o->grid, "X Y Z", "grid"), .min_rule = HP_MIN_INCLUSIVE},
        {HP_OPTION("profile", 0, HP_ARG_PATH, &o->path, "F", "file")},
        {HP_OPTION("quiet", 0, HP_ARG_FLAG, &o->flag, NULL, "flag")},
    };
    memcpy(a, t, sizeof t);
    return (int)(sizeof t / sizeof *t);
}

static const char *parse(opts *o, int argc, char **argv)
{
    static char err[256];
    hp_arg a[8];
    int n = table(o, a);
    err[0] = '\0';
    return hp_args_parse(a, n, argc, argv, err, sizeof err) == 0 ? NULL : err;
}

int main(void)
{
    opts o;
    char *good[] = {"prog", "-n", "7", "--dt=0.01", "--potential", "lj/sf", "--grid", "2", "1", "1", "--quiet",
                    "--profile", "p.json"};
    CHECK(parse(&o, 13, good) == NULL);
    CHECK(o.steps == 7 && o.dt == 0.01 && strcmp(o.pot, "lj/sf") == 0 && o.flag == 1);
    CHECK(o.grid[0] == 2 && o.grid[1] == 1 && o.grid[2] == 1 && strcmp(o.path, "p.json") == 0);

    char *negative[] = {"prog", "--steps", "-5"};
    CHECK(strcmp(parse(&o, 3, negative), "--steps must be >= 0, got -5") == 0);
    char *zero_dt[] = {"prog", "--dt", "0"};
    CHECK(strcmp(parse(&o, 3, zero_dt), "--dt must be > 0, got 0") == 0);
    char *not_number[] = {"prog", "--dt", "fast"};
    CHECK(strcmp(parse(&o, 3, not_number), "--dt needs a number, got 'fast'") == 0);
    char *bad_choice[] = {"prog", "--potential", "morse"};
    CHECK(strcmp(parse(&o, 3, bad_choice), "--potential must be one of lj/cut|lj/sf, got 'morse'") == 0);
    char *short_grid[] = {"prog", "--grid", "2", "1"};
    CHECK(strcmp(parse(&o, 4, short_grid), "--grid needs 3 values") == 0);
    char *unknown[] = {"prog", "--stepz", "3"};
    CHECK(strcmp(parse(&o, 3, unknown), "unknown option '--stepz' (see --help)") == 0);
    char *stray[] = {"prog", "100"};
    CHECK(strstr(parse(&o, 2, stray), "unexpected argument '100'") != NULL);
    char *flag_value[] = {"prog", "--quiet=1"};
    CHECK(strcmp(parse(&o, 2, flag_value), "--quiet takes no value") == 0);
    return CHECK_DONE();
}
