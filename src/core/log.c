#include "core/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void *rc_xmalloc_at(size_t n, const char *file, int line)
{
    void *p = malloc(n ? n : 1);
    if (p == NULL) rc_die(file, line, "out of memory allocating %zu bytes", n);
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
    void *q = realloc(p, n ? n : 1);
    if (q == NULL) rc_die(file, line, "out of memory reallocating %zu bytes", n);
    return q;
}

char *rc_xstrdup_at(const char *s, const char *file, int line)
{
    size_t n = strlen(s) + 1;
    char *p = rc_xmalloc_at(n, file, line);
    memcpy(p, s, n);
    return p;
}
