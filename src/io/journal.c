#include "io/journal.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "core/fdio.h"
#include "core/log.h"

#define FILE_MAGIC "RCJRNL02"
#define FILE_MAGIC_V1 "RCJRNL01"
#define REC_MAGIC 0x324a4352u
enum { REC_SESSION = 1, REC_JOB = 2 };
/* A record body larger than this is taken as corruption, not as data: the
 * largest real image (per-delivery records of a long job) is far below it,
 * and the bound keeps a flipped length from allocating gigabytes. */
#define REC_MAX ((uint32_t)1 << 30)
#define BUILD_MAX 4096

typedef struct file_header {
    char magic[8];
    uint64_t sweep_hash;
} file_header;

typedef struct rec_header {
    uint32_t magic;
    uint32_t type;
    uint32_t len; /* body bytes */
    uint32_t crc;
} rec_header;

/* The fixed part of a JOB body; the host name and the image follow. */
typedef struct job_head {
    uint64_t job_id;
    int32_t rank;
    uint32_t pad;
    double finished;
} job_head;

struct rc_journal {
    int fd;
    char *path;
    size_t committed; /* file length after the last commit */
    unsigned char *buf;
    size_t len, cap;
    size_t records;   /* JOB records in buf */
    double oldest;    /* monotonic time of the first record in buf */
    size_t commits;
};

char *rc_journal_path(const char *results_path)
{
    size_t n = strlen(results_path) + sizeof ".journal";
    char *p = rc_xmalloc(n);
    snprintf(p, n, "%s.journal", results_path);
    return p;
}

static double now_mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint32_t record_crc(uint32_t type, const void *body, size_t len)
{
    uLong c = crc32(0L, Z_NULL, 0);
    c = crc32(c, (const Bytef *)&type, sizeof type);
    /* zlib's length is uInt; bodies are below REC_MAX so one call is enough. */
    c = crc32(c, (const Bytef *)body, (uInt)len);
    return (uint32_t)c;
}

/* Reads the record at `pos` (within a file of `size` bytes): 1 and its header and
 * body (in *body, grown as needed) when it is whole and its CRC holds, else 0. */
static int read_record(FILE *f, size_t size, size_t pos, rec_header *h, unsigned char **body,
                       size_t *cap)
{
    if (size - pos < sizeof *h) return 0;
    if (fseeko(f, (off_t)pos, SEEK_SET) != 0 || fread(h, sizeof *h, 1, f) != 1) return 0;
    if (h->magic != REC_MAGIC || h->len > REC_MAX || size - pos - sizeof *h < h->len) return 0;
    if (h->type != REC_SESSION && h->type != REC_JOB) return 0;
    if (h->len > *cap) {
        *cap = h->len;
        *body = rc_xrealloc(*body, *cap);
    }
    if (h->len > 0 && fread(*body, h->len, 1, f) != 1) return 0;
    return record_crc(h->type, *body, h->len) == h->crc;
}

/* The offset of the first whole record after `from` (> from), or `size` when
 * none follows: after a damaged record, where the journal goes on.  The
 * record magic is searched for byte by byte (a damaged length cannot be
 * trusted), and a candidate counts only if its CRC holds. */
static size_t next_record(FILE *f, size_t size, size_t from, unsigned char **body, size_t *cap)
{
    enum { WINDOW = 1 << 16 };
    unsigned char *win = rc_xmalloc(WINDOW);
    const uint32_t magic = REC_MAGIC;
    size_t found = size;
    for (size_t base = from + 1; base + sizeof(rec_header) <= size && found == size;) {
        size_t want = size - base < WINDOW ? size - base : WINDOW;
        if (fseeko(f, (off_t)base, SEEK_SET) != 0 || fread(win, want, 1, f) != 1) break;
        for (size_t i = 0; i + sizeof magic <= want && found == size; i++) {
            if (memcmp(win + i, &magic, sizeof magic) != 0) continue;
            rec_header h;
            if (read_record(f, size, base + i, &h, body, cap)) found = base + i;
        }
        /* The next window overlaps by the magic's length less one byte. */
        base += want > sizeof magic ? want - (sizeof magic - 1) : want;
    }
    free(win);
    return found;
}

int rc_journal_read(const char *path, rc_journal_record_fn fn, void *ctx, rc_journal_scan *scan,
                    rc_err *err)
{
    memset(scan, 0, sizeof *scan);
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        if (errno == ENOENT) return 0;
        return rc_err_set(err, RC_EXIT_RUNTIME, "%s: cannot open journal: %s", path,
                          strerror(errno));
    }
    scan->exists = 1;
    struct stat st;
    if (fstat(fileno(f), &st) != 0) {
        fclose(f);
        return rc_err_set(err, RC_EXIT_RUNTIME, "%s: %s", path, strerror(errno));
    }
    size_t size = (size_t)st.st_size;
    file_header fh;
    if (size == 0) {
        /* Killed between creat() and the header write: an empty journal. */
        fclose(f);
        return 0;
    }
    if (size < sizeof fh || fread(&fh, sizeof fh, 1, f) != 1) {
        fclose(f);
        return rc_err_set(err, RC_EXIT_USAGE, "%s: not an rcsim journal (bad header)", path);
    }
    if (memcmp(fh.magic, FILE_MAGIC_V1, sizeof fh.magic) == 0) {
        fclose(f);
        return rc_err_set(err, RC_EXIT_USAGE,
                          "%s is a journal of the old results layout (rcsim-results/1); this "
                          "build cannot resume from it: convert the results file with `rcsim "
                          "convert` and run the sweep into a new --out",
                          path);
    }
    if (memcmp(fh.magic, FILE_MAGIC, sizeof fh.magic) != 0) {
        fclose(f);
        return rc_err_set(err, RC_EXIT_USAGE, "%s: not an rcsim journal (bad header)", path);
    }
    scan->sweep_hash = fh.sweep_hash;
    size_t pos = sizeof fh;
    scan->valid_bytes = pos;
    unsigned char *body = NULL;
    size_t cap = 0;
    char build[BUILD_MAX] = "";
    int rc = 0;
    while (pos < size) {
        rec_header h;
        bool whole = read_record(f, size, pos, &h, &body, &cap);
        if (whole && h.type == REC_SESSION && h.len < sizeof(double)) whole = false;
        job_head jh;
        size_t hl = 0;
        if (whole && h.type == REC_JOB) {
            if (h.len < sizeof jh + 1) {
                whole = false;
            } else {
                memcpy(&jh, body, sizeof jh);
                hl = body[sizeof jh];
                if (hl >= RC_JOURNAL_HOST_MAX || sizeof jh + 1 + hl > h.len) whole = false;
            }
        }
        if (!whole) {
            /* Damage.  Where whole records follow, it is in the middle (a flipped
             * byte, a bad sector): skip it and read on.  Else it is the tail. */
            size_t next = next_record(f, size, pos, &body, &cap);
            if (next == size) break;
            if (scan->gaps < RC_JOURNAL_GAPS_NAMED) {
                scan->gap_at[scan->gaps] = pos;
                scan->gap_len[scan->gaps] = next - pos;
            }
            scan->gaps++;
            scan->gap_bytes += next - pos;
            pos = next;
            continue;
        }
        if (h.type == REC_SESSION) {
            size_t n = h.len - sizeof(double);
            if (n >= sizeof build) n = sizeof build - 1;
            memcpy(build, body + sizeof(double), n);
            build[n] = '\0';
            scan->sessions++;
        } else {
            rc_journal_meta meta = {.rank = jh.rank, .finished = jh.finished, .build = build};
            memcpy(meta.host, body + sizeof jh + 1, hl);
            meta.host[hl] = '\0';
            scan->records++;
            if (fn != NULL) {
                size_t off = sizeof jh + 1 + hl;
                rc = fn(ctx, jh.job_id, &meta, body + off, h.len - off);
            }
        }
        pos += sizeof h + h.len;
        scan->valid_bytes = pos;
        if (rc != 0) break;
    }
    free(body);
    fclose(f);
    if (rc == 0) scan->dropped_bytes = size - scan->valid_bytes;
    return rc;
}

/* Copies bytes [from, from + len) of `in` to a new file `path`. */
static int copy_span(int in, size_t from, size_t len, const char *path, rc_err *err)
{
    int out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out < 0)
        return rc_err_set(err, RC_EXIT_RUNTIME, "%s: cannot create: %s", path, strerror(errno));
    unsigned char buf[1 << 16];
    int rc = 0;
    for (size_t done = 0; done < len && rc == 0;) {
        size_t want = len - done < sizeof buf ? len - done : sizeof buf;
        ssize_t got = pread(in, buf, want, (off_t)(from + done));
        if (got <= 0 || rc_fd_write_all(out, buf, (size_t)got) != 0)
            rc = rc_err_set(err, RC_EXIT_RUNTIME, "%s: %s", path,
                            got == 0 ? "journal shorter than read" : strerror(errno));
        else
            done += (size_t)got;
    }
    if (rc == 0 && fsync(out) != 0)
        rc = rc_err_set(err, RC_EXIT_RUNTIME, "%s: %s", path, strerror(errno));
    if (close(out) != 0 && rc == 0)
        rc = rc_err_set(err, RC_EXIT_RUNTIME, "%s: %s", path, strerror(errno));
    return rc;
}

char *rc_journal_cut_path(const char *journal_path, size_t offset)
{
    size_t n = strlen(journal_path) + 48;
    char *p = rc_xmalloc(n);
    snprintf(p, n, "%s.cut-at-%zu", journal_path, offset);
    return p;
}

int rc_journal_repair(const char *path, rc_journal_scan *scan, rc_err *err)
{
    if (!scan->exists || (scan->gaps == 0 && scan->dropped_bytes == 0)) return 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return rc_err_set(err, RC_EXIT_RUNTIME, "%s: cannot open journal: %s", path,
                          strerror(errno));
    /* First the copies of what is cut: nothing is lost before they are safe. */
    int rc = 0;
    for (size_t g = 0; g < scan->gaps && g < RC_JOURNAL_GAPS_NAMED && rc == 0; g++) {
        char *cut = rc_journal_cut_path(path, scan->gap_at[g]);
        rc = copy_span(fd, scan->gap_at[g], scan->gap_len[g], cut, err);
        free(cut);
    }
    if (rc == 0 && scan->dropped_bytes > 0) {
        char *cut = rc_journal_cut_path(path, scan->valid_bytes);
        rc = copy_span(fd, scan->valid_bytes, scan->dropped_bytes, cut, err);
        free(cut);
    }
    if (rc != 0 || scan->gaps == 0) {
        /* A torn tail only: rc_journal_open cuts it (the copy is kept). */
        close(fd);
        return rc;
    }
    if (scan->gaps > RC_JOURNAL_GAPS_NAMED) {
        close(fd);
        return rc_err_set(err, RC_EXIT_USAGE,
                          "%s is damaged in %zu places (more than %d): not repaired; the copy "
                          "of the first damaged spans is kept beside it; move the journal away "
                          "to rerun the sweep from its table, or restore it from a backup",
                          path, scan->gaps, RC_JOURNAL_GAPS_NAMED);
    }
    /* The journal without its damaged spans, written beside it and renamed over
     * it: a crash leaves either the old journal or the repaired one. */
    size_t n = strlen(path) + 16;
    char *tmp = rc_xmalloc(n);
    snprintf(tmp, n, "%s.repair", path);
    int out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out < 0) rc = rc_err_set(err, RC_EXIT_RUNTIME, "%s: cannot create: %s", tmp, strerror(errno));
    size_t from = 0, kept = 0;
    unsigned char buf[1 << 16];
    for (size_t g = 0; g <= scan->gaps && rc == 0; g++) {
        size_t to = g < scan->gaps ? scan->gap_at[g] : scan->valid_bytes;
        for (size_t at = from; at < to && rc == 0;) {
            size_t want = to - at < sizeof buf ? to - at : sizeof buf;
            ssize_t got = pread(fd, buf, want, (off_t)at);
            if (got <= 0 || rc_fd_write_all(out, buf, (size_t)got) != 0)
                rc = rc_err_set(err, RC_EXIT_RUNTIME, "%s: %s", tmp, strerror(errno));
            else
                at += (size_t)got;
        }
        kept += to - from;
        if (g < scan->gaps) from = scan->gap_at[g] + scan->gap_len[g];
    }
    if (rc == 0 && fsync(out) != 0)
        rc = rc_err_set(err, RC_EXIT_RUNTIME, "%s: %s", tmp, strerror(errno));
    if (out >= 0 && close(out) != 0 && rc == 0)
        rc = rc_err_set(err, RC_EXIT_RUNTIME, "%s: %s", tmp, strerror(errno));
    close(fd);
    if (rc == 0 && rename(tmp, path) != 0)
        rc = rc_err_set(err, RC_EXIT_RUNTIME, "%s: cannot replace it with %s: %s", path, tmp,
                        strerror(errno));
    if (rc != 0) {
        remove(tmp);
    } else {
        scan->valid_bytes = kept;
        scan->dropped_bytes = 0;
    }
    free(tmp);
    return rc;
}

static unsigned char *reserve(rc_journal *j, size_t n)
{
    if (j->len + n > j->cap) {
        j->cap = j->cap ? j->cap : 1 << 16;
        while (j->len + n > j->cap) j->cap *= 2;
        j->buf = rc_xrealloc(j->buf, j->cap);
    }
    unsigned char *p = j->buf + j->len;
    j->len += n;
    return p;
}

/* Appends a record whose body is the concatenation of up to three parts. */
static void put_record(rc_journal *j, uint32_t type, const void *a, size_t na, const void *b,
                       size_t nb, const void *c, size_t nc)
{
    size_t blen = na + nb + nc;
    RC_ASSERT(blen < REC_MAX);
    if (j->len == 0) j->oldest = now_mono();
    unsigned char *p = reserve(j, sizeof(rec_header) + blen);
    unsigned char *body = p + sizeof(rec_header);
    if (na) memcpy(body, a, na);
    if (nb) memcpy(body + na, b, nb);
    if (nc) memcpy(body + na + nb, c, nc);
    rec_header h = {.magic = REC_MAGIC, .type = type, .len = (uint32_t)blen};
    h.crc = record_crc(type, body, blen);
    memcpy(p, &h, sizeof h);
}

rc_journal *rc_journal_open(const char *path, uint64_t sweep_hash, size_t valid_bytes,
                            const char *build, rc_err *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        rc_err_set(err, RC_EXIT_RUNTIME, "%s: cannot open journal for writing: %s", path,
                   strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) goto fail;
    if ((size_t)st.st_size < sizeof(file_header)) {
        /* New (or empty after a crash right after creation): write the header. */
        file_header fh;
        memcpy(fh.magic, FILE_MAGIC, sizeof fh.magic);
        fh.sweep_hash = sweep_hash;
        if (ftruncate(fd, 0) != 0 || rc_fd_write_all(fd, &fh, sizeof fh) != 0 || fsync(fd) != 0)
            goto fail;
        valid_bytes = sizeof fh;
    } else {
        RC_ASSERT(valid_bytes >= sizeof(file_header));
        /* Drop a torn tail so the next record is reachable by a reader. */
        if ((size_t)st.st_size > valid_bytes && ftruncate(fd, (off_t)valid_bytes) != 0)
            goto fail;
        if (lseek(fd, (off_t)valid_bytes, SEEK_SET) < 0) goto fail;
    }
    rc_journal *j = rc_xcalloc(1, sizeof *j);
    j->fd = fd;
    j->path = rc_xstrdup(path);
    j->committed = valid_bytes;
    rc_journal_session(j, build);
    return j;
fail:
    rc_err_set(err, RC_EXIT_RUNTIME, "%s: journal: %s", path, strerror(errno));
    close(fd);
    return NULL;
}

void rc_journal_session(rc_journal *j, const char *build)
{
    double start = (double)time(NULL);
    const char *b = build ? build : "";
    put_record(j, REC_SESSION, &start, sizeof start, b, strnlen(b, BUILD_MAX - 1), NULL, 0);
}

void rc_journal_append(rc_journal *j, uint64_t job_id, const rc_journal_meta *meta,
                       const void *image, size_t len)
{
    unsigned char host[1 + RC_JOURNAL_HOST_MAX];
    size_t hl = strnlen(meta->host, RC_JOURNAL_HOST_MAX - 1);
    host[0] = (unsigned char)hl;
    memcpy(host + 1, meta->host, hl);
    job_head jh = {.job_id = job_id, .rank = meta->rank, .pad = 0, .finished = meta->finished};
    put_record(j, REC_JOB, &jh, sizeof jh, host, 1 + hl, image, len);
    j->records++;
}

size_t rc_journal_uncommitted(const rc_journal *j) { return j->records; }

bool rc_journal_due(const rc_journal *j)
{
    if (j->records == 0) return false;
    return j->records >= RC_JOURNAL_COMMIT_RECORDS || now_mono() - j->oldest >= RC_JOURNAL_COMMIT_S;
}

int rc_journal_commit(rc_journal *j, rc_err *err)
{
    /* A SESSION record alone waits for the session's first job. */
    if (j->records == 0) return 0;
    /* One write() per batch keeps a torn batch at the tail only. */
    int bad = rc_fd_write_all(j->fd, j->buf, j->len) != 0 || fsync(j->fd) != 0;
    int e = errno;
    if (bad) {
        /* Nothing of this batch counts: cut it off, so the file holds exactly
         * the committed records (ftruncate needs no free space). */
        if (ftruncate(j->fd, (off_t)j->committed) == 0) lseek(j->fd, (off_t)j->committed, SEEK_SET);
        j->len = 0;
        j->records = 0;
        return rc_err_set(err, RC_EXIT_RUNTIME, "%s: cannot append to journal: %s", j->path,
                          strerror(e));
    }
    j->committed += j->len;
    j->len = 0;
    j->records = 0;
    j->commits++;
    return 0;
}

size_t rc_journal_commits(const rc_journal *j) { return j->commits; }

void rc_journal_close(rc_journal *j)
{
    if (j == NULL) return;
    close(j->fd);
    free(j->buf);
    free(j->path);
    free(j);
}
