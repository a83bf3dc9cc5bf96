/* Reading the text files a LAMMPS user already has: data files, setfl (eam/fs) tables and .tersoff
 * parameter files. One reader for all three, so every error names the file and the line. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "md.h"

int md_reader_open(md_reader *r, const char *path, const char *what, char *err, size_t errlen)
{
    *r = (md_reader){.path = path, .err = err, .errlen = errlen};
    r->f = fopen(path, "r");
    if (!r->f) {
        snprintf(err, errlen, "cannot read %s %s: %s", what, path, strerror(errno));
        return -1;
    }
    return 0;
}

void md_reader_close(md_reader *r)
{
    free(r->line);
    if (r->f) fclose(r->f);
    r->line = NULL;
    r->f = NULL;
}

int md_reader_fail(md_reader *r, const char *what)
{
    snprintf(r->err, r->errlen, "%s line %ld: %s", r->path, r->number, what);
    return -1;
}

int md_next_line(md_reader *r, char **text)
{
    if (getline(&r->line, &r->cap, r->f) < 0) return 0;
    r->number++;
    char *hash = strchr(r->line, '#');
    if (hash) *hash = '\0';
    *text = r->line;
    return 1;
}

static int blank(const char *s)
{
    for (; *s; s++)
        if (!strchr(" \t\r\n", *s)) return 0;
    return 1;
}

char *md_next_content(md_reader *r)
{
    char *t;
    while (md_next_line(r, &t))
        if (!blank(t)) return t;
    return NULL;
}

int md_split(char *t, char **words, int max)
{
    int n = 0;
    for (char *w = strtok(t, " \t\r\n"); w; w = strtok(NULL, " \t\r\n"))
        if (n < max)
            words[n++] = w;
        else
            return max + 1;
    return n;
}

int md_to_real(const char *s, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return errno || end == s || *end || !isfinite(*v) ? -1 : 0;
}

int md_to_int64(const char *s, long long *v)
{
    char *end;
    errno = 0;
    *v = strtoll(s, &end, 10);
    return errno || end == s || *end ? -1 : 0;
}

/* Numbers may be spread over lines in any way (setfl tables are written 5 per line by some tools,
 * one per line by others), so they are read word by word across lines. */
int md_read_numbers(md_reader *r, double *out, long n, const char *what)
{
    long have = 0;
    while (have < n) {
        char *t = md_next_content(r);
        if (!t) {
            char msg[160];
            snprintf(msg, sizeof msg, "file ends after %ld of the %ld numbers of %s", have, n, what);
            return md_reader_fail(r, msg);
        }
        for (char *w = strtok(t, " \t\r\n"); w; w = strtok(NULL, " \t\r\n")) {
            if (have == n) return md_reader_fail(r, "more numbers on this line than the table holds");
            if (md_to_real(w, &out[have])) {
                char msg[160];
                snprintf(msg, sizeof msg, "'%.40s' is not a number (in %s)", w, what);
                return md_reader_fail(r, msg);
            }
            have++;
        }
    }
    return 0;
}
