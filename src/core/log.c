#include "core/log.h"

#include <stdarg.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#ifdef NDEBUG
bool rc_check_enabled = false;
#else
bool rc_check_enabled = true;
#endif

static void (*abort_hook)(void) = NULL;

void rc_log_set_abort_hook(void (*hook)(void)) { abort_hook = hook; }

_Noreturn void rc_die(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "rcsim: internal error at %s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
    if (abort_hook != NULL) abort_hook();
    abort();
}

/* Blocks of at least HUGE_MIN bytes (malloc'd, realloc'd or aligned) ask the
 * kernel for 2 MiB pages (where transparent huge pages are "madvise", as on
 * Debian's kernels, it gives them only when asked).  The large slabs of a big
 * run (the observer's events and packets, the sender log, the net's packets
 * and clients: GBs at 10^5 users) are read at random, and with 4 KiB pages nearly every such read also missed the TLB.
 * Only speed changes: no value depends on where memory lies.  The advice
 * covers the whole 2 MiB pages inside the block (a block realloc moves is
 * advised again, below).  Zeroed blocks (calloc) are left in small
 * pages: they are often written sparsely (a per-user table of which a run
 * touches a few entries), and a huge page would make every such write cost
 * 2 MiB of memory. */
#define HUGE_PAGE ((uintptr_t)2 << 20)
#define HUGE_MIN ((size_t)4 << 20)
#if defined(MADV_HUGEPAGE) && !defined(MADV_COLLAPSE)
#define MADV_COLLAPSE 25 /* Linux 6.1; older kernels refuse it, harmlessly */
#endif
static void advise_huge(void *p, size_t n, size_t moved)
{
#ifdef MADV_HUGEPAGE
    if (n < HUGE_MIN) return;
    uintptr_t b = ((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    uintptr_t e = ((uintptr_t)p + n) & ~(HUGE_PAGE - 1);
    if (e <= b) return;
    (void)madvise((void *)b, e - b, MADV_HUGEPAGE); /* advice: a refusal is harmless */
    /* A block realloc moved holds its old contents in small pages (mremap
     * splits huge ones): those are gathered into huge pages now; the rest of
     * the block is faulted in as huge pages when first written (collapsing
     * it too would fill capacity not yet used). */
    uintptr_t m = ((uintptr_t)p + moved) & ~(HUGE_PAGE - 1);
    if (m > e) m = e;
    if (m > b) (void)madvise((void *)b, m - b, MADV_COLLAPSE);
#else
    (void)p;
    (void)n;
    (void)moved;
#endif
}

void *rc_xmalloc_at(size_t n, const char *file, int line)
{
    void *p = malloc(n ? n : 1);
    if (p == NULL) rc_die(file, line, "out of memory allocating %zu bytes", n);
    advise_huge(p, n, 0);
    return p;
}

void *rc_xaligned_alloc_at(size_t align, size_t n, const char *file, int line)
{
    size_t bytes = ((n ? n : 1) + align - 1) / align * align;
    void *p = aligned_alloc(align, bytes);
    if (p == NULL) rc_die(file, line, "out of memory allocating %zu bytes", bytes);
    advise_huge(p, bytes, 0);
    return p;
}

void *rc_xcalloc_at(size_t n, size_t size, const char *file, int line)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (p == NULL) rc_die(file, line, "out of memory allocating %zu x %zu bytes", n, size);
    return p;
}

void *rc_xrealloc_at(void *p, size_t n, const char *file, int line)
{
    size_t old = p != NULL && n >= HUGE_MIN ? malloc_usable_size(p) : 0;
    void *q = realloc(p, n ? n : 1);
    if (q == NULL) rc_die(file, line, "out of memory reallocating %zu bytes", n);
    advise_huge(q, n, q != p ? old : 0);
    return q;
}

char *rc_xstrdup_at(const char *s, const char *file, int line)
{
    size_t n = strlen(s) + 1;
    char *p = rc_xmalloc_at(n, file, line);
    memcpy(p, s, n);
    return p;
}
