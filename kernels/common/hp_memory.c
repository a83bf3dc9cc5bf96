/* Huge-page-advised allocation; see hp_memory.h. */
#define _GNU_SOURCE
#include "hp_memory.h"

#include <stdlib.h>
#include <sys/mman.h>

enum { HUGE_PAGE = 2 * 1024 * 1024 };

void *hp_alloc_large(size_t bytes)
{
    if (bytes < HUGE_PAGE) return aligned_alloc(64, (bytes + 63) / 64 * 64 + 64);
    const size_t rounded = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    void *p = aligned_alloc(HUGE_PAGE, rounded);
#ifdef MADV_HUGEPAGE
    if (p) madvise(p, rounded, MADV_HUGEPAGE); /* a hint: failure leaves ordinary pages */
#endif
    return p;
}
