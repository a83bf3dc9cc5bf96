/* JSON writer: nesting, commas, escaping, full-precision reals, non-finite values as null, and
 * records of numbers whose whole numbers read as integers. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "hp_json.h"

/* The document write() makes, as a string the caller frees. */
static char *written(void (*write)(hp_json *))
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    hp_json j;
    hp_json_open(&j, out);
    write(&j);
    fclose(out);
    return text;
}

static void nested(hp_json *j)
{
    hp_json_object_begin(j, NULL);
    hp_json_string(j, "s", "a\"b\\c\nd\x01\te\r");
    hp_json_real(j, "third", 1.0 / 3.0);
    hp_json_real(j, "nan", NAN);
    hp_json_array_begin(j, "list");
    hp_json_int(j, NULL, 1);
    hp_json_bool(j, NULL, 0);
    hp_json_null(j, NULL);
    hp_json_array_end(j);
    hp_json_object_begin(j, "empty");
    hp_json_object_end(j);
    hp_json_object_end(j);
}

static void numbers(hp_json *j)
{
    const long long count = 123456789012LL;
    hp_json_object_begin(j, NULL);
    HP_JSON_NUMBERS(j, {"count", count}, {"negative", -7}, {"half", 0.5}, {"inf", INFINITY});
    hp_json_object_end(j);
}

static void expect(void (*write)(hp_json *), const char *expected)
{
    char *text = written(write);
    CHECK(strcmp(text, expected) == 0);
    if (strcmp(text, expected)) fprintf(stderr, "got:\n%s", text);
    free(text);
}

int main(void)
{
    expect(nested, "{\n  \"s\": \"a\\\"b\\\\c\\nd\\u0001\\te\\r\",\n  \"third\": 0.33333333333333331,\n"
                   "  \"nan\": null,\n  \"list\": [\n    1,\n    false,\n    null\n  ],\n  \"empty\": {}\n}\n");
    expect(numbers, "{\n  \"count\": 123456789012,\n  \"negative\": -7,\n  \"half\": 0.5,\n  \"inf\": null\n}\n");
    return CHECK_DONE();
}
