/* cmd_slurm: `rcsim slurm FILE` writes a ready-to-submit sbatch script that
 * runs `rcsim sweep FILE --out OUT` over a SLURM allocation, survives the
 * time limit (SIGTERM some minutes before it, results saved, exit code 3)
 * and requeues itself until the sweep is complete.
 *
 * The script is the template slurm/rcsim-sweep.sbatch.in, embedded at build
 * time (slurm/embed-template.cmake), with {{NAME}} placeholders filled in
 * here; a `#SBATCH` line whose placeholder is empty is left out.  Paths in
 * the script are absolute (binary, sweep file, results), so it can be
 * submitted from anywhere.  The sweep file is loaded and validated first: a
 * bad file exits 2 and writes nothing.  docs/slurm.md is the manual.
 *
 * Memory: everything allocated here is freed before returning.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/slurm_template.h"
#include "core/err.h"
#include "core/log.h"
#include "core/version.h"
#include "exp/job.h"
#include "exp/sweep.h"

#define SLURM_DEFAULT_LEAD_S 300L
#define SLURM_MAX_LEAD_S 65535L /* SLURM stores the signal time in 16 bits */
#define SLURM_DEFAULT_MAX_REQUEUES 50L
#define SLURM_TASKS_PER_NODE_DEFAULT 16L

static void usage(FILE *out)
{
    fprintf(out,
            "usage: rcsim slurm FILE [--out RESULTS.h5] [-o SCRIPT] [options]\n"
            "\n"
            "Writes an sbatch script (to stdout, or to SCRIPT with -o) that runs\n"
            "`rcsim sweep FILE --out RESULTS.h5` on all tasks of a SLURM allocation.\n"
            "Before the time limit SLURM sends SIGTERM; rcsim saves the finished jobs and\n"
            "exits 3, and the script requeues itself to resume into the same file.\n"
            "Submitting the script again also resumes.  The sweep file is validated first\n"
            "(exit 2 if it is bad); the script starts with its job count and cost estimate.\n"
            "\n"
            "options:\n"
            "      --out FILE          results file (default: SWEEPNAME.h5 in the current\n"
            "                          directory); its directory must exist\n"
            "  -o, --output SCRIPT     write the script here instead of stdout\n"
            "      --nodes N           #SBATCH --nodes (default 1)\n"
            "      --ntasks N          #SBATCH --ntasks: 1 master + N-1 workers (default:\n"
            "                          jobs+1, at most %ld per node)\n"
            "      --cpus-per-task N   #SBATCH --cpus-per-task (default 1)\n"
            "      --time T            #SBATCH --time, SLURM format: MIN, MIN:SEC, H:M:S,\n"
            "                          D-H, D-H:M, D-H:M:S (default: the partition's limit)\n"
            "      --partition P       #SBATCH --partition\n"
            "      --account A         #SBATCH --account\n"
            "      --job-name NAME     #SBATCH --job-name (default rcsim-SWEEPNAME)\n"
            "      --log FILE          the job's stdout+stderr, appended across requeues\n"
            "                          (default: RESULTSDIR/JOBNAME-%%j.log)\n"
            "      --launcher L        srun (default: srun --mpi=pmix) or mpirun\n"
            "      --requeue           requeue the job after a SIGTERM stop (default)\n"
            "      --no-requeue        exit 3 instead; submit again to resume\n"
            "      --max-requeues N    give up requeueing after N runs (default %ld)\n"
            "      --signal-lead S     SIGTERM this many seconds before the time limit\n"
            "                          (default %ld; more than rcsim's --grace)\n"
            "      --grace S           passed to rcsim sweep: how long the master waits for\n"
            "                          running jobs after SIGTERM (rcsim default 60)\n"
            "      --progress S        passed to rcsim sweep: seconds between progress lines\n"
            "  -s, --set KEY=VALUE     parameter override, validated here and passed to\n"
            "                          rcsim sweep (repeatable)\n"
            "      --data-dir DIR      availability trace directory, passed to rcsim sweep\n"
            "  -h, --help              this help\n"
            "\n"
            "exit codes: 0 script written; 1 cannot write it; 2 bad usage or sweep file.\n"
            "Manual: docs/slurm.md (submitting, resubmitting, the time limit, clusters).\n",
            SLURM_TASKS_PER_NODE_DEFAULT, SLURM_DEFAULT_MAX_REQUEUES, SLURM_DEFAULT_LEAD_S);
}

/* A growable string; the only allocation pattern here. */
typedef struct sbuf {
    char *p;
    size_t n, cap;
} sbuf;

static void sb_putn(sbuf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + n + 1) cap *= 2;
        b->p = rc_xrealloc(b->p, cap);
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
}

static void sb_puts(sbuf *b, const char *s) { sb_putn(b, s, strlen(s)); }

static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf *b, const char *fmt, ...)
{
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    RC_ASSERT(k >= 0 && (size_t)k < sizeof tmp);
    sb_putn(b, tmp, (size_t)k);
}

/* Shell-quotes `s` for bash: bare when it only has safe characters (so the
 * script stays readable), otherwise in single quotes with ' as '\''. */
static void sb_shquote(sbuf *b, const char *s)
{
    bool safe = s[0] != '\0';
    for (const char *c = s; *c && safe; c++)
        safe = strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-+=/.,:@%",
                      *c) != NULL;
    if (safe) {
        sb_puts(b, s);
        return;
    }
    sb_puts(b, "'");
    for (const char *c = s; *c; c++) {
        if (*c == '\'') sb_puts(b, "'\\''");
        else sb_putn(b, c, 1);
    }
    sb_puts(b, "'");
}

/* Placeholder table: name -> value. */
typedef struct subst {
    const char *name;
    char *value; /* owned */
} subst;

enum { SUBST_MAX = 24 };

typedef struct substs {
    subst v[SUBST_MAX];
    size_t n;
} substs;

static void subst_add(substs *s, const char *name, const char *value)
{
    RC_ASSERT(s->n < SUBST_MAX);
    s->v[s->n].name = name;
    s->v[s->n].value = rc_xstrdup(value);
    s->n++;
}

static void subst_addq(substs *s, const char *name, const char *value)
{
    sbuf b = {0};
    sb_shquote(&b, value);
    subst_add(s, name, b.p);
    free(b.p);
}

static void subst_free(substs *s)
{
    for (size_t i = 0; i < s->n; i++) free(s->v[i].value);
    s->n = 0;
}

static const char *subst_get(const substs *s, const char *name, size_t len)
{
    for (size_t i = 0; i < s->n; i++)
        if (strlen(s->v[i].name) == len && !strncmp(s->v[i].name, name, len)) return s->v[i].value;
    return NULL;
}

/* Expands the template line by line.  A "#SBATCH" line with an empty
 * placeholder is dropped (optional directives such as --partition).  An
 * unknown placeholder is a programming error: the template and this file are
 * maintained together. */
static void expand_template(const char *tpl, const substs *s, sbuf *out)
{
    const char *line = tpl;
    sbuf cur = {0};
    while (*line) {
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) + 1 : strlen(line);
        bool drop = false;
        cur.n = 0;
        sb_puts(&cur, "");
        const char *p = line, *end = line + len;
        while (p < end) {
            const char *open = strstr(p, "{{");
            if (open == NULL || open >= end) {
                sb_putn(&cur, p, (size_t)(end - p));
                break;
            }
            const char *close = strstr(open, "}}");
            RC_ASSERTF(close != NULL && close < end, "template: unterminated placeholder");
            sb_putn(&cur, p, (size_t)(open - p));
            const char *v = subst_get(s, open + 2, (size_t)(close - open - 2));
            RC_ASSERTF(v != NULL, "template: unknown placeholder %.*s", (int)(close - open + 2),
                       open);
            if (v[0] == '\0' && !strncmp(line, "#SBATCH", 7)) drop = true;
            sb_puts(&cur, v);
            p = close + 2;
        }
        if (!drop) sb_putn(out, cur.p, cur.n);
        line += len;
    }
    free(cur.p);
}

/* Parses a SLURM --time value into seconds (-1 for "infinite"/"unlimited").
 * Accepted like sbatch: MIN, MIN:SEC, H:M:S, D-H, D-H:M, D-H:M:S. */
static int parse_slurm_time(const char *text, long *seconds)
{
    if (!strcasecmp(text, "infinite") || !strcasecmp(text, "unlimited")) {
        *seconds = -1;
        return 0;
    }
    long f[4] = {0};
    int nf = 0;
    long days = -1;
    const char *p = text;
    const char *dash = strchr(text, '-');
    if (dash != NULL) {
        char *end;
        days = strtol(text, &end, 10);
        if (end != dash || end == text || days < 0) return -1;
        p = dash + 1;
    }
    for (;;) {
        char *end;
        if (!(*p >= '0' && *p <= '9')) return -1;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (errno != 0 || v < 0 || v > 1000000000L || nf == 3) return -1;
        f[nf++] = v;
        if (*end == '\0') break;
        if (*end != ':') return -1;
        p = end + 1;
    }
    long s;
    if (days >= 0) { /* D-H, D-H:M, D-H:M:S */
        s = days * 86400 + f[0] * 3600 + (nf > 1 ? f[1] * 60 : 0) + (nf > 2 ? f[2] : 0);
    } else if (nf == 1) { /* MIN */
        s = f[0] * 60;
    } else if (nf == 2) { /* MIN:SEC */
        s = f[0] * 60 + f[1];
    } else { /* H:M:S */
        s = f[0] * 3600 + f[1] * 60 + f[2];
    }
    if (s <= 0) return -1;
    *seconds = s;
    return 0;
}

static int parse_long(const char *opt, const char *text, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || v < lo || v > hi) {
        fprintf(stderr, "rcsim slurm: %s '%s' must be an integer in %ld..%ld\n", opt, text, lo, hi);
        return RC_EXIT_USAGE;
    }
    *out = v;
    return 0;
}

static int parse_secs(const char *opt, const char *text, double *out)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end != '\0' || !isfinite(v) || v < 0) {
        fprintf(stderr, "rcsim slurm: %s '%s' is not a number of seconds >= 0\n", opt, text);
        return RC_EXIT_USAGE;
    }
    *out = v;
    return 0;
}

/* Absolute, normalised path of an existing file or directory. */
static char *abs_existing(const char *what, const char *path)
{
    char *r = realpath(path, NULL);
    if (r == NULL) fprintf(stderr, "rcsim slurm: %s '%s': %s\n", what, path, strerror(errno));
    return r;
}

/* Absolute path of a file that may not exist yet; its directory must. */
static char *abs_new_file(const char *what, const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    if (base[0] == '\0' || !strcmp(base, ".") || !strcmp(base, "..")) {
        fprintf(stderr, "rcsim slurm: %s '%s' is not a file name\n", what, path);
        return NULL;
    }
    char *dir;
    if (slash == NULL) dir = rc_xstrdup(".");
    else if (slash == path) dir = rc_xstrdup("/");
    else {
        dir = rc_xstrdup(path);
        dir[slash - path] = '\0';
    }
    char *rdir = realpath(dir, NULL);
    if (rdir == NULL) {
        fprintf(stderr, "rcsim slurm: directory '%s' of %s '%s': %s\n", dir, what, path,
                strerror(errno));
        free(dir);
        return NULL;
    }
    free(dir);
    sbuf b = {0};
    sb_puts(&b, rdir);
    if (strcmp(rdir, "/") != 0) sb_puts(&b, "/");
    sb_puts(&b, base);
    free(rdir);
    return b.p;
}

static void human_time(double s, char *buf, size_t n)
{
    if (s < 60) snprintf(buf, n, "%.1fs", s);
    else if (s < 3600) snprintf(buf, n, "%dm%02ds", (int)(s / 60), (int)fmod(s, 60));
    else if (s < 86400) snprintf(buf, n, "%dh%02dm", (int)(s / 3600), (int)fmod(s / 60, 60));
    else snprintf(buf, n, "%dd%02dh", (int)(s / 86400), (int)fmod(s / 3600, 24));
}

/* Every character allowed in a #SBATCH value we write: they are not
 * shell-parsed, so whitespace and newlines would break the directive. */
static bool directive_safe(const char *opt, const char *v)
{
    for (const char *c = v; *c; c++) {
        if (*c == ' ' || *c == '\t' || *c == '\n' || *c == '\r') {
            fprintf(stderr, "rcsim slurm: %s '%s' must not contain whitespace (it goes into an "
                            "#SBATCH line)\n", opt, v);
            return false;
        }
    }
    return true;
}

typedef struct slurm_opts {
    const char *out, *script, *time, *partition, *account, *job_name, *log, *data_dir;
    const char *launcher;
    long nodes, ntasks, cpus, lead, max_requeues;
    double grace, progress;
    bool have_grace, have_progress, requeue;
    const char **sets;
    size_t n_sets;
} slurm_opts;

/* The `# ...` header of the script: provenance, size and cost of the sweep. */
static void build_header(sbuf *h, const rc_sweep *sw, const slurm_opts *o, int argc, char **argv,
                         const char *out_abs, const char *log_abs, long time_s)
{
    size_t n = rc_sweep_count(sw);
    double total = 0, longest = 0;
    for (size_t i = 0; i < n; i++) {
        double c = rc_job_cost_estimate(rc_sweep_job(sw, i));
        total += c;
        if (c > longest) longest = c;
    }
    long workers = o->ntasks > 1 ? o->ntasks - 1 : 1;
    double wall = total / (double)workers;
    if (wall < longest) wall = longest;
    char hex[17], tot[32], wl[32], stamp[32];
    rc_job_id_hex(rc_sweep_hash(sw), hex);
    human_time(total, tot, sizeof tot);
    human_time(wall, wl, sizeof wl);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);

    sb_printf(h, "# rcsim sweep job for SLURM, written by rcsim %s (%s) on %s with:\n#  ",
              RCSIM_VERSION, RCSIM_GIT_REVISION, stamp);
    sb_puts(h, " rcsim");
    for (int i = 0; i < argc; i++) {
        sb_puts(h, " ");
        sb_shquote(h, argv[i]);
    }
    sb_printf(h, "\n#\n# sweep:    %s (", rc_sweep_name(sw));
    sb_puts(h, rc_sweep_path(sw));
    sb_printf(h, "), hash %s\n", hex);
    sb_printf(h, "# jobs:     %zu\n", n);
    sb_printf(h, "# estimate: %.3g CPU-s (%s on one core), longest job %.3g s; about %s wall on "
                 "%ld worker%s\n#           (rough model, rc_job_cost_estimate; `rcsim plan` has "
                 "the table)\n",
              total, tot, longest, wl, workers, workers == 1 ? "" : "s");
    if (time_s > 0 && wall > (double)(time_s - o->lead)) {
        long runs = (long)ceil(wall / (double)(time_s - o->lead));
        sb_printf(h, "#           that is longer than --time minus the signal lead, so expect "
                     "about %ld run%s%s\n",
                  runs, runs == 1 ? "" : "s", o->requeue ? " (the job requeues itself)" : "");
    }
    sb_puts(h, "# results:  ");
    sb_puts(h, out_abs);
    sb_puts(h, " (+ .journal, the resume record)\n# log:      ");
    sb_puts(h, log_abs);
    sb_puts(h, "\n#\n# Submit with `sbatch THIS_FILE`; submit it again to resume after a failure "
               "or a cancel.");
}

static int generate(const slurm_opts *o, const char *file, int argc, char **argv)
{
    long time_s = 0;
    if (o->time != NULL && parse_slurm_time(o->time, &time_s) != 0) {
        fprintf(stderr, "rcsim slurm: --time '%s' is not a SLURM time (MIN, MIN:SEC, H:M:S, D-H, "
                        "D-H:M, D-H:M:S)\n", o->time);
        return RC_EXIT_USAGE;
    }
    if (time_s > 0 && o->lead >= time_s) {
        fprintf(stderr, "rcsim slurm: --signal-lead %ld s is not shorter than --time %s (%ld s)\n",
                o->lead, o->time, time_s);
        return RC_EXIT_USAGE;
    }
    double grace = o->have_grace ? o->grace : 60.0;
    if ((double)o->lead < grace + 10.0) {
        fprintf(stderr, "rcsim slurm: --signal-lead %ld s leaves no time to save after rcsim's "
                        "--grace %.0f s; use a lead of at least grace + 10 s\n", o->lead, grace);
        return RC_EXIT_USAGE;
    }
    if (strcmp(o->launcher, "srun") != 0 && strcmp(o->launcher, "mpirun") != 0) {
        fprintf(stderr, "rcsim slurm: --launcher '%s' must be srun or mpirun\n", o->launcher);
        return RC_EXIT_USAGE;
    }
    const char *dopts[][2] = {{"--partition", o->partition}, {"--account", o->account},
                              {"--job-name", o->job_name},   {"--time", o->time}};
    for (size_t i = 0; i < sizeof dopts / sizeof dopts[0]; i++)
        if (dopts[i][1] != NULL && !directive_safe(dopts[i][0], dopts[i][1])) return RC_EXIT_USAGE;

    rc_err err = {0};
    rc_sweep *sw = rc_sweep_load(file, o->sets, o->n_sets, &err);
    if (sw == NULL) {
        fprintf(stderr, "rcsim slurm: %s\n", err.msg);
        return err.code ? err.code : RC_EXIT_USAGE;
    }

    int rc = RC_EXIT_USAGE;
    char *exe = NULL, *sweep_abs = NULL, *out_abs = NULL, *log_abs = NULL, *data_abs = NULL;
    sbuf name = {0}, tmp = {0}, args = {0}, hdr = {0}, script = {0};
    substs s = {0};

    exe = realpath("/proc/self/exe", NULL);
    if (exe == NULL) {
        fprintf(stderr, "rcsim slurm: cannot find this program's path: %s\n", strerror(errno));
        rc = RC_EXIT_RUNTIME;
        goto done;
    }
    if ((sweep_abs = abs_existing("sweep file", file)) == NULL) goto done;
    if (o->out != NULL) out_abs = abs_new_file("--out", o->out);
    else {
        sb_printf(&tmp, "%s.h5", rc_sweep_name(sw));
        out_abs = abs_new_file("results file", tmp.p);
    }
    if (out_abs == NULL) goto done;
    if (o->data_dir != NULL && (data_abs = abs_existing("--data-dir", o->data_dir)) == NULL)
        goto done;
    if (o->job_name != NULL) sb_puts(&name, o->job_name);
    else sb_printf(&name, "rcsim-%s", rc_sweep_name(sw));
    if (!directive_safe("job name", name.p)) goto done;
    if (o->log != NULL) {
        if ((log_abs = abs_new_file("--log", o->log)) == NULL) goto done;
    } else {
        tmp.n = 0;
        sb_puts(&tmp, out_abs);
        *strrchr(tmp.p, '/') = '\0';
        tmp.n = strlen(tmp.p);
        sb_printf(&tmp, "/%s-%%j.log", name.p);
        log_abs = rc_xstrdup(tmp.p);
    }
    if (!directive_safe("log path", log_abs)) goto done;

    slurm_opts eff = *o;
    if (eff.ntasks == 0) {
        long cap = SLURM_TASKS_PER_NODE_DEFAULT * eff.nodes;
        long want = (long)rc_sweep_count(sw) + 1;
        eff.ntasks = want < cap ? want : cap;
    }
    if (eff.ntasks < eff.nodes) {
        fprintf(stderr, "rcsim slurm: --ntasks %ld is less than --nodes %ld\n", eff.ntasks,
                eff.nodes);
        goto done;
    }

    /* The rcsim sweep command line (a bash array body). */
    sb_puts(&args, "sweep \"$SWEEP\" --out \"$OUT\"");
    for (size_t i = 0; i < o->n_sets; i++) {
        sb_puts(&args, " --set ");
        sb_shquote(&args, o->sets[i]);
    }
    if (data_abs != NULL) {
        sb_puts(&args, " --data-dir ");
        sb_shquote(&args, data_abs);
    }
    if (o->have_grace) sb_printf(&args, " --grace %g", o->grace);
    if (o->have_progress) sb_printf(&args, " --progress %g", o->progress);

    build_header(&hdr, sw, &eff, argc, argv, out_abs, log_abs, time_s);

    char num[32];
    subst_add(&s, "HEADER", hdr.p);
    subst_add(&s, "JOB_NAME", name.p);
    snprintf(num, sizeof num, "%ld", eff.nodes);
    subst_add(&s, "NODES", num);
    snprintf(num, sizeof num, "%ld", eff.ntasks);
    subst_add(&s, "NTASKS", num);
    snprintf(num, sizeof num, "%ld", eff.cpus);
    subst_add(&s, "CPUS_PER_TASK", num);
    subst_add(&s, "TIME", o->time ? o->time : "");
    subst_add(&s, "PARTITION", o->partition ? o->partition : "");
    subst_add(&s, "ACCOUNT", o->account ? o->account : "");
    subst_add(&s, "LOG", log_abs);
    snprintf(num, sizeof num, "%ld", o->lead);
    subst_add(&s, "SIGNAL_LEAD", num);
    subst_add(&s, "REQUEUE_FLAG", o->requeue ? "--requeue" : "--no-requeue");
    subst_addq(&s, "RCSIM", exe);
    subst_addq(&s, "SWEEP", sweep_abs);
    subst_addq(&s, "OUT", out_abs);
    subst_add(&s, "LAUNCHER", o->launcher);
    subst_add(&s, "REQUEUE", o->requeue ? "1" : "0");
    snprintf(num, sizeof num, "%ld", o->max_requeues);
    subst_add(&s, "MAX_REQUEUES", num);
    subst_add(&s, "SWEEP_ARGS", args.p);
    expand_template(slurm_template, &s, &script);

    if (o->script == NULL || !strcmp(o->script, "-")) {
        fputs(script.p, stdout);
        rc = fflush(stdout) == 0 ? RC_EXIT_OK : RC_EXIT_RUNTIME;
        if (rc != 0) fprintf(stderr, "rcsim slurm: writing the script to stdout failed\n");
    } else {
        FILE *f = fopen(o->script, "w");
        if (f == NULL) {
            fprintf(stderr, "rcsim slurm: cannot write '%s': %s\n", o->script, strerror(errno));
            rc = RC_EXIT_RUNTIME;
            goto done;
        }
        bool ok = fwrite(script.p, 1, script.n, f) == script.n;
        ok = (fclose(f) == 0) && ok;
        if (!ok) {
            fprintf(stderr, "rcsim slurm: writing '%s' failed: %s\n", o->script, strerror(errno));
            rc = RC_EXIT_RUNTIME;
            goto done;
        }
        chmod(o->script, 0755); /* convenience only: sbatch does not need it */
        fprintf(stderr, "rcsim slurm: wrote %s (%zu jobs, %ld tasks); submit with: sbatch %s\n",
                o->script, rc_sweep_count(sw), eff.ntasks, o->script);
        rc = RC_EXIT_OK;
    }

done:
    subst_free(&s);
    free(script.p);
    free(hdr.p);
    free(args.p);
    free(tmp.p);
    free(name.p);
    free(exe);
    free(sweep_abs);
    free(out_abs);
    free(log_abs);
    free(data_abs);
    rc_sweep_free(sw);
    return rc;
}

int rc_cmd_slurm(int argc, char **argv)
{
    enum {
        OPT_OUT = 256, OPT_NODES, OPT_NTASKS, OPT_CPUS, OPT_TIME, OPT_PARTITION, OPT_ACCOUNT,
        OPT_JOB_NAME, OPT_LOG, OPT_LAUNCHER, OPT_REQUEUE, OPT_NO_REQUEUE, OPT_MAX_REQUEUES,
        OPT_LEAD, OPT_GRACE, OPT_PROGRESS, OPT_DATA_DIR
    };
    static const struct option longopts[] = {
        {"out", required_argument, NULL, OPT_OUT},
        {"output", required_argument, NULL, 'o'},
        {"nodes", required_argument, NULL, OPT_NODES},
        {"ntasks", required_argument, NULL, OPT_NTASKS},
        {"cpus-per-task", required_argument, NULL, OPT_CPUS},
        {"time", required_argument, NULL, OPT_TIME},
        {"partition", required_argument, NULL, OPT_PARTITION},
        {"account", required_argument, NULL, OPT_ACCOUNT},
        {"job-name", required_argument, NULL, OPT_JOB_NAME},
        {"log", required_argument, NULL, OPT_LOG},
        {"launcher", required_argument, NULL, OPT_LAUNCHER},
        {"requeue", no_argument, NULL, OPT_REQUEUE},
        {"no-requeue", no_argument, NULL, OPT_NO_REQUEUE},
        {"max-requeues", required_argument, NULL, OPT_MAX_REQUEUES},
        {"signal-lead", required_argument, NULL, OPT_LEAD},
        {"grace", required_argument, NULL, OPT_GRACE},
        {"progress", required_argument, NULL, OPT_PROGRESS},
        {"set", required_argument, NULL, 's'},
        {"data-dir", required_argument, NULL, OPT_DATA_DIR},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    slurm_opts o = {.launcher = "srun", .nodes = 1, .cpus = 1, .lead = SLURM_DEFAULT_LEAD_S,
                    .max_requeues = SLURM_DEFAULT_MAX_REQUEUES, .requeue = true};
    o.sets = rc_xcalloc((size_t)argc + 1, sizeof *o.sets);
    int rc = 0, c;
    opterr = 0;
    optind = 0; /* GNU: full re-initialisation, so the command can run twice in one process */
    while (rc == 0 && (c = getopt_long(argc, argv, "o:s:h", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_OUT: o.out = optarg; break;
        case 'o': o.script = optarg; break;
        case OPT_NODES: rc = parse_long("--nodes", optarg, 1, 100000, &o.nodes); break;
        case OPT_NTASKS: rc = parse_long("--ntasks", optarg, 1, 10000000, &o.ntasks); break;
        case OPT_CPUS: rc = parse_long("--cpus-per-task", optarg, 1, 100000, &o.cpus); break;
        case OPT_TIME: o.time = optarg; break;
        case OPT_PARTITION: o.partition = optarg; break;
        case OPT_ACCOUNT: o.account = optarg; break;
        case OPT_JOB_NAME: o.job_name = optarg; break;
        case OPT_LOG: o.log = optarg; break;
        case OPT_LAUNCHER: o.launcher = optarg; break;
        case OPT_REQUEUE: o.requeue = true; break;
        case OPT_NO_REQUEUE: o.requeue = false; break;
        case OPT_MAX_REQUEUES:
            rc = parse_long("--max-requeues", optarg, 0, 100000, &o.max_requeues);
            break;
        case OPT_LEAD: rc = parse_long("--signal-lead", optarg, 1, SLURM_MAX_LEAD_S, &o.lead); break;
        case OPT_GRACE:
            rc = parse_secs("--grace", optarg, &o.grace);
            o.have_grace = true;
            break;
        case OPT_PROGRESS:
            rc = parse_secs("--progress", optarg, &o.progress);
            o.have_progress = true;
            break;
        case 's':
            if (strchr(optarg, '=') == NULL) {
                fprintf(stderr, "rcsim slurm: --set wants KEY=VALUE, got '%s'\n", optarg);
                rc = RC_EXIT_USAGE;
            }
            o.sets[o.n_sets++] = optarg;
            break;
        case OPT_DATA_DIR: o.data_dir = optarg; break;
        case 'h':
            usage(stdout);
            free(o.sets);
            return RC_EXIT_OK;
        default:
            fprintf(stderr, "rcsim slurm: unknown or incomplete option '%s' (see --help)\n",
                    argv[optind - 1]);
            rc = RC_EXIT_USAGE;
        }
    }
    if (rc == 0 && optind != argc - 1) {
        fprintf(stderr, "rcsim slurm: expected exactly one sweep FILE (see --help)\n");
        rc = RC_EXIT_USAGE;
    }
    if (rc == 0) rc = generate(&o, argv[optind], argc, argv);
    free(o.sets);
    return rc;
}
