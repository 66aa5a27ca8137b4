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
 * The lock belongs to the file, not to the spelling of its name: a symbolic
 * link is followed to its target (rc_lock_canonical), and a results file
 * with more than one hard link is refused (its other names would have their
 * own lock, journal and manifest).
 *
 * Errors: RC_EXIT_USAGE when another process holds the lock (the message
 * names its host and pid), `out` has several hard links, or the directory is
 * unusable; the lock owns its
 * descriptor and path.
 */
#ifndef RCSIM_IO_LOCK_H
#define RCSIM_IO_LOCK_H

#include <stddef.h>

#include "core/err.h"

typedef struct rc_lock rc_lock;

/* Takes the lock of results file `out` (the file `<out>.lock`); NULL with err
 * set if it is held or cannot be created.  A note goes to stderr when a dead
 * holder's record is found. */
rc_lock *rc_lock_take(const char *out, rc_err *err);

/* Removes the lock file and releases the lock (NULL is fine). */
void rc_lock_release(rc_lock *l);

/* The name results are keyed on (lock, journal, manifest): `out` itself,
 * unless it is a symbolic link, then the file it finally points to (followed
 * link by link, so a link to a file not created yet resolves too).  A link
 * to a running sweep's file thus finds that sweep's lock.  malloc'ed. */
char *rc_lock_canonical(const char *out);

/* 1 when a running process holds the lock of results file `out` (its holder
 * line, "host H pid P since T", in holder[n]), else 0.  Only asks: takes
 * nothing and creates nothing (rcsim merge reading parts that may still be
 * written). */
int rc_lock_held(const char *out, char *holder, size_t n);

/* "<out>.lock" (malloc'ed). */
char *rc_lock_path(const char *out);

#endif
