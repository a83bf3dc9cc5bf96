/* Command-line options, declared once as a table.
 *
 * Each kernel describes its options in one array; from it come parsing with validation, --help
 * with every default, the "parameters:" line printed at start-up, and the params section of the
 * profile. Declaring an option once keeps those four from drifting apart. Parsing is pure (no
 * MPI, no printing): every rank parses the same argv and reaches the same verdict, and the caller
 * decides who prints.
 *
 * Some kernels mirror a classic program whose inputs are positional (CLOMP's seven numbers). Such
 * an option is still a named option with the `positional` flag: the n-th bare word on the command
 * line is the n-th positional option of the table, and `--name value` sets it too, because study
 * specs and front ends only know names. Keeping one table entry per input, whatever the spelling,
 * keeps --help, --options, the parameters line and the profile's params identical for both. A bare
 * word that looks like a negative number ("-1") is a positional value, not a short option. */
#ifndef HP_ARGS_H
#define HP_ARGS_H

#include <stddef.h>
#include <stdio.h>

#include "hp_json.h"

typedef enum {
    HP_ARG_INT,    /* int *            */
    HP_ARG_REAL,   /* double *         */
    HP_ARG_CHOICE, /* const char **, one of .choices ("a|b") */
    HP_ARG_PATH,   /* const char **, NULL when absent */
    HP_ARG_FLAG,   /* int *, set to 1  */
    HP_ARG_INT3,   /* int[3]           */
    HP_ARG_LIST    /* hp_list *, comma-separated words */
} hp_arg_type;

/* A list option's words, "8,1K,64K" -> {"8", "1K", "64K"}: split once here, so that no kernel writes its
 * own comma loop; each kernel turns the words into what they name (sizes, constructs, rank counts). */
enum { HP_LIST_MAX = 64, HP_LIST_WORD = 32 };
typedef struct {
    int n;
    char item[HP_LIST_MAX][HP_LIST_WORD];
} hp_list;

/* Fills list from comma-separated text: no empty entry, no word listed twice, at most HP_LIST_MAX words
 * of fewer than HP_LIST_WORD characters. 0, or -1 with a message naming --option. */
int hp_list_parse(hp_list *list, const char *option, const char *text, char *err, size_t errlen);
/* The words joined by commas (truncated to n bytes). */
void hp_list_format(const hp_list *list, char *buf, size_t n);
/* The words as rank counts (whole numbers from 1) in out[list->n]; 0, or -1 with a message naming --option. */
int hp_list_rank_counts(const hp_list *list, const char *option, int *out, char *err, size_t errlen);

typedef enum { HP_MIN_NONE, HP_MIN_INCLUSIVE, HP_MIN_EXCLUSIVE } hp_min_rule;

typedef struct {
    const char *name; /* long option without dashes: "steps" */
    char short_name;  /* 's' or 0 */
    hp_arg_type type;
    void *value;
    const char *metavar;
    const char *help;
    hp_min_rule min_rule; /* numeric types: lower bound on the value (every element of INT3) */
    double min;
    const char *choices;
    int positional; /* also given by position: the n-th bare word fills the n-th positional option */
    int required;   /* must be given (by position or by name); it has no default */
    int set;        /* filled by the parser: 1 when given on the command line */
} hp_arg;

/* The fields every option has; bounds and choices follow as designated initialisers:
 *   {HP_OPTION("steps", 'n', HP_ARG_INT, &p->steps, "N", "time steps"), .min_rule = HP_MIN_INCLUSIVE} */
#define HP_OPTION(name_, short_, type_, value_, metavar_, help_)                                                       \
    .name = (name_), .short_name = (short_), .type = (type_), .value = (value_), .metavar = (metavar_), .help = (help_)

/* Options that several kernels have, worded once. what_ names the grid: "rank", "node". */
#define HP_OPTION_PROFILE(path_) {HP_OPTION("profile", 0, HP_ARG_PATH, (path_), "FILE", "write the JSON profile here")}
#define HP_OPTION_GRID(grid_, what_)                                                                                   \
    {HP_OPTION("grid", 0, HP_ARG_INT3, (grid_), "X Y Z", what_ " grid (0 0 0: chosen by MPI_Dims_create)"),            \
     .min_rule = HP_MIN_INCLUSIVE}
#define HP_OPTION_NO_TIMERS(flag_)                                                                                     \
    {HP_OPTION("no-timers", 0, HP_ARG_FLAG, (flag_), NULL,                                                             \
               "disable region and communication timers (to measure their overhead)")}
#define HP_OPTION_NO_THREAD_TIMES(flag_)                                                                               \
    {HP_OPTION("no-thread-times", 0, HP_ARG_FLAG, (flag_), NULL,                                                       \
               "do not time each thread's share of the parallel regions (the profile's openmp_idle; to measure that "  \
               "overhead)")}

/* Parses argv[1..]; returns 0, or -1 with a one-line message in err. A positional or required option
 * given twice (by position and by name, or twice by name) is an error; other options keep the last
 * value given. */
int hp_args_parse(hp_arg *args, int nargs, int argc, char **argv, char *err, size_t errlen);
/* True when argv holds --NAME (or -SHORT); used for --help/--version before MPI starts. */
int hp_args_has(int argc, char **argv, const char *name, char short_name);
hp_arg *hp_args_find(hp_arg *args, int nargs, const char *name);

/* --help: positional options first ("arguments", in their order), then the others ("options"). */
void hp_args_help(FILE *out, const char *usage, const char *summary, const hp_arg *args, int nargs);
/* "parameters: --steps 100 ..." with the options given on the command line marked by '*'. */
void hp_args_print(FILE *out, const hp_arg *args, int nargs);
/* The option table as JSON, for front ends that validate parameters before launching:
 * [{"name", "type": int|real|choice|path|flag|int3|list, "default" (null when required), "min", "min_exclusive",
 *   "choices", "help", "positional", "required"}]. */
void hp_args_describe(FILE *out, const hp_arg *args, int nargs);
/* One JSON member per option (name without dashes, '-' turned into '_'); absent paths are null. */
void hp_args_json(hp_json *j, const hp_arg *args, int nargs);

#endif
