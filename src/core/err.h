/* err: errors caused by user input, the first of rcsim's two error tiers (the
 * second, programmer invariants, is RC_ASSERT in core/log.h).
 *
 * Functions that can fail because of user input (command line, sweep files,
 * traces, I/O) take an `rc_err *` and return 0 on success or the exit code to
 * use (RC_EXIT_USAGE = 2 for bad input, RC_EXIT_RUNTIME = 1 otherwise).  The
 * message names the file, line and key where one is known, and the bad value.
 */
#ifndef RCSIM_CORE_ERR_H
#define RCSIM_CORE_ERR_H

#include <stdarg.h>

enum { RC_EXIT_OK = 0, RC_EXIT_RUNTIME = 1, RC_EXIT_USAGE = 2, RC_EXIT_TERMINATED = 3 };

/* Not a process exit code: the status of a job whose trace is no longer the
 * content the job was bound to (exp/job.h rc_job_check_trace), so that the
 * sweep stops at the first such job (farm/farm.h).  Commands report it as
 * RC_EXIT_USAGE. */
enum { RC_JOB_TRACE_CHANGED = 4 };

typedef struct rc_err {
    int code;        /* 0 when no error has been recorded */
    char msg[1024];  /* one line, no trailing newline */
} rc_err;

/* Records an error (the first one wins) and returns `code`, so callers can
 * write `return rc_err_set(err, RC_EXIT_USAGE, "...")`.  `err` may be NULL. */
int rc_err_set(rc_err *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int rc_err_vset(rc_err *err, int code, const char *fmt, va_list ap);
void rc_err_clear(rc_err *err);

#endif
