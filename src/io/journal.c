#include "io/journal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "core/log.h"

#define FILE_MAGIC "RCJRNL01"
#define REC_MAGIC 0x52434a52u
/* A record body larger than this is taken as corruption, not as data: the
 * largest real image (histograms plus raw latencies of a long job) is far
 * below it, and the bound keeps a flipped length from allocating gigabytes. */
#define REC_MAX ((uint32_t)1 << 30)

typedef struct file_header {
    char magic[8];
    uint64_t sweep_hash;
} file_header;

typedef struct rec_header {
    uint32_t magic;
    uint32_t len; /* body bytes */
    uint64_t job_id;
    uint32_t crc;
    uint32_t pad; /* keeps the header 24 bytes with no implicit padding */
} rec_header;

typedef struct rec_meta {
    int32_t rank;
    char host[RC_JOURNAL_HOST_MAX];
    uint32_t pad;
    double finished;
} rec_meta;

struct rc_journal {
    int fd;
    char *path;
};

char *rc_journal_path(const char *results_path)
{
    size_t n = strlen(results_path) + sizeof ".journal";
    char *p = rc_xmalloc(n);
    snprintf(p, n, "%s.journal", results_path);
    return p;
}

static uint32_t record_crc(uint64_t job_id, const void *body, size_t len)
{
    uLong c = crc32(0L, Z_NULL, 0);
    c = crc32(c, (const Bytef *)&job_id, sizeof job_id);
    /* zlib's length is uInt; bodies are below REC_MAX so one call is enough. */
    c = crc32(c, (const Bytef *)body, (uInt)len);
    return (uint32_t)c;
}

int rc_journal_read(const char *path, uint64_t sweep_hash, rc_journal_record_fn fn, void *ctx,
                    rc_journal_scan *scan, rc_err *err)
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
    if (size < sizeof fh || fread(&fh, sizeof fh, 1, f) != 1 ||
        memcmp(fh.magic, FILE_MAGIC, sizeof fh.magic) != 0) {
        fclose(f);
        return rc_err_set(err, RC_EXIT_USAGE, "%s: not an rcsim journal (bad header)", path);
    }
    if (fh.sweep_hash != sweep_hash) {
        fclose(f);
        return rc_err_set(err, RC_EXIT_USAGE,
                          "%s: journal belongs to another sweep (hash %016llx, this sweep is "
                          "%016llx)",
                          path, (unsigned long long)fh.sweep_hash,
                          (unsigned long long)sweep_hash);
    }
    size_t pos = sizeof fh;
    scan->valid_bytes = pos;
    void *body = NULL;
    size_t cap = 0;
    int rc = 0;
    for (;;) {
        rec_header h;
        if (size - pos < sizeof h) break;
        if (fread(&h, sizeof h, 1, f) != 1) break;
        if (h.magic != REC_MAGIC || h.len < sizeof(rec_meta) || h.len > REC_MAX ||
            size - pos - sizeof h < h.len)
            break;
        if (h.len > cap) {
            cap = h.len;
            body = rc_xrealloc(body, cap);
        }
        if (fread(body, h.len, 1, f) != 1) break;
        if (record_crc(h.job_id, body, h.len) != h.crc) break;
        rec_meta rm;
        memcpy(&rm, body, sizeof rm);
        rc_journal_meta meta = {.rank = rm.rank, .finished = rm.finished};
        memcpy(meta.host, rm.host, sizeof meta.host);
        meta.host[sizeof meta.host - 1] = '\0';
        pos += sizeof h + h.len;
        scan->valid_bytes = pos;
        scan->records++;
        if (fn != NULL) {
            rc = fn(ctx, h.job_id, &meta, (const char *)body + sizeof rm, h.len - sizeof rm);
            if (rc != 0) break;
        }
    }
    free(body);
    fclose(f);
    if (rc == 0) scan->dropped_bytes = size - scan->valid_bytes;
    return rc;
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

rc_journal *rc_journal_open(const char *path, uint64_t sweep_hash, size_t valid_bytes,
                            rc_err *err)
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
        if (ftruncate(fd, 0) != 0 || write_all(fd, &fh, sizeof fh) != 0 || fsync(fd) != 0)
            goto fail;
    } else {
        RC_ASSERT(valid_bytes >= sizeof(file_header));
        /* Drop a torn tail so the next record is reachable by a reader. */
        if ((size_t)st.st_size > valid_bytes && ftruncate(fd, (off_t)valid_bytes) != 0)
            goto fail;
        if (lseek(fd, (off_t)valid_bytes, SEEK_SET) < 0) goto fail;
    }
    rc_journal *j = rc_xmalloc(sizeof *j);
    j->fd = fd;
    j->path = rc_xstrdup(path);
    return j;
fail:
    rc_err_set(err, RC_EXIT_RUNTIME, "%s: journal: %s", path, strerror(errno));
    close(fd);
    return NULL;
}

int rc_journal_append(rc_journal *j, uint64_t job_id, const rc_journal_meta *meta,
                      const void *image, size_t len, rc_err *err)
{
    RC_ASSERT(len + sizeof(rec_meta) < REC_MAX);
    size_t blen = sizeof(rec_meta) + len;
    char *buf = rc_xmalloc(sizeof(rec_header) + blen);
    rec_meta rm;
    memset(&rm, 0, sizeof rm);
    rm.rank = meta->rank;
    snprintf(rm.host, sizeof rm.host, "%s", meta->host);
    rm.finished = meta->finished;
    memcpy(buf + sizeof(rec_header), &rm, sizeof rm);
    if (len > 0) memcpy(buf + sizeof(rec_header) + sizeof rm, image, len);
    rec_header h = {.magic = REC_MAGIC, .len = (uint32_t)blen, .job_id = job_id, .pad = 0};
    h.crc = record_crc(job_id, buf + sizeof h, blen);
    memcpy(buf, &h, sizeof h);
    /* One write() per record keeps a torn record at the tail only. */
    int bad = write_all(j->fd, buf, sizeof h + blen) != 0 || fsync(j->fd) != 0;
    free(buf);
    if (bad)
        return rc_err_set(err, RC_EXIT_RUNTIME, "%s: cannot append to journal: %s", j->path,
                          strerror(errno));
    return 0;
}

void rc_journal_close(rc_journal *j)
{
    if (j == NULL) return;
    close(j->fd);
    free(j->path);
    free(j);
}
