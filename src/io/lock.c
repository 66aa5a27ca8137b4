#include "io/lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
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

char *rc_lock_canonical(const char *out)
{
    char *path = rc_xstrdup(out);
    /* 40 links at most, as the kernel's own limit (ELOOP). */
    for (int hop = 0; hop < 40; hop++) {
        struct stat st;
        if (lstat(path, &st) != 0 || !S_ISLNK(st.st_mode)) break;
        char target[4096];
        ssize_t n = readlink(path, target, sizeof target - 1);
        if (n <= 0) break;
        target[n] = '\0';
        char *next;
        const char *slash = strrchr(path, '/');
        if (target[0] == '/' || slash == NULL) {
            next = rc_xstrdup(target);
        } else {
            size_t dir = (size_t)(slash - path) + 1, len = dir + (size_t)n + 1;
            next = rc_xmalloc(len);
            snprintf(next, len, "%.*s%s", (int)dir, path, target);
        }
        free(path);
        path = next;
    }
    return path;
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

rc_lock *rc_lock_take(const char *out_as_given, rc_err *err)
{
    char *out = rc_lock_canonical(out_as_given);
    struct stat os;
    if (stat(out, &os) == 0 && S_ISREG(os.st_mode) && os.st_nlink > 1) {
        rc_err_set(err, RC_EXIT_USAGE,
                   "--out %s has %lu hard links: rcsim keys the lock, journal and manifest of a "
                   "results file by its name, so another name could be written at the same "
                   "time; use a file with one name (copy it, or remove the other links)",
                   out_as_given, (unsigned long)os.st_nlink);
        free(out);
        return NULL;
    }
    rc_lock *l = NULL;
    char *path = rc_lock_path(out);
    /* A few rounds only for the race with a holder removing its file (below). */
    for (int round = 0; round < 10; round++) {
        int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0) {
            rc_err_set(err, RC_EXIT_USAGE, "--out %s: cannot create the lock file %s: %s", out,
                       path, strerror(errno));
            free(path);
            goto done;
        }
        char holder[256];
        if (set_lock(fd, F_WRLCK) != 0) {
            int e = errno;
            read_holder(fd, holder, sizeof holder);
            close(fd);
            if (e == EACCES || e == EAGAIN) {
                bool link = strcmp(out, out_as_given) != 0;
                rc_err_set(err, RC_EXIT_USAGE,
                           "%s%s%s%s is in use by another rcsim sweep (%s; lock %s): wait for it "
                           "to finish, stop it, or choose another --out",
                           out_as_given, link ? " (a symbolic link to " : "", link ? out : "",
                           link ? ")" : "", holder[0] ? holder : "holder not recorded yet", path);
            } else {
                rc_err_set(err, RC_EXIT_USAGE,
                           "%s: cannot lock %s: %s (the file system must support POSIX record "
                           "locks)",
                           out, path, strerror(e));
            }
            free(path);
            goto done;
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
            goto done;
        }
        l = rc_xmalloc(sizeof *l);
        l->fd = fd;
        l->path = path;
        goto done;
    }
    rc_err_set(err, RC_EXIT_RUNTIME, "%s: the lock file keeps being replaced; giving up", path);
    free(path);
done:
    free(out);
    return l;
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

int rc_lock_held(const char *out_as_given, char *holder, size_t n)
{
    char *out = rc_lock_canonical(out_as_given);
    char *path = rc_lock_path(out);
    free(out);
    holder[0] = '\0';
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    free(path);
    if (fd < 0) return 0; /* no lock file: nobody writes it */
    /* F_GETLK asks without taking (a read-only descriptor is enough to ask). */
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    int held = fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK;
    if (held) read_holder(fd, holder, n);
    close(fd);
    return held;
}
