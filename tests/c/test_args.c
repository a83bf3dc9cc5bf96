/* Option parsing: values, bounds, choices, INT3, flags, positional options, and the one-line errors. */
#include <stdio.h>
#include <stdlib.h>
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

/* A CLOMP-like table: two required positional integers (-1 allowed), one positional real, one option. */
typedef struct {
    int threads, parts, flag;
    double scale;
} pos_opts;

static int pos_table(pos_opts *o, hp_arg *a)
{
    *o = (pos_opts){.threads = 0, .parts = 0, .scale = 1.0};
    const hp_arg t[] = {
        {HP_OPTION("numThreads", 0, HP_ARG_INT, &o->threads, "N", "threads"), .min_rule = HP_MIN_INCLUSIVE, .min = -1,
         .positional = 1, .required = 1},
        {HP_OPTION("numParts", 0, HP_ARG_INT, &o->parts, "N", "parts"), .min_rule = HP_MIN_INCLUSIVE, .min = 1,
         .positional = 1, .required = 1},
        {HP_OPTION("scale", 0, HP_ARG_REAL, &o->scale, "X", "scale"), .positional = 1},
        {HP_OPTION("quiet", 'q', HP_ARG_FLAG, &o->flag, NULL, "flag")},
    };
    memcpy(a, t, sizeof t);
    return (int)(sizeof t / sizeof *t);
}

static const char *pos_parse(pos_opts *o, int argc, char **argv)
{
    static char err[256];
    hp_arg a[8];
    int n = pos_table(o, a);
    err[0] = '\0';
    return hp_args_parse(a, n, argc, argv, err, sizeof err) == 0 ? NULL : err;
}

/* The text a describe or help call writes, in a static buffer. */
static const char *captured(void (*write)(FILE *, const hp_arg *, int))
{
    static char text[8192];
    pos_opts o;
    hp_arg a[8];
    int n = pos_table(&o, a);
    FILE *f = tmpfile();
    write(f, a, n);
    rewind(f);
    size_t len = fread(text, 1, sizeof text - 1, f);
    text[len] = '\0';
    fclose(f);
    return text;
}

static void help(FILE *f, const hp_arg *a, int n) { hp_args_help(f, "prog [options] numThreads numParts", "s", a, n); }

static void test_positional(void)
{
    pos_opts o;
    char *by_position[] = {"prog", "-1", "64", "--quiet", "2.5"};
    CHECK(pos_parse(&o, 5, by_position) == NULL);
    CHECK(o.threads == -1 && o.parts == 64 && o.scale == 2.5 && o.flag == 1);
    char *by_name[] = {"prog", "--numParts", "16", "--numThreads=-1"};
    CHECK(pos_parse(&o, 4, by_name) == NULL);
    CHECK(o.threads == -1 && o.parts == 16 && o.scale == 1.0);
    char *mixed[] = {"prog", "2", "--numParts", "8"};
    CHECK(pos_parse(&o, 4, mixed) == NULL && o.threads == 2 && o.parts == 8);

    char *missing[] = {"prog", "2"};
    CHECK(
        strcmp(pos_parse(&o, 2, missing),
               "missing argument numParts (expected 3 positional arguments: numThreads numParts scale; see --help)") ==
        0);
    char *none[] = {"prog", "-q"};
    CHECK(strstr(pos_parse(&o, 2, none), "missing argument numThreads") != NULL);
    char *extra[] = {"prog", "2", "8", "1", "9"};
    CHECK(strcmp(pos_parse(&o, 5, extra),
                 "unexpected argument '9': all 3 positional arguments are already given (see --help)") == 0);
    char *twice[] = {"prog", "2", "8", "--numThreads", "4"};
    CHECK(strcmp(pos_parse(&o, 5, twice), "numThreads given both by position and as --numThreads") == 0);
    char *twice_late[] = {"prog", "--numThreads", "4", "2", "8"};
    CHECK(strcmp(pos_parse(&o, 5, twice_late), "numThreads given both as --numThreads and by position") == 0);
    char *twice_named[] = {"prog", "--numParts", "4", "--numParts", "8", "1"};
    CHECK(strcmp(pos_parse(&o, 6, twice_named), "--numParts given twice") == 0);
    char *too_low[] = {"prog", "-2", "8"};
    CHECK(strcmp(pos_parse(&o, 3, too_low), "numThreads must be >= -1, got -2") == 0);
    char *not_int[] = {"prog", "2", "lots"};
    CHECK(strcmp(pos_parse(&o, 3, not_int), "numParts needs an integer, got 'lots'") == 0);
    char *named_not_int[] = {"prog", "--numParts", "1.5", "2"};
    CHECK(strcmp(pos_parse(&o, 4, named_not_int), "numParts needs an integer, got '1.5'") == 0);

    const char *described = captured(hp_args_describe);
    CHECK(strstr(described, "\"name\": \"numThreads\"") != NULL);
    CHECK(strstr(described, "\"default\": null") != NULL);
    CHECK(strstr(described, "\"positional\": true") != NULL && strstr(described, "\"required\": true") != NULL);
    const char *text = captured(help);
    const char *arguments = strstr(text, "arguments (in this order, or each as --NAME VALUE):\n  numThreads");
    const char *options = strstr(text, "options:\n  -q, --quiet");
    CHECK(arguments != NULL && options != NULL && arguments < options);
    CHECK(strstr(text, "threads [required]") != NULL && strstr(text, "scale [default: 1]") != NULL);
}

int main(void)
{
    test_positional();
    opts o;
    char *good[] = {"prog", "-n", "7", "--dt=0.01", "--potential", "lj/sf", "--grid",
                    "2",    "1",  "1", "--quiet",   "--profile",   "p.json"};
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
