/* A streaming JSON writer for the profile.
 *
 * Kernels emit one document per run; building a tree first would cost memory proportional to the
 * affinity and thermo tables for nothing, so values are written as they are produced. The writer
 * remembers, per nesting level, whether a comma is due, which is the only state JSON needs. */
#ifndef HP_JSON_H
#define HP_JSON_H

#include <stdio.h>

#define HP_JSON_MAX_DEPTH 32

typedef struct {
    FILE *out;
    int depth;
    int has_items[HP_JSON_MAX_DEPTH];
} hp_json;

/* key is NULL for the root value and for array elements. */
void hp_json_open(hp_json *j, FILE *out);
void hp_json_object_begin(hp_json *j, const char *key);
void hp_json_object_end(hp_json *j);
void hp_json_array_begin(hp_json *j, const char *key);
void hp_json_array_end(hp_json *j);
void hp_json_string(hp_json *j, const char *key, const char *value);
void hp_json_real(hp_json *j, const char *key, double value); /* NaN and infinities become null */
void hp_json_int(hp_json *j, const char *key, long long value);
void hp_json_bool(hp_json *j, const char *key, int value);
void hp_json_null(hp_json *j, const char *key);
/* A dry check's answer: "ok", and "error" (null when ok, else why). */
void hp_json_verdict(hp_json *j, int ok, const char *why);
/* An array of n strings under key. */
void hp_json_strings(hp_json *j, const char *key, const char *const *items, int n);

/* One member of a flat record of numbers. A whole number is printed without a fraction, as hp_json_int
 * would print it (exactly up to 2^53, far beyond any count here), so counts and measures share one list. */
typedef struct {
    const char *key;
    double value;
} hp_json_number;

/* Writes n members, in order; NaN and infinities become null. */
void hp_json_numbers(hp_json *j, const hp_json_number *members, int n);
/* hp_json_numbers over a literal list: HP_JSON_NUMBERS(j, {"pe", pe}, {"ke", ke}). */
#define HP_JSON_NUMBERS(j, ...)                                                                                      \
    hp_json_numbers((j), (const hp_json_number[]){__VA_ARGS__},                                                     \
                    (int)(sizeof((const hp_json_number[]){__VA_ARGS__}) / sizeof(hp_json_number)))

#endif
