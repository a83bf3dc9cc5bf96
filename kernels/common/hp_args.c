/* Table-driven option parsing; see hp_args.h. */
#include "hp_args.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

static int parse_long(const char *s, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end) return -1;
    *out = v;
    return 0;
}

static int parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v)) return -1;
    *out = v;
    return 0;
}

/* Options are named "--steps" in messages; positional ones by their bare name, "numParts". */
static const char *dashes(const hp_arg *a) { return a->positional ? "" : "--"; }

static int within_bound(const hp_arg *a, double v)
{
    switch (a->min_rule) {
    case HP_MIN_INCLUSIVE:
        return v >= a->min;
    case HP_MIN_EXCLUSIVE:
        return v > a->min;
    default:
        return 1;
    }
}

static int bound_error(const hp_arg *a, const char *given, char *err, size_t errlen)
{
    return fail(err, errlen, "%s%s must be %s %g, got %s", dashes(a), a->name,
                a->min_rule == HP_MIN_EXCLUSIVE ? ">" : ">=", a->min, given);
}

static int is_choice(const char *choices, const char *s)
{
    size_t n = strlen(s);
    for (const char *p = choices; p && *p;) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && strncmp(p, s, n) == 0) return 1;
        p = bar ? bar + 1 : NULL;
    }
    return 0;
}

static int parse_int_value(const hp_arg *a, const char *s, int *out, char *err, size_t errlen)
{
    long v;
    if (parse_long(s, &v) || v < -2147483647L || v > 2147483647L)
        return fail(err, errlen, "%s%s needs an integer, got '%s'", dashes(a), a->name, s);
    if (!within_bound(a, (double)v)) return bound_error(a, s, err, errlen);
    *out = (int)v;
    return 0;
}

int hp_list_parse(hp_list *list, const char *option, const char *text, char *err, size_t errlen)
{
    list->n = 0;
    for (const char *p = text;;) {
        const size_t len = strcspn(p, ",");
        if (len == 0) return fail(err, errlen, "--%s '%s': an empty entry between commas", option, text);
        if (len >= HP_LIST_WORD) return fail(err, errlen, "--%s: '%.*s' is too long", option, (int)len, p);
        if (list->n == HP_LIST_MAX) return fail(err, errlen, "--%s: at most %d entries", option, HP_LIST_MAX);
        char *word = list->item[list->n];
        memcpy(word, p, len);
        word[len] = '\0';
        for (int k = 0; k < list->n; k++)
            if (strcmp(list->item[k], word) == 0) return fail(err, errlen, "--%s: %s is listed twice", option, word);
        list->n++;
        if (!p[len]) return 0;
        p += len + 1;
    }
}

void hp_list_format(const hp_list *list, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int k = 0; k < list->n && used < n; k++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s", k ? "," : "", list->item[k]);
}

int hp_list_rank_counts(const hp_list *list, const char *option, int *out, char *err, size_t errlen)
{
    for (int k = 0; k < list->n; k++) {
        char *end;
        const long v = strtol(list->item[k], &end, 10);
        if (end == list->item[k] || *end || v < 1 || v > 1 << 24) {
            snprintf(err, errlen, "--%s: '%s' is not a rank count (a whole number from 1)", option, list->item[k]);
            return -1;
        }
        out[k] = (int)v;
    }
    return 0;
}

/* Consumes the option's values from argv starting at *i (inline_value from --name=value). */
static int take_values(hp_arg *a, const char *inline_value, int argc, char **argv, int *i, char *err, size_t errlen)
{
    int needed = a->type == HP_ARG_INT3 ? 3 : a->type == HP_ARG_FLAG ? 0 : 1;
    if (needed == 0) {
        if (inline_value) return fail(err, errlen, "%s%s takes no value", dashes(a), a->name);
        *(int *)a->value = 1;
        return 0;
    }
    const char *vals[3];
    int have = 0;
    if (inline_value) vals[have++] = inline_value;
    while (have < needed && *i + 1 < argc) vals[have++] = argv[++*i];
    if (have < needed)
        return fail(err, errlen, "%s%s needs %d value%s", dashes(a), a->name, needed, needed > 1 ? "s" : "");
    switch (a->type) {
    case HP_ARG_INT:
        return parse_int_value(a, vals[0], (int *)a->value, err, errlen);
    case HP_ARG_INT3:
        for (int k = 0; k < 3; k++)
            if (parse_int_value(a, vals[k], (int *)a->value + k, err, errlen)) return -1;
        return 0;
    case HP_ARG_REAL: {
        double v;
        if (parse_double(vals[0], &v))
            return fail(err, errlen, "%s%s needs a number, got '%s'", dashes(a), a->name, vals[0]);
        if (!within_bound(a, v)) return bound_error(a, vals[0], err, errlen);
        *(double *)a->value = v;
        return 0;
    }
    case HP_ARG_CHOICE:
        if (!is_choice(a->choices, vals[0]))
            return fail(err, errlen, "%s%s must be one of %s, got '%s'", dashes(a), a->name, a->choices, vals[0]);
        *(const char **)a->value = vals[0];
        return 0;
    case HP_ARG_PATH:
        if (!*vals[0]) return fail(err, errlen, "%s%s needs a non-empty path", dashes(a), a->name);
        *(const char **)a->value = vals[0];
        return 0;
    case HP_ARG_LIST:
        return hp_list_parse(a->value, a->name, vals[0], err, errlen);
    default:
        return fail(err, errlen, "%s%s: unknown option type", dashes(a), a->name);
    }
}

static hp_arg *find_short(hp_arg *args, int nargs, char c)
{
    for (int k = 0; k < nargs; k++)
        if (args[k].short_name && args[k].short_name == c) return &args[k];
    return NULL;
}

hp_arg *hp_args_find(hp_arg *args, int nargs, const char *name)
{
    for (int k = 0; k < nargs; k++)
        if (strcmp(args[k].name, name) == 0) return &args[k];
    return NULL;
}

/* The k-th positional option of the table (k from 0), or NULL. */
static hp_arg *positional_at(hp_arg *args, int nargs, int k)
{
    for (int i = 0; i < nargs; i++)
        if (args[i].positional && k-- == 0) return &args[i];
    return NULL;
}

/* Index of a among the positional options. */
static int positional_index(const hp_arg *args, const hp_arg *a)
{
    int k = 0;
    for (const hp_arg *p = args; p < a; p++) k += p->positional;
    return k;
}

static int count_positional(const hp_arg *args, int nargs)
{
    int n = 0;
    for (int i = 0; i < nargs; i++) n += args[i].positional;
    return n;
}

/* A value rather than an option: no leading '-', or a negative number ("-1", "-0.5"). */
static int is_bare_word(const char *word)
{
    if (word[0] != '-') return 1;
    char *end;
    strtod(word, &end);
    return end != word && !*end && (isdigit((unsigned char)word[1]) || word[1] == '.');
}

static int missing_error(const hp_arg *args, int nargs, const hp_arg *a, char *err, size_t errlen)
{
    if (!a->positional) return fail(err, errlen, "missing required option --%s (see --help)", a->name);
    int used = snprintf(err, errlen, "missing argument %s (expected %d positional arguments:", a->name,
                        count_positional(args, nargs));
    for (int k = 0; k < nargs && used > 0 && (size_t)used < errlen; k++)
        if (args[k].positional) used += snprintf(err + used, errlen - (size_t)used, " %s", args[k].name);
    if (used > 0 && (size_t)used < errlen) snprintf(err + used, errlen - (size_t)used, "; see --help)");
    return -1;
}

int hp_args_parse(hp_arg *args, int nargs, int argc, char **argv, char *err, size_t errlen)
{
    int next_positional = 0; /* bare words seen so far */
    for (int i = 1; i < argc; i++) {
        const char *word = argv[i];
        hp_arg *a = NULL;
        const char *inline_value = NULL;
        if (is_bare_word(word)) {
            a = positional_at(args, nargs, next_positional++);
            if (!a && count_positional(args, nargs) == 0)
                return fail(err, errlen, "unexpected argument '%s' (options start with --; see --help)", word);
            if (!a)
                return fail(err, errlen,
                            "unexpected argument '%s': all %d positional arguments are already given "
                            "(see --help)",
                            word, count_positional(args, nargs));
            if (a->set) return fail(err, errlen, "%s given both as --%s and by position", a->name, a->name);
            if (take_values(a, word, argc, argv, &i, err, errlen)) return -1;
            a->set = 1;
            continue;
        }
        if (strncmp(word, "--", 2) == 0 && word[2]) {
            char name[64];
            const char *eq = strchr(word + 2, '=');
            size_t len = eq ? (size_t)(eq - word - 2) : strlen(word + 2);
            if (len >= sizeof name) return fail(err, errlen, "unknown option '%s' (see --help)", word);
            memcpy(name, word + 2, len);
            name[len] = '\0';
            a = hp_args_find(args, nargs, name);
            inline_value = eq ? eq + 1 : NULL;
        } else if (word[0] == '-' && word[1] && !word[2]) {
            a = find_short(args, nargs, word[1]);
        } else {
            return fail(err, errlen, "unexpected argument '%s' (options start with --; see --help)", word);
        }
        if (!a) return fail(err, errlen, "unknown option '%s' (see --help)", word);
        if (a->set && a->positional && positional_index(args, a) < next_positional)
            return fail(err, errlen, "%s given both by position and as --%s", a->name, a->name);
        if (a->set && (a->positional || a->required)) return fail(err, errlen, "--%s given twice", a->name);
        if (take_values(a, inline_value, argc, argv, &i, err, errlen)) return -1;
        a->set = 1;
    }
    for (int k = 0; k < nargs; k++)
        if (args[k].required && !args[k].set) return missing_error(args, nargs, &args[k], err, errlen);
    return 0;
}

int hp_args_has(int argc, char **argv, const char *name, char short_name)
{
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "--", 2) == 0 && strcmp(argv[i] + 2, name) == 0) return 1;
        if (short_name && argv[i][0] == '-' && argv[i][1] == short_name && !argv[i][2]) return 1;
    }
    return 0;
}

/* The option's current value as text, for --help defaults and the parameters line. */
static void format_value(const hp_arg *a, char *buf, size_t n)
{
    switch (a->type) {
    case HP_ARG_INT:
        snprintf(buf, n, "%d", *(const int *)a->value);
        break;
    case HP_ARG_REAL:
        snprintf(buf, n, "%g", *(const double *)a->value);
        break;
    case HP_ARG_CHOICE:
    case HP_ARG_PATH: {
        const char *s = *(const char *const *)a->value;
        snprintf(buf, n, "%s", s ? s : "(none)");
        break;
    }
    case HP_ARG_FLAG:
        snprintf(buf, n, "%s", *(const int *)a->value ? "on" : "off");
        break;
    case HP_ARG_INT3: {
        const int *v = a->value;
        snprintf(buf, n, "%d %d %d", v[0], v[1], v[2]);
        break;
    }
    case HP_ARG_LIST: {
        const hp_list *list = a->value;
        if (list->n)
            hp_list_format(list, buf, n);
        else
            snprintf(buf, n, "(none)");
        break;
    }
    }
}

static void help_line(FILE *out, const hp_arg *a)
{
    char head[80], value[128];
    if (a->positional)
        snprintf(head, sizeof head, "%s", a->name);
    else if (a->short_name)
        snprintf(head, sizeof head, "-%c, --%s %s", a->short_name, a->name, a->metavar ? a->metavar : "");
    else
        snprintf(head, sizeof head, "    --%s %s", a->name, a->metavar ? a->metavar : "");
    format_value(a, value, sizeof value);
    fprintf(out, "  %-26s %s", head, a->help);
    if (a->type == HP_ARG_CHOICE) fprintf(out, " (%s)", a->choices);
    if (a->required)
        fputs(" [required]", out);
    else if (a->type != HP_ARG_FLAG)
        fprintf(out, " [default: %s]", value);
    fputc('\n', out);
}

void hp_args_help(FILE *out, const char *usage, const char *summary, const hp_arg *args, int nargs)
{
    fprintf(out, "usage: %s\n\n%s\n\n", usage, summary);
    if (count_positional(args, nargs)) {
        fputs("arguments (in this order, or each as --NAME VALUE):\n", out);
        for (int k = 0; k < nargs; k++)
            if (args[k].positional) help_line(out, &args[k]);
        fputc('\n', out);
    }
    fputs("options:\n", out);
    for (int k = 0; k < nargs; k++)
        if (!args[k].positional) help_line(out, &args[k]);
    static const char *const common[][2] = {
        {"-h, --help", "show this help and exit"},
        {"    --options", "print these options as JSON and exit"},
        {"    --version", "print the version and exit"},
        {"    --build-info", "print compiler, MPI and OpenMP versions as JSON and exit"},
        {"    --check-args", "check the other arguments as a run would, run nothing (exit 0 or 2)"}};
    for (size_t k = 0; k < sizeof common / sizeof *common; k++)
        fprintf(out, "  %-26s %s\n", common[k][0], common[k][1]);
}

void hp_args_print(FILE *out, const hp_arg *args, int nargs)
{
    fputs("parameters (* = given on the command line):", out);
    for (int k = 0; k < nargs; k++) {
        char value[128];
        format_value(&args[k], value, sizeof value);
        fprintf(out, " --%s %s%s", args[k].name, value, args[k].set ? "*" : "");
    }
    fputc('\n', out);
}

static const char *const type_names[] = {"int", "real", "choice", "path", "flag", "int3", "list"};

/* The value member of one option, under key (shared by --options and the profile's params). */
static void value_json(hp_json *j, const char *key, const hp_arg *a)
{
    switch (a->type) {
    case HP_ARG_INT:
        hp_json_int(j, key, *(const int *)a->value);
        break;
    case HP_ARG_REAL:
        hp_json_real(j, key, *(const double *)a->value);
        break;
    case HP_ARG_CHOICE:
    case HP_ARG_PATH:
        hp_json_string(j, key, *(const char *const *)a->value);
        break;
    case HP_ARG_FLAG:
        hp_json_bool(j, key, *(const int *)a->value);
        break;
    case HP_ARG_INT3:
        hp_json_array_begin(j, key);
        for (int d = 0; d < 3; d++) hp_json_int(j, NULL, ((const int *)a->value)[d]);
        hp_json_array_end(j);
        break;
    case HP_ARG_LIST: {
        const hp_list *list = a->value;
        hp_json_array_begin(j, key);
        for (int k = 0; k < list->n; k++) hp_json_string(j, NULL, list->item[k]);
        hp_json_array_end(j);
        break;
    }
    }
}

void hp_args_describe(FILE *out, const hp_arg *args, int nargs)
{
    hp_json j;
    hp_json_open(&j, out);
    hp_json_array_begin(&j, NULL);
    for (int k = 0; k < nargs; k++) {
        const hp_arg *a = &args[k];
        hp_json_object_begin(&j, NULL);
        hp_json_string(&j, "name", a->name);
        char short_name[2] = {a->short_name, 0};
        hp_json_string(&j, "short", a->short_name ? short_name : NULL);
        hp_json_string(&j, "type", type_names[a->type]);
        if (a->required)
            hp_json_null(&j, "default");
        else
            value_json(&j, "default", a);
        if (a->min_rule == HP_MIN_NONE)
            hp_json_null(&j, "min");
        else
            hp_json_real(&j, "min", a->min);
        hp_json_bool(&j, "min_exclusive", a->min_rule == HP_MIN_EXCLUSIVE);
        hp_json_string(&j, "choices", a->choices);
        hp_json_string(&j, "help", a->help);
        hp_json_bool(&j, "positional", a->positional);
        hp_json_bool(&j, "required", a->required);
        hp_json_object_end(&j);
    }
    hp_json_array_end(&j);
}

void hp_args_json(hp_json *j, const hp_arg *args, int nargs)
{
    for (int k = 0; k < nargs; k++) {
        const hp_arg *a = &args[k];
        char key[64];
        snprintf(key, sizeof key, "%s", a->name);
        for (char *p = key; *p; p++)
            if (*p == '-') *p = '_';
        value_json(j, key, a);
    }
}
