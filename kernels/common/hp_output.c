/* Atomic output; see hp_output.h. */
#include "hp_output.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int hp_write_atomic(const char *path, const char *data, size_t len, char *err, size_t errlen)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof tmp) {
        snprintf(err, errlen, "path too long: %s", path);
        return -1;
    }
    FILE *f = fopen(tmp, "w");
    if (!f) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    int ok = fwrite(data, 1, len, f) == len && fflush(f) == 0 && fsync(fileno(f)) == 0;
    int saved = errno;
    ok = (fclose(f) == 0) && ok;
    if (ok && rename(tmp, path) == 0) return 0;
    saved = saved ? saved : errno;
    unlink(tmp);
    snprintf(err, errlen, "cannot write %s: %s", path, strerror(saved));
    return -1;
}

int hp_check_writable(const char *path, char *err, size_t errlen)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == dir)
        dir[1] = '\0';
    else
        *slash = '\0';
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "cannot write %s: directory %s does not exist", path, dir);
        return -1;
    }
    if (access(dir, W_OK) != 0) {
        snprintf(err, errlen, "cannot write %s: directory %s is not writable", path, dir);
        return -1;
    }
    struct stat target;
    if (stat(path, &target) == 0 && S_ISDIR(target.st_mode)) {
        snprintf(err, errlen, "cannot write %s: it is a directory", path);
        return -1;
    }
    return 0;
}
