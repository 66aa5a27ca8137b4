#include "io/lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/log.h"

struct rc_lock {
    int fd;
    char *path;
};

char *rc_lock_path(const char *out)
{
    size_t n = strlen(out) + sizeof ".lock";
    char *p = rc_xmalloc(n);
    snprintf(p, n, "%s.lock", out);
    return p;
}

/* The holder line of an open lock file, without its newline ("" if none). */
static void read_holder(int fd, char *buf, size_t n)
{
    ssize_t got = pread(fd, buf, n - 1, 0);
    buf[got > 0 ? got : 0] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
}

static int set_lock(int fd, short type)
{
    struct flock fl = {.l_type = type, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    return fcntl(fd, F_SETLK, &fl);
}

rc_lock *rc_lock_take(const char *out, rc_err *err)
{
    char *path = rc_lock_path(out);
    /* A few rounds only for the race with a holder removing its file (below). */
    for (int round = 0; round < 10; round++) {
        int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0) {
            rc_err_set(err, RC_EXIT_USAGE, "--out %s: cannot create the lock file %s: %s", out,
                       path, strerror(errno));
            free(path);
            return NULL;
        }
        char holder[256];
        if (set_lock(fd, F_WRLCK) != 0) {
            int e = errno;
            read_holder(fd, holder, sizeof holder);
            close(fd);
            if (e == EACCES || e == EAGAIN) {
                rc_err_set(err, RC_EXIT_USAGE,
                           "%s is in use by another rcsim sweep (%s; lock %s): wait for it to "
                           "finish, stop it, or choose another --out",
                           out, holder[0] ? holder : "holder not recorded yet", path);
            } else {
                rc_err_set(err, RC_EXIT_USAGE,
                           "%s: cannot lock %s: %s (the file system must support POSIX record "
                           "locks)",
                           out, path, strerror(e));
            }
            free(path);
            return NULL;
        }
        /* Locked; but if the holder we waited on removed the file meanwhile,
         * we hold a lock on a file nobody else will look at: start over. */
        struct stat a, b;
        if (fstat(fd, &a) != 0 || stat(path, &b) != 0 || a.st_ino != b.st_ino ||
            a.st_dev != b.st_dev) {
            close(fd);
            continue;
        }
        read_holder(fd, holder, sizeof holder);
        if (holder[0] != '\0')
            fprintf(stderr,
                    "rcsim sweep: %s: the previous holder (%s) is gone without releasing it "
                    "(killed?); taking it over\n",
                    path, holder);
        char host[256] = "unknown", since[32];
        gethostname(host, sizeof host - 1);
        host[sizeof host - 1] = '\0';
        time_t now = time(NULL);
        struct tm tm;
        gmtime_r(&now, &tm);
        strftime(since, sizeof since, "%Y-%m-%dT%H:%M:%SZ", &tm);
        char line[512];
        int len = snprintf(line, sizeof line, "host %s pid %ld since %s\n", host, (long)getpid(),
                           since);
        if (ftruncate(fd, 0) != 0 || pwrite(fd, line, (size_t)len, 0) != len) {
            rc_err_set(err, RC_EXIT_RUNTIME, "%s: cannot write the lock file: %s", path,
                       strerror(errno));
            close(fd);
            free(path);
            return NULL;
        }
        rc_lock *l = rc_xmalloc(sizeof *l);
        l->fd = fd;
        l->path = path;
        return l;
    }
    rc_err_set(err, RC_EXIT_RUNTIME, "%s: the lock file keeps being replaced; giving up", path);
    free(path);
    return NULL;
}

void rc_lock_release(rc_lock *l)
{
    if (l == NULL) return;
    /* Unlink first, then unlock by closing: see the header for why a taker
     * that opened the old file notices. */
    unlink(l->path);
    close(l->fd);
    free(l->path);
    free(l);
}
