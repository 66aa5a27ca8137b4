/* log: programmer-invariant checks and allocation that cannot fail silently.
 *
 * RC_ASSERT stays on in release builds (the checks are cheap); it prints the
 * file, line and expression, then aborts through the installed abort hook
 * (MPI_Abort once MPI is up, see rc_log_set_abort_hook).  RC_DCHECK is for the
 * costlier run-time invariants: on in debug builds, and in release builds when
 * a job runs with --check (rc_check_enabled).
 */
#ifndef RCSIM_CORE_LOG_H
#define RCSIM_CORE_LOG_H

#include <stdbool.h>
#include <stddef.h>

void rc_log_set_abort_hook(void (*hook)(void));
_Noreturn void rc_die(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#define RC_ASSERT(expr)                                                              \
    do {                                                                             \
        if (!(expr)) rc_die(__FILE__, __LINE__, "assertion failed: %s", #expr);      \
    } while (0)
#define RC_ASSERTF(expr, ...)                                                        \
    do {                                                                             \
        if (!(expr)) rc_die(__FILE__, __LINE__, __VA_ARGS__);                        \
    } while (0)

/* Run-time invariant checks: always compiled, enabled by default in
 * debug builds and by --check in release builds. */
extern bool rc_check_enabled;
#define RC_DCHECK(expr, ...)                                                         \
    do {                                                                             \
        if (rc_check_enabled && !(expr)) rc_die(__FILE__, __LINE__, __VA_ARGS__);    \
    } while (0)

void *rc_xmalloc_at(size_t n, const char *file, int line);
void *rc_xcalloc_at(size_t n, size_t size, const char *file, int line);
void *rc_xrealloc_at(void *p, size_t n, const char *file, int line);
char *rc_xstrdup_at(const char *s, const char *file, int line);
/* aligned_alloc (align a power of two; n rounded up to a multiple of it) */
void *rc_xaligned_alloc_at(size_t align, size_t n, const char *file, int line);
#define rc_xmalloc(n) rc_xmalloc_at((n), __FILE__, __LINE__)
#define rc_xcalloc(n, s) rc_xcalloc_at((n), (s), __FILE__, __LINE__)
#define rc_xrealloc(p, n) rc_xrealloc_at((p), (n), __FILE__, __LINE__)
#define rc_xstrdup(s) rc_xstrdup_at((s), __FILE__, __LINE__)
#define rc_xaligned_alloc(a, n) rc_xaligned_alloc_at((a), (n), __FILE__, __LINE__)

#endif
