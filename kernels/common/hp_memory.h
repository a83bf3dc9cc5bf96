/* Large arrays for bandwidth-bound loops.
 *
 * Streaming loops over hundreds of megabytes touch a new 4 KiB page every 512 doubles; with
 * transparent huge pages in "madvise" mode (Debian's default) the kernel backs memory with 2 MiB pages
 * only when asked, so large arrays are allocated 2 MiB-aligned and marked MADV_HUGEPAGE. Where huge
 * pages are unavailable the hint is ignored and the array is an ordinary one. STREAM and the SPMV
 * kernel allocate the same way, so their bandwidths are compared on equal terms. */
#ifndef HP_MEMORY_H
#define HP_MEMORY_H

#include <stddef.h>

/* Aligned, huge-page-advised allocation of `bytes`; NULL when out of memory. Free with free(). */
void *hp_alloc_large(size_t bytes);

#endif
