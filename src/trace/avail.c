/* avail: availability traces read from gzipped '0'/'1' text into toggles.
 *
 * The parser is a streaming state machine fed in chunks (from gzread or from
 * memory), so a 770 x 86,400-character trace never exists as text in memory:
 * each line becomes the list of seconds at which its state flips.  All
 * toggles of a trace live in one array; a line is an (offset, count) slice of
 * it.  A bad trace is a user error (core/err.h): the message names file:line
 * and the problem.
 */
#include "trace/avail.h"

#include <errno.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "core/log.h"

/* Lines longer than this are rejected before the column counter could
 * overflow the uint32_t toggle positions. */
#define RC_TRACE_MAX_PERIOD 0x7fffffffu

typedef struct trace_line {
    size_t off;        /* first toggle in rc_trace.toggles */
    uint32_t n;        /* number of toggles */
    uint32_t online_s; /* seconds online within one period */
    bool online_at_0;
} trace_line;

struct rc_trace {
    uint32_t period;
    size_t n_lines, cap_lines;
    trace_line *lines;
    size_t n_toggles, cap_toggles;
    uint32_t *toggles;
    uint8_t sha256[SHA256_DIGEST_SIZE]; /* of the decompressed text (trace identity) */
};

/* Parser state across chunks.  `col` counts the characters of the current
 * line so far; `cur` is the state character of the current run. */
typedef struct parser {
    const char *name;
    size_t min_lines;
    rc_err *err;
    bool failed;
    rc_trace *t;
    size_t lineno;      /* 1-based physical line being read */
    size_t period_line; /* line that fixed the period */
    uint64_t col;
    uint64_t run_start;
    uint64_t online;
    char cur;
    bool pending_cr;
    struct sha256_ctx sha; /* every byte fed, for rc_trace_sha256 */
} parser;

static void fail(parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(parser *p, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    rc_err_set(p->err, RC_EXIT_USAGE, "%s:%zu: %s", p->name, p->lineno, what);
    p->failed = true;
}

static void push_toggle(rc_trace *t, uint32_t s)
{
    if (t->n_toggles == t->cap_toggles) {
        t->cap_toggles = t->cap_toggles ? 2 * t->cap_toggles : 1024;
        t->toggles = rc_xrealloc(t->toggles, t->cap_toggles * sizeof *t->toggles);
    }
    t->toggles[t->n_toggles++] = s;
}

static void start_line(parser *p, char c)
{
    rc_trace *t = p->t;
    if (t->n_lines == t->cap_lines) {
        t->cap_lines = t->cap_lines ? 2 * t->cap_lines : 64;
        t->lines = rc_xrealloc(t->lines, t->cap_lines * sizeof *t->lines);
    }
    t->lines[t->n_lines] = (trace_line){.off = t->n_toggles, .online_at_0 = c == '1'};
    p->cur = c;
    p->run_start = 0;
    p->online = 0;
}

/* A line ended (newline or end of input).  Empty lines are skipped, as the
 * reference loader does; every other line must have the trace's period. */
static void end_line(parser *p)
{
    rc_trace *t = p->t;
    if (p->col > 0) {
        if (t->period == 0) {
            t->period = (uint32_t)p->col;
            p->period_line = p->lineno;
        } else if (p->col != t->period) {
            fail(p, "line has %llu characters, expected %u (the length of line %zu)",
                 (unsigned long long)p->col, t->period, p->period_line);
            return;
        }
        if (p->cur == '1') p->online += p->col - p->run_start;
        trace_line *l = &t->lines[t->n_lines++];
        l->n = (uint32_t)(t->n_toggles - l->off);
        l->online_s = (uint32_t)p->online;
    }
    p->lineno++;
    p->col = 0;
    p->pending_cr = false;
}

static void feed(parser *p, const char *buf, size_t n)
{
    /* Hashing here costs ~0.03 s for a 47 MB reference trace and no second
     * decompression pass. */
    sha256_update(&p->sha, n, (const uint8_t *)buf);
    size_t i = 0;
    while (i < n && !p->failed) {
        char c = buf[i];
        if (p->pending_cr && c != '\n') {
            fail(p, "bad character 0x0d ('\\r' not before a newline) at column %llu",
                 (unsigned long long)p->col + 1);
            return;
        }
        if (c == '0' || c == '1') {
            if (p->col == 0) {
                start_line(p, c);
            } else if (c != p->cur) {
                push_toggle(p->t, (uint32_t)p->col);
                if (p->cur == '1') p->online += p->col - p->run_start;
                p->run_start = p->col;
                p->cur = c;
            }
            /* Runs are long (hours), so scanning a run in a tight loop is what
             * makes loading fast. */
            size_t j = i + 1;
            while (j < n && buf[j] == c) j++;
            p->col += j - i;
            i = j;
            uint32_t limit = p->t->period ? p->t->period : RC_TRACE_MAX_PERIOD;
            if (p->col > limit) {
                if (p->t->period)
                    fail(p, "line has more than %u characters (the length of line %zu)",
                         p->t->period, p->period_line);
                else
                    fail(p, "line has more than %u characters", RC_TRACE_MAX_PERIOD);
                return;
            }
        } else if (c == '\n') {
            end_line(p);
            i++;
        } else if (c == '\r') {
            /* CRLF files are accepted; a lone CR is not. */
            p->pending_cr = true;
            i++;
        } else {
            unsigned char u = (unsigned char)c;
            if (u >= 0x20 && u < 0x7f)
                fail(p, "bad character '%c' (0x%02x) at column %llu (expected '0' or '1')", c, u,
                     (unsigned long long)p->col + 1);
            else
                fail(p, "bad character 0x%02x at column %llu (expected '0' or '1')", u,
                     (unsigned long long)p->col + 1);
            return;
        }
    }
}

static void parser_init(parser *p, const char *name, size_t min_lines, rc_err *err)
{
    *p = (parser){.name = name, .min_lines = min_lines, .err = err, .lineno = 1};
    p->t = rc_xcalloc(1, sizeof *p->t);
    sha256_init(&p->sha);
}

/* Ends the input: the last line may lack its newline.  Returns the trace or
 * NULL (and frees it) on error. */
static rc_trace *parser_finish(parser *p)
{
    if (!p->failed && (p->col > 0 || p->pending_cr)) end_line(p);
    rc_trace *t = p->t;
    if (!p->failed && t->n_lines == 0) {
        rc_err_set(p->err, RC_EXIT_USAGE, "%s: trace has no lines of '0'/'1'", p->name);
        p->failed = true;
    }
    if (!p->failed && t->n_lines < p->min_lines) {
        rc_err_set(p->err, RC_EXIT_USAGE, "trace %s has %zu lines, the job needs %zu", p->name,
                   t->n_lines, p->min_lines);
        p->failed = true;
    }
    if (p->failed) {
        rc_trace_free(t);
        return NULL;
    }
    sha256_digest(&p->sha, sizeof t->sha256, t->sha256);
    /* Shrink to fit: a loaded trace stays resident for the whole run. */
    t->lines = rc_xrealloc(t->lines, t->n_lines * sizeof *t->lines);
    t->cap_lines = t->n_lines;
    if (t->n_toggles > 0) {
        t->toggles = rc_xrealloc(t->toggles, t->n_toggles * sizeof *t->toggles);
        t->cap_toggles = t->n_toggles;
    }
    return t;
}

rc_trace *rc_trace_parse(const char *name, const void *text, size_t n, size_t min_lines,
                         rc_err *err)
{
    parser p;
    parser_init(&p, name, min_lines, err);
    feed(&p, text, n);
    return parser_finish(&p);
}

rc_trace *rc_trace_load(const char *path, size_t min_lines, rc_err *err)
{
    errno = 0;
    gzFile g = gzopen(path, "rb");
    if (g == NULL) {
        rc_err_set(err, RC_EXIT_USAGE, "cannot open trace %s: %s", path,
                   errno ? strerror(errno) : "out of memory");
        return NULL;
    }
    gzbuffer(g, 1u << 17);
    enum { CHUNK = 1 << 18 };
    char *buf = rc_xmalloc(CHUNK);
    parser p;
    parser_init(&p, path, min_lines, err);
    for (;;) {
        int got = gzread(g, buf, CHUNK);
        /* gzopen reads non-gzip files transparently; traces must be gzip, so
         * a plain file is an error rather than silently accepted. */
        if (gzdirect(g)) {
            rc_err_set(err, RC_EXIT_USAGE, "%s: not a gzip file", path);
            p.failed = true;
            break;
        }
        if (got < 0) {
            int zerr = 0;
            const char *msg = gzerror(g, &zerr);
            /* gzerror prefixes the path; the message names it once already. */
            size_t plen = strlen(path);
            if (!strncmp(msg, path, plen) && !strncmp(msg + plen, ": ", 2)) msg += plen + 2;
            /* zlib hands out data in chunks, so the exact line is unknown;
             * the lines parsed before the bad chunk are. */
            rc_err_set(err, RC_EXIT_USAGE, "%s: %s gzip stream after %zu complete lines: %s",
                       path, zerr == Z_BUF_ERROR ? "truncated" : "corrupt", p.t->n_lines, msg);
            p.failed = true;
            break;
        }
        if (got == 0) break;
        feed(&p, buf, (size_t)got);
        if (p.failed) break;
    }
    free(buf);
    /* gzclose_r reports a stream that ended mid-member (Z_BUF_ERROR) even when
     * every gzread succeeded. */
    int rc = gzclose_r(g);
    if (!p.failed && rc != Z_OK) {
        rc_err_set(err, RC_EXIT_USAGE, "%s: %s gzip stream after %zu complete lines (zlib error %d)",
                   path, rc == Z_BUF_ERROR ? "truncated" : "corrupt", p.t->n_lines, rc);
        p.failed = true;
    }
    return parser_finish(&p);
}

void rc_trace_free(rc_trace *t)
{
    if (t == NULL) return;
    free(t->lines);
    free(t->toggles);
    free(t);
}

size_t rc_trace_lines(const rc_trace *t)
{
    return t->n_lines;
}

uint32_t rc_trace_period_s(const rc_trace *t)
{
    return t->period;
}

void rc_trace_sha256(const rc_trace *t, char hex[65])
{
    for (size_t i = 0; i < sizeof t->sha256; i++) snprintf(hex + 2 * i, 3, "%02x", t->sha256[i]);
}

double rc_trace_online_fraction(const rc_trace *t, size_t line)
{
    RC_ASSERT(line < t->n_lines);
    return (double)t->lines[line].online_s / (double)t->period;
}

bool rc_trace_online_at(const rc_trace *t, size_t line, uint64_t s)
{
    RC_ASSERT(line < t->n_lines);
    const trace_line *l = &t->lines[line];
    /* A line without toggles may have no toggle storage at all (NULL). */
    if (l->n == 0) return l->online_at_0;
    uint32_t x = (uint32_t)(s % t->period);
    /* Number of toggles at or before x: each one flips the state. */
    const uint32_t *tg = t->toggles + l->off;
    size_t lo = 0, hi = l->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (tg[mid] <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return l->online_at_0 ^ (lo & 1);
}

const uint32_t *rc_trace_toggles(const rc_trace *t, size_t line, bool *online_at_0, size_t *n)
{
    RC_ASSERT(line < t->n_lines);
    const trace_line *l = &t->lines[line];
    if (online_at_0) *online_at_0 = l->online_at_0;
    if (n) *n = l->n;
    return t->toggles ? t->toggles + l->off : NULL;
}

int rc_trace_write(const char *path, const char *const *lines, size_t n_lines, rc_err *err)
{
    size_t len = n_lines ? strlen(lines[0]) : 0;
    if (len == 0) return rc_err_set(err, RC_EXIT_USAGE, "%s: no trace lines to write", path);
    for (size_t i = 0; i < n_lines; i++) {
        if (strlen(lines[i]) != len)
            return rc_err_set(err, RC_EXIT_USAGE, "%s: line %zu has %zu characters, expected %zu",
                              path, i + 1, strlen(lines[i]), len);
        if (strspn(lines[i], "01") != len)
            return rc_err_set(err, RC_EXIT_USAGE, "%s: line %zu has a character other than 0/1",
                              path, i + 1);
    }
    errno = 0;
    gzFile g = gzopen(path, "wb");
    if (g == NULL)
        return rc_err_set(err, RC_EXIT_RUNTIME, "cannot write trace %s: %s", path,
                          errno ? strerror(errno) : "out of memory");
    bool ok = true;
    for (size_t i = 0; i < n_lines && ok; i++)
        ok = gzwrite(g, lines[i], (unsigned)len) == (int)len && gzputc(g, '\n') == '\n';
    if (gzclose_w(g) != Z_OK) ok = false;
    if (!ok) return rc_err_set(err, RC_EXIT_RUNTIME, "error writing trace %s", path);
    return 0;
}

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int rc_trace_resolve(const char *name, const char *data_dir, char *path, size_t n, rc_err *err)
{
    RC_ASSERT(n > 0);
    path[0] = '\0';
    if (name == NULL || name[0] == '\0')
        return rc_err_set(err, RC_EXIT_USAGE, "empty trace name (use \"online\" for no trace)");
    if (!strcmp(name, "online")) return 0;
    if (is_file(name)) {
        if (strlen(name) >= n)
            return rc_err_set(err, RC_EXIT_USAGE, "trace path too long: %s", name);
        strcpy(path, name);
        return 0;
    }
    /* Search order (avail.h): explicit --data-dir, $RCSIM_DATA_DIR, then where
     * scripts/get-traces.sh puts them by default. */
    const char *env = getenv("RCSIM_DATA_DIR");
    const char *dirs[] = {data_dir, env, "./data/availability"};
    static const char *const forms[] = {"%s/%s", "%s/%s.txt.gz", "%s/schedules_%s.txt.gz",
                                        "%s/schedules_gen_%s.txt.gz"};
    char tried[600] = "";
    size_t used = 0;
    for (size_t d = 0; d < sizeof dirs / sizeof dirs[0]; d++) {
        if (dirs[d] == NULL || dirs[d][0] == '\0') continue;
        bool seen = false; /* `rcsim run` passes $RCSIM_DATA_DIR as data_dir too: try it once */
        for (size_t e = 0; e < d && !seen; e++) seen = dirs[e] != NULL && !strcmp(dirs[e], dirs[d]);
        if (seen) continue;
        for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
            char cand[4096];
            int len = snprintf(cand, sizeof cand, forms[f], dirs[d], name);
            if (len < 0 || (size_t)len >= sizeof cand) continue;
            if (is_file(cand)) {
                if ((size_t)len >= n)
                    return rc_err_set(err, RC_EXIT_USAGE, "trace path too long: %s", cand);
                memcpy(path, cand, (size_t)len + 1);
                return 0;
            }
        }
        if (used < sizeof tried) {
            int w = snprintf(tried + used, sizeof tried - used, "%s%s", used ? ", " : "", dirs[d]);
            if (w > 0) used += (size_t)w;
        }
    }
    return rc_err_set(err, RC_EXIT_USAGE,
                      "trace '%s' not found: tried %s{,.txt.gz}, schedules_%s.txt.gz and "
                      "schedules_gen_%s.txt.gz in %s (set --data-dir or RCSIM_DATA_DIR; the "
                      "paper's traces: scripts/get-traces.sh, data/README.md)",
                      name, name, name, name, used ? tried : "(no directories)");
}
