/* Streaming JSON writer; see hp_json.h. Reals are printed with 17 significant digits so a value
 * read back by Python is bit-identical to the one the kernel computed (tests compare energies
 * across decompositions to 1e-9 and need the full number). */
#include "hp_json.h"

#include <math.h>
#include <string.h>

void hp_json_open(hp_json *j, FILE *out)
{
    j->out = out;
    j->depth = 0;
    j->has_items[0] = 0;
}

static void indent(hp_json *j)
{
    fputc('\n', j->out);
    for (int i = 0; i < j->depth; i++) fputs("  ", j->out);
}

/* The characters JSON escapes with a letter, and those letters. */
static const char escaped_chars[] = "\"\\\n\r\t";
static const char escape_letters[] = "\"\\nrt";

static void write_escaped(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        const char *named = strchr(escaped_chars, *p);
        if (named) {
            fputc('\\', out);
            fputc(escape_letters[named - escaped_chars], out);
        } else if (*p < 0x20) {
            fprintf(out, "\\u%04x", *p);
        } else {
            fputc(*p, out);
        }
    }
    fputc('"', out);
}

/* Comma, newline and indentation before an item, then its key if it has one. */
static void item(hp_json *j, const char *key)
{
    if (j->depth > 0) {
        if (j->has_items[j->depth]) fputc(',', j->out);
        j->has_items[j->depth] = 1;
        indent(j);
    }
    if (key) {
        write_escaped(j->out, key);
        fputs(": ", j->out);
    }
}

static void open_container(hp_json *j, const char *key, char bracket)
{
    item(j, key);
    fputc(bracket, j->out);
    j->depth++;
    j->has_items[j->depth] = 0;
}

static void close_container(hp_json *j, char bracket)
{
    int had_items = j->has_items[j->depth];
    j->depth--;
    if (had_items) indent(j);
    fputc(bracket, j->out);
    if (j->depth == 0) fputc('\n', j->out);
}

void hp_json_object_begin(hp_json *j, const char *key) { open_container(j, key, '{'); }
void hp_json_object_end(hp_json *j) { close_container(j, '}'); }
void hp_json_array_begin(hp_json *j, const char *key) { open_container(j, key, '['); }
void hp_json_array_end(hp_json *j) { close_container(j, ']'); }

void hp_json_string(hp_json *j, const char *key, const char *value)
{
    item(j, key);
    if (value)
        write_escaped(j->out, value);
    else
        fputs("null", j->out);
}

void hp_json_real(hp_json *j, const char *key, double value)
{
    item(j, key);
    if (isfinite(value))
        fprintf(j->out, "%.17g", value);
    else
        fputs("null", j->out);
}

void hp_json_int(hp_json *j, const char *key, long long value)
{
    item(j, key);
    fprintf(j->out, "%lld", value);
}

void hp_json_bool(hp_json *j, const char *key, int value)
{
    item(j, key);
    fputs(value ? "true" : "false", j->out);
}

void hp_json_null(hp_json *j, const char *key)
{
    item(j, key);
    fputs("null", j->out);
}

void hp_json_verdict(hp_json *j, int ok, const char *why)
{
    hp_json_bool(j, "ok", ok);
    if (ok)
        hp_json_null(j, "error");
    else
        hp_json_string(j, "error", why);
}

void hp_json_strings(hp_json *j, const char *key, const char *const *items, int n)
{
    hp_json_array_begin(j, key);
    for (int k = 0; k < n; k++) hp_json_string(j, NULL, items[k]);
    hp_json_array_end(j);
}

void hp_json_numbers(hp_json *j, const hp_json_number *members, int n)
{
    for (int k = 0; k < n; k++) hp_json_real(j, members[k].key, members[k].value);
}
