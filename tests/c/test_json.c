/* JSON writer: nesting, commas, escaping, full-precision reals, non-finite values as null. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "hp_json.h"

int main(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    hp_json j;
    hp_json_open(&j, out);
    hp_json_object_begin(&j, NULL);
    hp_json_string(&j, "s", "a\"b\\c\nd\x01");
    hp_json_real(&j, "third", 1.0 / 3.0);
    hp_json_real(&j, "nan", NAN);
    hp_json_array_begin(&j, "list");
    hp_json_int(&j, NULL, 1);
    hp_json_bool(&j, NULL, 0);
    hp_json_null(&j, NULL);
    hp_json_array_end(&j);
    hp_json_object_begin(&j, "empty");
    hp_json_object_end(&j);
    hp_json_object_end(&j);
    fclose(out);

    const char *expected = "{\n  \"s\": \"a\\\"b\\\\c\\nd\\u0001\",\n  \"third\": 0.33333333333333331,\n"
                           "  \"nan\": null,\n  \"list\": [\n    1,\n    false,\n    null\n  ],\n  \"empty\": {}\n}\n";
    CHECK(strcmp(text, expected) == 0);
    if (strcmp(text, expected)) fprintf(stderr, "got:\n%s", text);
    free(text);
    return CHECK_DONE();
}
