#include "farm/exec.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/log.h"
#include "exp/result.h"
#include "exp/run.h"

/* What the child writes before its payload (the image, or the message). */
typedef struct child_header {
    int32_t status;
    uint32_t msg_len;
    uint64_t image_len;
    uint64_t events;
    double wall_s;
} child_header;

static void run_here(const rc_job *job, rc_exec_out *out, child_header *h)
{
    rc_result r;
    rc_err err = {0};
    memset(h, 0, sizeof *h);
    /* rc_run_job may fail before initialising r; a zeroed result frees safely. */
    memset(&r, 0, sizeof r);
    int rc = rc_run_job(job, &r, NULL, NULL, &err);
    if (rc != 0) {
        h->status = rc;
        snprintf(out->msg, sizeof out->msg, "%.500s", err.msg[0] ? err.msg : "rc_run_job failed");
        h->msg_len = (uint32_t)strlen(out->msg);
        rc_result_free(&r);
        return;
    }
    rc_result_pack(&r, &out->image, &out->len);
    h->image_len = out->len;
    h->events = r.c.events;
    h->wall_s = r.c.wall_s;
    rc_result_free(&r);
}

static int write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

_Noreturn static void child_main(const rc_job *job, int fd)
{
    /* An RC_ASSERT here must abort this child only: the parent's hook would
     * call MPI_Abort from a process MPI does not know. */
    rc_log_set_abort_hook(NULL);
    rc_exec_out out;
    memset(&out, 0, sizeof out);
    child_header h;
    run_here(job, &out, &h);
    int bad = write_all(fd, &h, sizeof h) != 0;
    if (!bad && h.status == 0) bad = write_all(fd, out.image, out.len) != 0;
    if (!bad && h.status != 0) bad = write_all(fd, out.msg, h.msg_len) != 0;
    free(out.image);
    close(fd);
    /* _exit: no atexit handlers of MPI or HDF5 inherited from the parent. */
    _exit(bad ? 120 : 0);
}

/* Reads from the child, growing the buffer; returns 0 at EOF, -1 if abandoned. */
static int read_child(int fd, char **buf, size_t *len, rc_exec_tick_fn tick, void *ctx,
                      double tick_s)
{
    size_t cap = 1 << 16;
    *buf = rc_xmalloc(cap);
    *len = 0;
    for (;;) {
        if (tick != NULL) {
            struct pollfd p = {.fd = fd, .events = POLLIN};
            int pr = poll(&p, 1, (int)(tick_s * 1000));
            if (pr < 0 && errno != EINTR) return 0;
            if (pr <= 0) {
                if (tick(ctx) != 0) return -1;
                continue;
            }
        }
        if (*len == cap) {
            cap *= 2;
            *buf = rc_xrealloc(*buf, cap);
        }
        ssize_t r = read(fd, *buf + *len, cap - *len);
        if (r < 0) {
            if (errno == EINTR) continue;
            return 0;
        }
        if (r == 0) return 0;
        *len += (size_t)r;
    }
}

void rc_exec_job(const rc_job *job, bool isolate, rc_exec_tick_fn tick, void *ctx, double tick_s,
                 rc_exec_out *out)
{
    memset(out, 0, sizeof *out);
    if (!isolate) {
        child_header h;
        run_here(job, out, &h);
        out->status = h.status;
        out->events = h.events;
        out->wall_s = h.wall_s;
        return;
    }
    int fds[2];
    if (pipe(fds) != 0) {
        out->status = 1;
        snprintf(out->msg, sizeof out->msg, "pipe: %s", strerror(errno));
        return;
    }
    fflush(NULL); /* no buffered output duplicated into the child */
    pid_t pid = fork();
    if (pid < 0) {
        out->status = 1;
        snprintf(out->msg, sizeof out->msg, "fork: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return;
    }
    if (pid == 0) {
        close(fds[0]);
        child_main(job, fds[1]);
    }
    close(fds[1]);
    char *buf;
    size_t len;
    int abandoned = read_child(fds[0], &buf, &len, tick, ctx, tick_s) != 0;
    close(fds[0]);
    if (abandoned) kill(pid, SIGKILL);
    int ws = 0;
    while (waitpid(pid, &ws, 0) < 0 && errno == EINTR) {
    }
    child_header h;
    if (abandoned) {
        out->status = -1;
        snprintf(out->msg, sizeof out->msg, "abandoned (stopped before the job finished)");
    } else if (WIFSIGNALED(ws)) {
        out->status = 1;
        snprintf(out->msg, sizeof out->msg, "job process crashed: signal %d (%s)", WTERMSIG(ws),
                 strsignal(WTERMSIG(ws)));
    } else if (WEXITSTATUS(ws) != 0 || len < sizeof h) {
        out->status = 1;
        snprintf(out->msg, sizeof out->msg, "job process exited with code %d (%zu bytes sent)",
                 WEXITSTATUS(ws), len);
    } else {
        memcpy(&h, buf, sizeof h);
        size_t want = h.status == 0 ? h.image_len : h.msg_len;
        if (len != sizeof h + want) {
            out->status = 1;
            snprintf(out->msg, sizeof out->msg, "job process sent %zu bytes, expected %zu", len,
                     sizeof h + want);
        } else if (h.status != 0) {
            out->status = h.status;
            snprintf(out->msg, sizeof out->msg, "%.*s", (int)h.msg_len, buf + sizeof h);
        } else {
            out->status = 0;
            out->len = h.image_len;
            out->image = rc_xmalloc(out->len ? out->len : 1);
            memcpy(out->image, buf + sizeof h, out->len);
            out->events = h.events;
            out->wall_s = h.wall_s;
        }
    }
    free(buf);
}
