/* fdio: writing a whole buffer to a file descriptor.
 *
 * write(2) may write less than asked (pipes, signals, full disks); the journal,
 * the manifest and the worker's result pipe all need all-or-error.  No
 * allocation; errno is left as write(2) set it on failure.
 */
#ifndef RCSIM_CORE_FDIO_H
#define RCSIM_CORE_FDIO_H

#include <stddef.h>

/* Writes len bytes of buf to fd, retrying short writes and EINTR.
 * Returns 0, or -1 with errno set. */
int rc_fd_write_all(int fd, const void *buf, size_t len);

#endif
