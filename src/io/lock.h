/* lock: one writer per results file, for the whole sweep.
 *
 * `<results>.lock` next to the results file is locked with a POSIX record
 * lock (fcntl F_SETLK, exclusive, whole file) and holds one line naming the
 * holder: "host H pid P since YYYY-MM-DDTHH:MM:SSZ".  The kernel drops the
 * lock when the holding process exits in any way (kill -9 included), so a
 * lock is never stale in the sense of blocking anyone: a file that still
 * names a holder but is not locked was left by a process that died, and the
 * next run reports that and takes over.  Record locks also work across hosts
 * on NFSv4 (and NFSv3 with lockd); a file system without them is refused
 * rather than trusted.
 *
 * Record locks belong to the process, not the descriptor: this module is the
 * only code that opens the lock file (closing any descriptor of it would drop
 * the lock), and forked children do not inherit the lock.  On release the
 * file is removed while still locked; a taker verifies after locking that
 * the path still names the file it locked, so two processes can never both
 * believe they hold it.
 *
 * Errors: RC_EXIT_USAGE when another process holds the lock (the message
 * names its host and pid) or the directory is unusable; the lock owns its
 * descriptor and path.
 */
#ifndef RCSIM_IO_LOCK_H
#define RCSIM_IO_LOCK_H

#include "core/err.h"

typedef struct rc_lock rc_lock;

/* Takes the lock of results file `out` (the file `<out>.lock`); NULL with err
 * set if it is held or cannot be created.  A note goes to stderr when a dead
 * holder's record is found. */
rc_lock *rc_lock_take(const char *out, rc_err *err);

/* Removes the lock file and releases the lock (NULL is fine). */
void rc_lock_release(rc_lock *l);

/* "<out>.lock" (malloc'ed). */
char *rc_lock_path(const char *out);

#endif
