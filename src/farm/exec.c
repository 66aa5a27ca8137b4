#include "farm/exec.h"

#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/fdio.h"
#include "core/log.h"
#include "exp/result.h"
#include "exp/run.h"

/* What the child writes per job before its payload (the image, or the message). */
typedef struct frame_header {
    int32_t status;
    uint32_t msg_len;
    uint64_t image_len;
    uint64_t events;
    double wall_s;
} frame_header;

static void run_here(const rc_job *job, rc_exec_out *out)
{
    rc_result r;
    rc_err err = {0};
    memset(out, 0, sizeof *out);
    /* rc_run_job may fail before initialising r; a zeroed result frees safely. */
    memset(&r, 0, sizeof r);
    int rc = rc_run_job(job, &r, NULL, NULL, &err);
    if (rc != 0) {
        out->status = rc;
        snprintf(out->msg, sizeof out->msg, "%.500s", err.msg[0] ? err.msg : "rc_run_job failed");
        rc_result_free(&r);
        return;
    }
    rc_result_pack(&r, &out->image, &out->len);
    rc_result_deflate(&out->image, &out->len);
    out->events = r.c.events;
    out->wall_s = r.c.wall_s;
    rc_result_free(&r);
}

/* A job's large arrays (latency samples, sort buffers, message records) grow
 * to several MB and are freed at its end.  glibc maps such blocks with mmap
 * and returns them on free, and trims the heap top, so every job of a chunk
 * faulted its memory in afresh (about 3,500 page faults per 24 h job, close
 * to a tenth of its CPU on these machines).  Keeping freed memory in the
 * heap lets the next job reuse pages already mapped (docs/performance.md,
 * "Session 5").  Allocation addresses change; results do not. */
static void keep_freed_memory(void)
{
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 32 << 20); /* glibc's maximum */
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

_Noreturn static void child_main(const rc_job *jobs, size_t n, int fd)
{
    keep_freed_memory();
    /* An RC_ASSERT here must abort this child only: the parent's hook would
     * call MPI_Abort from a process MPI does not know. */
    rc_log_set_abort_hook(NULL);
    int bad = 0;
    for (size_t i = 0; i < n && !bad; i++) {
        rc_exec_out out;
        run_here(&jobs[i], &out);
        frame_header h = {.status = out.status,
                          .msg_len = out.status ? (uint32_t)strlen(out.msg) : 0,
                          .image_len = out.status ? 0 : out.len,
                          .events = out.events,
                          .wall_s = out.wall_s};
        bad = rc_fd_write_all(fd, &h, sizeof h) != 0;
        if (!bad && h.status == 0) bad = rc_fd_write_all(fd, out.image, out.len) != 0;
        if (!bad && h.status != 0) bad = rc_fd_write_all(fd, out.msg, h.msg_len) != 0;
        free(out.image);
    }
    close(fd);
    /* _exit: no atexit handlers of MPI or HDF5 inherited from the parent. */
    _exit(bad ? 120 : 0);
}

typedef struct reader {
    char *buf;
    size_t len, cap, used; /* bytes read, bytes consumed by complete frames */
} reader;

/* Reads what is available (blocking); 0 at EOF, 1 if data came, -1 if abandoned. */
static int read_some(int fd, reader *r, rc_exec_tick_fn tick, void *ctx, double tick_s)
{
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
        if (r->cap - r->len < 65536) {
            r->cap = r->cap ? 2 * r->cap : 1 << 17;
            r->buf = rc_xrealloc(r->buf, r->cap);
        }
        ssize_t got = read(fd, r->buf + r->len, r->cap - r->len);
        if (got < 0) {
            if (errno == EINTR) continue;
            return 0;
        }
        if (got == 0) return 0;
        r->len += (size_t)got;
        return 1;
    }
}

/* Hands every complete frame in the buffer to `done`; returns how many. */
static size_t take_frames(reader *r, size_t first, size_t n, rc_exec_done_fn done, void *dctx)
{
    size_t k = 0;
    while (first + k < n && r->len - r->used >= sizeof(frame_header)) {
        frame_header h;
        memcpy(&h, r->buf + r->used, sizeof h);
        size_t want = h.status == 0 ? h.image_len : h.msg_len;
        if (r->len - r->used - sizeof h < want) break;
        const char *payload = r->buf + r->used + sizeof h;
        rc_exec_out out;
        memset(&out, 0, sizeof out);
        out.status = h.status;
        out.events = h.events;
        out.wall_s = h.wall_s;
        if (h.status == 0) {
            out.image = (void *)payload; /* valid during the call only */
            out.len = h.image_len;
        } else {
            snprintf(out.msg, sizeof out.msg, "%.*s", (int)h.msg_len, payload);
        }
        done(dctx, first + k, &out);
        r->used += sizeof h + want;
        k++;
    }
    /* Keep the unconsumed tail at the front. */
    if (r->used > 0) {
        memmove(r->buf, r->buf + r->used, r->len - r->used);
        r->len -= r->used;
        r->used = 0;
    }
    return k;
}

void rc_exec_chunk(const rc_job *jobs, size_t n, bool isolate, rc_exec_tick_fn tick, void *tctx,
                   double tick_s, rc_exec_done_fn done, void *dctx)
{
    if (!isolate) {
        keep_freed_memory();
        for (size_t i = 0; i < n; i++) {
            rc_exec_out out;
            run_here(&jobs[i], &out);
            done(dctx, i, &out);
            free(out.image);
            if (tick != NULL && i + 1 < n && tick(tctx) != 0) {
                for (size_t j = i + 1; j < n; j++) {
                    rc_exec_out ab = {.status = -1};
                    snprintf(ab.msg, sizeof ab.msg, "abandoned (stopped before the job started)");
                    done(dctx, j, &ab);
                }
                return;
            }
        }
        return;
    }
    rc_run_warm(jobs, n); /* the children inherit the loaded traces */
    size_t next = 0;
    reader r = {0};
    while (next < n) {
        int fds[2];
        rc_exec_out fail = {.status = 1};
        if (pipe(fds) != 0) {
            snprintf(fail.msg, sizeof fail.msg, "pipe: %s", strerror(errno));
            done(dctx, next++, &fail);
            continue;
        }
        fflush(NULL); /* no buffered output duplicated into the child */
        pid_t pid = fork();
        if (pid < 0) {
            snprintf(fail.msg, sizeof fail.msg, "fork: %s", strerror(errno));
            close(fds[0]);
            close(fds[1]);
            done(dctx, next++, &fail);
            continue;
        }
        if (pid == 0) {
            close(fds[0]);
            child_main(jobs + next, n - next, fds[1]);
        }
        close(fds[1]);
        r.len = r.used = 0;
        int st;
        while ((st = read_some(fds[0], &r, tick, tctx, tick_s)) > 0)
            next += take_frames(&r, next, n, done, dctx);
        close(fds[0]);
        if (st < 0) kill(pid, SIGKILL);
        int ws = 0;
        while (waitpid(pid, &ws, 0) < 0 && errno == EINTR) {
        }
        next += take_frames(&r, next, n, done, dctx);
        if (next >= n) break;
        if (st < 0) {
            for (; next < n; next++) {
                rc_exec_out ab = {.status = -1};
                snprintf(ab.msg, sizeof ab.msg, "abandoned (stopped before the job finished)");
                done(dctx, next, &ab);
            }
            break;
        }
        /* The child ended without finishing the job `next`: that job failed;
         * a new child takes the rest of the chunk. */
        if (WIFSIGNALED(ws))
            snprintf(fail.msg, sizeof fail.msg, "job process crashed: signal %d (%s)",
                     WTERMSIG(ws), strsignal(WTERMSIG(ws)));
        else
            snprintf(fail.msg, sizeof fail.msg,
                     "job process exited with code %d (%zu bytes of its result sent)",
                     WIFEXITED(ws) ? WEXITSTATUS(ws) : -1, r.len);
        done(dctx, next++, &fail);
    }
    free(r.buf);
}
