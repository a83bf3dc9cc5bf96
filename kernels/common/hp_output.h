/* Files a kernel writes (profiles, data files) appear whole or not at all.
 *
 * A study that is interrupted, or a run that fails, must never leave a half-written document that
 * a later reader takes for a result: content goes to a temporary file beside the target, is
 * flushed to disk, and is renamed over the target in one step. */
#ifndef HP_OUTPUT_H
#define HP_OUTPUT_H

#include <stddef.h>

/* 0 on success; -1 with a message in err (the target is then untouched). */
int hp_write_atomic(const char *path, const char *data, size_t len, char *err, size_t errlen);
/* Checks, before any work is done, that path's directory exists and is writable. */
int hp_check_writable(const char *path, char *err, size_t errlen);

#endif
