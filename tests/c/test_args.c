/* Option parsing: values, bounds, choices, INT3, flags, lists, positional options, and the one-line errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "hp_args.h"

typedef struct {
    int steps, flag, grid[3];
    double dt;
    const char *pot, *path;
    hp_list sizes;
} opts;

static int table(opts *o, hp_arg *a)
{
    *o = (opts){.steps = 100, .dt = 0.005, .pot = "lj/cut", .sizes = {.n = 2, .item = {"8", "1K"}}};
    const hp_arg t[] = {
        {HP_OPTION("steps", 'n', HP_ARG_INT, &o->steps, "N", "steps"), .min_rule = HP_MIN_INCLUSIVE},
        {HP_OPTION("dt", 0, HP_ARG_REAL, &o->dt, "DT", "step"), .min_rule = HP_MIN_EXCLUSIVE},
        {HP_OPTION("potential", 0, HP_ARG_CHOICE, &o->pot, "P", "pot"), .choices = "lj/cut|lj/sf"},
        {HP_OPTION("grid", 0, HP_ARG_INT3, o->grid, "X Y Z", "grid"), .min_rule = HP_MIN_INCLUSIVE},
        {HP_OPTION("profile", 0, HP_ARG_PATH, &o->path, "F", "file")},
        {HP_OPTION("quiet", 0, HP_ARG_FLAG, &o->flag, NULL, "flag")},
        {HP_OPTION("sizes", 0, HP_ARG_LIST, &o->sizes, "LIST", "sizes")},
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

/* The text a describe or help call writes about the option table a (n options), in a static buffer. */
static const char *captured(void (*write)(FILE *, const hp_arg *, int), const hp_arg *a, int n)
{
    static char text[8192];
    FILE *f = tmpfile();
    write(f, a, n);
    rewind(f);
    size_t len = fread(text, 1, sizeof text - 1, f);
    text[len] = '\0';
    fclose(f);
    return text;
}

static void help(FILE *f, const hp_arg *a, int n) { hp_args_help(f, "prog [options] numThreads numParts", "s", a, n); }

/* The params section of a profile: one member per option. */
static void params_json(FILE *f, const hp_arg *a, int n)
{
    hp_json j;
    hp_json_open(&j, f);
    hp_json_object_begin(&j, NULL);
    hp_args_json(&j, a, n);
    hp_json_object_end(&j);
}

/* Writes `count` words, "w0,w1,...", into text. */
static void numbered_words(char *text, size_t len, int count)
{
    size_t used = 0;
    for (int k = 0; k < count; k++) used += (size_t)snprintf(text + used, len - used, "%sw%d", k ? "," : "", k);
}

static void test_list_parse(void)
{
    hp_list l;
    char err[256], text[HP_LIST_MAX * 8];
    CHECK(hp_list_parse(&l, "sizes", "8,1K,64K", err, sizeof err) == 0);
    CHECK(l.n == 3 && strcmp(l.item[0], "8") == 0 && strcmp(l.item[1], "1K") == 0 && strcmp(l.item[2], "64K") == 0);
    hp_list_format(&l, text, sizeof text);
    CHECK(strcmp(text, "8,1K,64K") == 0);
    hp_list_format(&l, text, 5);
    CHECK(strcmp(text, "8,1K") == 0); /* truncated to the buffer */
    CHECK(hp_list_parse(&l, "chunks", "pow2", err, sizeof err) == 0 && l.n == 1 && strcmp(l.item[0], "pow2") == 0);

    const char *empty[] = {"", ",8", "8,", "8,,16"};
    for (size_t k = 0; k < sizeof empty / sizeof *empty; k++) {
        char want[64];
        snprintf(want, sizeof want, "--sizes '%s': an empty entry between commas", empty[k]);
        CHECK(hp_list_parse(&l, "sizes", empty[k], err, sizeof err) == -1 && strcmp(err, want) == 0);
    }
    CHECK(hp_list_parse(&l, "sizes", "8,1K,8", err, sizeof err) == -1);
    CHECK(strcmp(err, "--sizes: 8 is listed twice") == 0);
    CHECK(hp_list_parse(&l, "styles", "single,Single", err, sizeof err) == 0 && l.n == 2); /* words, case kept */

    numbered_words(text, sizeof text, HP_LIST_MAX);
    CHECK(hp_list_parse(&l, "ranks", text, err, sizeof err) == 0 && l.n == HP_LIST_MAX);
    numbered_words(text, sizeof text, HP_LIST_MAX + 1);
    CHECK(hp_list_parse(&l, "ranks", text, err, sizeof err) == -1 && strcmp(err, "--ranks: at most 64 entries") == 0);

    char longest[HP_LIST_WORD], too_long[HP_LIST_WORD + 8];
    memset(longest, 'x', sizeof longest - 1);
    longest[sizeof longest - 1] = '\0';
    CHECK(hp_list_parse(&l, "sizes", longest, err, sizeof err) == 0 && strcmp(l.item[0], longest) == 0);
    snprintf(too_long, sizeof too_long, "8,%sy", longest);
    char want[96];
    snprintf(want, sizeof want, "--sizes: '%sy' is too long", longest);
    CHECK(hp_list_parse(&l, "sizes", too_long, err, sizeof err) == -1 && strcmp(err, want) == 0);
}

/* A list option through the table: parsed, last value kept, errors named, described and written as arrays. */
static void test_list_option(void)
{
    opts o;
    hp_arg a[8];
    int n = table(&o, a);
    const char *described = captured(hp_args_describe, a, n);
    CHECK(strstr(described, "\"type\": \"list\",\n    \"default\": [\n      \"8\",\n      \"1K\"\n    ]") != NULL);
    const char *text = captured(help, a, n);
    CHECK(strstr(text, "--sizes LIST") != NULL && strstr(text, "sizes [default: 8,1K]") != NULL);

    char *given[] = {"prog", "--sizes", "16,4K", "--sizes=1,2,3"};
    CHECK(parse(&o, 1, given) == NULL && o.sizes.n == 2 && strcmp(o.sizes.item[1], "1K") == 0); /* the default */
    CHECK(parse(&o, 3, given) == NULL && o.sizes.n == 2 && strcmp(o.sizes.item[1], "4K") == 0);
    CHECK(parse(&o, 4, given) == NULL && o.sizes.n == 3 && strcmp(o.sizes.item[2], "3") == 0); /* the last given */

    n = table(&o, a);
    char err[256];
    CHECK(hp_args_parse(a, n, 3, given, err, sizeof err) == 0);
    const char *params = captured(params_json, a, n);
    CHECK(strstr(params, "\"sizes\": [\n    \"16\",\n    \"4K\"\n  ]") != NULL);
    CHECK(strstr(captured(hp_args_print, a, n), " --sizes 16,4K*") != NULL);

    char *missing[] = {"prog", "--sizes"};
    CHECK(strcmp(parse(&o, 2, missing), "--sizes needs 1 value") == 0);
    char *empty[] = {"prog", "--sizes", "8,,16"};
    CHECK(strcmp(parse(&o, 3, empty), "--sizes '8,,16': an empty entry between commas") == 0);
    char *twice[] = {"prog", "--sizes=8,8"};
    CHECK(strcmp(parse(&o, 2, twice), "--sizes: 8 is listed twice") == 0);
}

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

    hp_arg a[8];
    const int n = pos_table(&o, a);
    const char *described = captured(hp_args_describe, a, n);
    CHECK(strstr(described, "\"name\": \"numThreads\"") != NULL);
    CHECK(strstr(described, "\"default\": null") != NULL);
    CHECK(strstr(described, "\"positional\": true") != NULL && strstr(described, "\"required\": true") != NULL);
    const char *text = captured(help, a, n);
    const char *arguments = strstr(text, "arguments (in this order, or each as --NAME VALUE):\n  numThreads");
    const char *options = strstr(text, "options:\n  -q, --quiet");
    CHECK(arguments != NULL && options != NULL && arguments < options);
    CHECK(strstr(text, "threads [required]") != NULL && strstr(text, "scale [default: 1]") != NULL);
}

int main(void)
{
    test_positional();
    test_list_parse();
    test_list_option();
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
