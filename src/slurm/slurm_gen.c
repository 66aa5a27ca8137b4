/* slurm_gen: `rcsim slurm` scripts from the embedded templates (slurm/slurm_gen.h).
 *
 * The templates are slurm/rcsim-sweep.sbatch.in (the MPI job, and each task
 * of an array job) and slurm/rcsim-merge.sbatch.in (the merge job after an
 * array), embedded by slurm/embed-template.cmake; {{NAME}} placeholders are
 * filled in here.  docs/slurm.md is the manual; slurm/README.md lists the
 * placeholders.
 */
#include "slurm/slurm_gen.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/err.h"
#include "core/log.h"
#include "core/shquote.h"
#include "core/version.h"
#include "exp/cost.h"
#include "exp/job.h"
#include "exp/sweep.h"
#include "exp/until.h"
#include "slurm/merge_template.h"
#include "slurm/partition.h"
#include "slurm/sweep_template.h"

void rc_slurm_opts_init(rc_slurm_opts *o)
{
    memset(o, 0, sizeof *o);
    o->launcher = "srun";
    o->nodes = 1;
    o->cpus = 1;
    o->lead = RC_SLURM_DEFAULT_LEAD_S;
    o->max_requeues = RC_SLURM_DEFAULT_MAX_REQUEUES;
    o->requeue = true;
    o->check_partition = true;
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

/* Shell-quotes `s` for bash (core/shquote.h). */
static void sb_shquote(sbuf *b, const char *s)
{
    char *q = rc_xcalloc(RC_SHELL_QUOTE_ROOM(strlen(s)), 1);
    sb_putn(b, q, rc_shell_quote(q, s));
    free(q);
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
 * placeholder is dropped (optional directives such as --partition), and so
 * is a line that is nothing but a placeholder with an empty value (optional
 * blocks such as the array set-up).  An unknown placeholder is a programming
 * error: the templates and this file are maintained together. */
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
            if (v[0] == '\0' && open == line && (close[2] == '\n' || close[2] == '\0'))
                drop = true;
            sb_puts(&cur, v);
            p = close + 2;
        }
        if (!drop) sb_putn(out, cur.p, cur.n);
        line += len;
    }
    free(cur.p);
}

/* Absolute, normalised path of an existing file or directory. */
static char *abs_existing(const char *what, const char *path, rc_err *err)
{
    char *r = realpath(path, NULL);
    if (r == NULL) rc_err_set(err, RC_EXIT_USAGE, "%s '%s': %s", what, path, strerror(errno));
    return r;
}

/* Absolute path of a file that may not exist yet; its directory must. */
static char *abs_new_file(const char *what, const char *path, rc_err *err)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    if (base[0] == '\0' || !strcmp(base, ".") || !strcmp(base, "..")) {
        rc_err_set(err, RC_EXIT_USAGE, "%s '%s' is not a file name", what, path);
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
        rc_err_set(err, RC_EXIT_USAGE, "directory '%s' of %s '%s': %s", dir, what, path,
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
static bool directive_safe(const char *opt, const char *v, rc_err *err)
{
    for (const char *c = v; *c; c++) {
        if (*c == ' ' || *c == '\t' || *c == '\n' || *c == '\r') {
            rc_err_set(err, RC_EXIT_USAGE,
                       "%s '%s' must not contain whitespace (it goes into an #SBATCH line)", opt, v);
            return false;
        }
    }
    return true;
}


/* What the partition offers, as far as SLURM could be asked. */
typedef struct part_info {
    bool known;             /* p is filled in */
    rc_slurm_partition p;
    char why[512];          /* why it is not known */
    long max_array;         /* MaxArraySize, or -1 */
} part_info;

/* Tasks of the given CPUs that fit on `nodes` nodes of the partition (0 if unknown). */
static long tasks_that_fit(const part_info *pi, long nodes, long cpus)
{
    if (!pi->known || pi->p.cpus_per_node <= 0) return 0;
    long per_node = pi->p.cpus_per_node;
    if (pi->p.max_cpus_per_node > 0 && pi->p.max_cpus_per_node < per_node)
        per_node = pi->p.max_cpus_per_node;
    return nodes * (per_node / cpus);
}

/* The `# ...` header of a script: provenance, size and cost of the sweep. */
/* The headers' command line (" rcsim ARGS", shell-quoted) and the start of their sweep
 * line, "# sweep:    NAME (PATH"; the caller closes it. */
static void put_command_and_sweep(sbuf *h, const rc_slurm_opts *o, const rc_sweep *sw)
{
    sb_puts(h, " rcsim");
    for (int i = 0; i < o->argc; i++) {
        sb_puts(h, " ");
        sb_shquote(h, o->argv[i]);
    }
    sb_printf(h, "\n#\n# sweep:    %s (", rc_sweep_name(sw));
    sb_puts(h, rc_sweep_path(sw));
}

static void build_header(sbuf *h, const rc_sweep *sw, const rc_slurm_opts *o, long ntasks,
                         const char *out_abs, const char *log_abs, long time_s,
                         const part_info *pi, const char *merge_script, bool provisional)
{
    size_t n = rc_sweep_count(sw);
    double total = 0, longest = 0;
    for (size_t i = 0; i < n; i++) {
        double c = rc_job_cost_estimate(rc_sweep_job(sw, i));
        total += c;
        if (c > longest) longest = c;
    }
    long workers = o->array > 0 ? o->array : ntasks > 1 ? ntasks - 1 : 1;
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

    sb_printf(h, "# rcsim sweep %s for SLURM, written by rcsim %s (%s) on %s with:\n#  ",
              o->array > 0 ? "array job" : "job", RCSIM_VERSION, RCSIM_GIT_REVISION, stamp);
    put_command_and_sweep(h, o, sw);
    sb_printf(h, "), hash %s%s\n", hex,
              provisional ? " (provisional: a trace was not found when this was written)" : "");
    sb_printf(h, "# jobs:     %zu\n", n);
    if (o->array > 0)
        sb_printf(h, "# estimate: %.3g CPU-s (%s on one core), longest job %.3g s; about %s wall "
                     "per array task\n#           if the %ld shards are even (rough model, "
                     "rc_job_cost_estimate; `rcsim plan` has the table)\n",
                  total, tot, longest, wl, o->array);
    else
        sb_printf(h, "# estimate: %.3g CPU-s (%s on one core), longest job %.3g s; about %s wall "
                     "on %ld worker%s\n#           (rough model, rc_job_cost_estimate; `rcsim "
                     "plan` has the table)\n",
                  total, tot, longest, wl, workers, workers == 1 ? "" : "s");
    if (time_s > 0 && wall > (double)(time_s - o->lead)) {
        long runs = (long)ceil(wall / (double)(time_s - o->lead));
        sb_printf(h, "#           that is longer than --time minus the signal lead, so expect "
                     "about %ld run%s%s\n",
                  runs, runs == 1 ? "" : "s", o->requeue ? " (the job requeues itself)" : "");
    }
    if (!o->check_partition) {
        sb_puts(h, "# partition: not checked (--no-partition-check)\n");
    } else if (pi->known) {
        const rc_slurm_partition *p = &pi->p;
        sb_printf(h, "# partition: %s%s, %s: %ld node%s", p->name, p->is_default ? " (default)" : "",
                  p->state, p->total_nodes, p->total_nodes == 1 ? "" : "s");
        if (p->cpus_per_node > 0)
            sb_printf(h, " x %s%ld CPUs", p->cpus_vary ? "at least " : "", p->cpus_per_node);
        sb_printf(h, ", %ld CPUs in all, MaxTime %s (asked scontrol/sinfo)\n", p->total_cpus,
                  p->max_time);
    } else {
        sb_puts(h, "# partition: not checked (");
        sb_puts(h, pi->why);
        sb_puts(h, ")\n");
    }
    if (o->array > 0) {
        sb_puts(h, "# parts:    ");
        sb_puts(h, out_abs);
        sb_printf(h, "/part-I.h5, I = 0..%ld (+ .journal each, the resume records)\n",
                  o->array - 1);
    } else {
        sb_puts(h, "# results:  ");
        sb_puts(h, out_abs);
        sb_puts(h, " (+ .journal, the resume record)\n");
    }
    sb_puts(h, "# log:      ");
    sb_puts(h, log_abs);
    if (o->array > 0) {
        sb_puts(h, "\n#\n# Submit this array job and the merge job after it:\n"
                   "#   jid=$(sbatch --parsable THIS_FILE) && sbatch --dependency=afterok:${jid%%;*} ");
        sb_shquote(h, merge_script);
        sb_puts(h, "\n# Submitting THIS_FILE again resumes the shards that did not finish.");
    } else {
        sb_puts(h, "\n#\n# Submit with `sbatch THIS_FILE`; submit it again to resume after a failure "
                   "or a cancel.");
    }
}

/* The header of the merge script. */
static void build_merge_header(sbuf *h, const rc_sweep *sw, const rc_slurm_opts *o,
                               bool provisional, const char *out_abs, const char *parts_abs, const char *log_abs,
                               const char *array_script)
{
    char hex[17];
    rc_job_id_hex(rc_sweep_hash(sw), hex);
    sb_printf(h, "# rcsim merge job for SLURM (after the array job in ");
    sb_puts(h, array_script);
    sb_printf(h, "),\n# written by rcsim %s (%s) with:\n#  ", RCSIM_VERSION, RCSIM_GIT_REVISION);
    put_command_and_sweep(h, o, sw);
    sb_printf(h, "), hash %s%s, %zu jobs in %ld shards\n# parts:    ", hex,
              provisional ? " (provisional: a trace was not found when this was written)" : "",
              rc_sweep_count(sw), o->array);
    sb_puts(h, parts_abs);
    sb_printf(h, "/part-I.h5, I = 0..%ld\n# results:  ", o->array - 1);
    sb_puts(h, out_abs);
    sb_puts(h, "\n# log:      ");
    sb_puts(h, log_abs);
    sb_puts(h, "\n#\n# Submit after the array job:  sbatch --dependency=afterok:ARRAY_JOB_ID THIS_FILE");
}

/* Asks SLURM about the partition, sizes --ntasks and refuses what cannot
 * start.  `ntasks` is in/out (0 = choose).  Returns 0 or an exit code. */
static int fit_partition(const rc_slurm_opts *o, const rc_sweep *sw, long time_s, part_info *pi,
                         long *ntasks, rc_err *err)
{
    pi->known = false;
    pi->max_array = -1;
    if (o->check_partition) {
        rc_slurm_part_status st = rc_slurm_partition_query(o->partition, &pi->p, pi->why,
                                                           sizeof pi->why);
        if (st == RC_SLURM_PART_NO_SUCH)
            return rc_err_set(err, RC_EXIT_USAGE, "--partition: %s; use --no-partition-check to "
                                                  "write the script anyway", pi->why);
        pi->known = st == RC_SLURM_PART_OK;
        if (o->array > 0) pi->max_array = rc_slurm_max_array_size();
    }
    const char *hint = " (or --no-partition-check to write the script anyway)";
    long jobs = (long)rc_sweep_count(sw);
    if (o->array > 0) {
        *ntasks = 1;
    } else if (*ntasks == 0) {
        long cap = RC_SLURM_TASKS_PER_NODE_DEFAULT * o->nodes;
        long fit = tasks_that_fit(pi, o->nodes, o->cpus);
        if (fit > 0) cap = fit;
        long want = jobs + 1;
        *ntasks = want < cap ? want : cap;
        if (*ntasks < 1) *ntasks = 1;
        if (o->check_partition && !pi->known)
            fprintf(stderr, "rcsim slurm: note: could not ask SLURM about the partition (%s); "
                            "--ntasks %ld is jobs + 1 capped at %ld per node: check that the "
                            "partition has that many CPUs, or give --ntasks\n",
                    pi->why, *ntasks, RC_SLURM_TASKS_PER_NODE_DEFAULT);
    }
    if (*ntasks < o->nodes)
        return rc_err_set(err, RC_EXIT_USAGE, "--ntasks %ld is less than --nodes %ld", *ntasks,
                          o->nodes);
    if (!pi->known) return 0;

    const rc_slurm_partition *p = &pi->p;
    char pn[200];
    snprintf(pn, sizeof pn, "partition '%s'", p->name);
    long need = *ntasks * o->cpus;
    if (p->cpus_per_node > 0 && o->cpus > p->cpus_per_node && !p->cpus_vary)
        return rc_err_set(err, RC_EXIT_USAGE, "--cpus-per-task %ld, but the nodes of %s have %ld "
                                              "CPUs%s", o->cpus, pn, p->cpus_per_node, hint);
    /* SLURM does not reject these at submission: the job waits forever
     * (Reason=PartitionConfig / PartitionNodeLimit / PartitionTimeLimit). */
    if (p->total_cpus > 0 && need > p->total_cpus)
        return rc_err_set(err, RC_EXIT_USAGE,
                          "--ntasks %ld x --cpus-per-task %ld = %ld CPUs, but %s has %ld CPUs in "
                          "all (%ld node%s): the job would stay pending forever "
                          "(Reason=PartitionConfig); use --ntasks %ld or fewer%s",
                          *ntasks, o->cpus, need, pn, p->total_cpus, p->total_nodes,
                          p->total_nodes == 1 ? "" : "s", p->total_cpus / o->cpus, hint);
    if (p->total_nodes > 0 && o->nodes > p->total_nodes)
        return rc_err_set(err, RC_EXIT_USAGE, "--nodes %ld, but %s has %ld node%s%s", o->nodes,
                          pn, p->total_nodes, p->total_nodes == 1 ? "" : "s", hint);
    if (p->max_nodes > 0 && o->nodes > p->max_nodes)
        return rc_err_set(err, RC_EXIT_USAGE, "--nodes %ld, but %s allows at most %ld per job "
                                              "(MaxNodes)%s", o->nodes, pn, p->max_nodes, hint);
    long fit = tasks_that_fit(pi, o->nodes, o->cpus);
    if (fit > 0 && *ntasks > fit) {
        if (p->cpus_vary)
            fprintf(stderr, "rcsim slurm: warning: %ld tasks of %ld CPU(s) may not fit on %ld node%s "
                            "of %s (its smallest nodes have %ld CPUs); the job waits until "
                            "nodes that large are free\n",
                    *ntasks, o->cpus, o->nodes, o->nodes == 1 ? "" : "s", pn, p->cpus_per_node);
        else
            return rc_err_set(err, RC_EXIT_USAGE,
                              "--ntasks %ld x --cpus-per-task %ld = %ld CPUs do not fit on "
                              "--nodes %ld of %s (%ld CPUs each): use --ntasks %ld or fewer, or "
                              "more --nodes%s",
                              *ntasks, o->cpus, need, o->nodes, pn, p->cpus_per_node, fit, hint);
    }
    if (time_s > 0 && p->max_time_s > 0 && time_s > p->max_time_s)
        return rc_err_set(err, RC_EXIT_USAGE, "--time %s is longer than the MaxTime %s of %s: "
                                              "the job would stay pending forever "
                                              "(Reason=PartitionTimeLimit)%s",
                          o->time, p->max_time, pn, hint);
    if (o->array > 0 && pi->max_array > 0 && o->array > pi->max_array)
        return rc_err_set(err, RC_EXIT_USAGE, "--array %ld: this cluster's MaxArraySize is %ld "
                                              "(array indices 0..%ld)%s",
                          o->array, pi->max_array, pi->max_array - 1, hint);
    if (strcasecmp(p->state, "UP") != 0)
        fprintf(stderr, "rcsim slurm: warning: %s is %s: jobs submitted to it wait until it is "
                        "UP\n", pn, p->state);
    return 0;
}

/* Writes `text` to `path` (or stdout for NULL / "-"), executable. */
static int write_script(const char *path, const sbuf *text, rc_err *err)
{
    if (path == NULL || !strcmp(path, "-")) {
        fputs(text->p, stdout);
        if (fflush(stdout) != 0)
            return rc_err_set(err, RC_EXIT_RUNTIME, "writing the script to stdout failed");
        return 0;
    }
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return rc_err_set(err, RC_EXIT_RUNTIME, "cannot write '%s': %s", path, strerror(errno));
    bool ok = fwrite(text->p, 1, text->n, f) == text->n;
    ok = (fclose(f) == 0) && ok;
    if (!ok) return rc_err_set(err, RC_EXIT_RUNTIME, "writing '%s' failed: %s", path, strerror(errno));
    chmod(path, 0755); /* convenience only: sbatch does not need it */
    return 0;
}

/* The merge script's path beside the array script: X.sbatch -> X-merge.sbatch, else X-merge. */
static char *merge_script_path(const char *script)
{
    sbuf b = {0};
    size_t n = strlen(script);
    const char *ext = ".sbatch";
    size_t el = strlen(ext);
    if (n > el && !strcmp(script + n - el, ext)) {
        sb_putn(&b, script, n - el);
        sb_puts(&b, "-merge.sbatch");
    } else {
        sb_puts(&b, script);
        sb_puts(&b, "-merge");
    }
    return b.p;
}

int rc_slurm_generate(const rc_slurm_opts *o, const char *file, rc_err *err)
{
    long time_s = 0;
    if (o->time != NULL && rc_slurm_parse_time(o->time, &time_s) != 0)
        return rc_err_set(err, RC_EXIT_USAGE, "--time '%s' is not a SLURM time (MIN, MIN:SEC, "
                                              "H:M:S, D-H, D-H:M, D-H:M:S)", o->time);
    if (time_s > 0 && o->lead >= time_s)
        return rc_err_set(err, RC_EXIT_USAGE,
                          "--signal-lead %ld s is not shorter than --time %s (%ld s)", o->lead,
                          o->time, time_s);
    double grace = o->have_grace ? o->grace : 60.0;
    if ((double)o->lead < grace + 10.0)
        return rc_err_set(err, RC_EXIT_USAGE,
                          "--signal-lead %ld s leaves no time to save after rcsim's --grace %.0f "
                          "s; use a lead of at least grace + 10 s", o->lead, grace);
    if (strcmp(o->launcher, "srun") != 0 && strcmp(o->launcher, "mpirun") != 0)
        return rc_err_set(err, RC_EXIT_USAGE, "--launcher '%s' must be srun or mpirun",
                          o->launcher);
    const char *dopts[][2] = {{"--partition", o->partition}, {"--account", o->account},
                              {"--job-name", o->job_name},   {"--time", o->time}};
    for (size_t i = 0; i < sizeof dopts / sizeof dopts[0]; i++)
        if (dopts[i][1] != NULL && !directive_safe(dopts[i][0], dopts[i][1], err))
            return RC_EXIT_USAGE;
    if (o->array > 0) {
        if (o->script == NULL || !strcmp(o->script, "-"))
            return rc_err_set(err, RC_EXIT_USAGE, "--array writes two scripts (the array job and "
                                                  "the merge job): give -o SCRIPT");
        if (o->ntasks > 1 || o->nodes > 1)
            return rc_err_set(err, RC_EXIT_USAGE, "--array: every array task is one rank on one "
                                                  "node; --ntasks and --nodes do not apply");
    }

    rc_sweep *sw = rc_sweep_load_until(file, o->sets, o->n_sets, o->until, err);
    if (sw == NULL) {
        if (err->code == 0) err->code = RC_EXIT_USAGE;
        return err->code;
    }

    int rc = RC_EXIT_USAGE;
    char *exe = NULL, *sweep_abs = NULL, *out_abs = NULL, *log_abs = NULL, *data_abs = NULL;
    char *merge_path = NULL, *merge_abs = NULL, *script_abs = NULL, *merge_log = NULL, *parts_abs = NULL;
    sbuf name = {0}, tmp = {0}, args = {0}, hdr = {0}, script = {0}, mhdr = {0}, mscript = {0};
    sbuf setup = {0}, mname = {0}, outv = {0};
    substs s = {0}, ms = {0};
    part_info pi;
    memset(&pi, 0, sizeof pi);
    bool provisional = false;

    if (o->array > 0 && rc_sweep_until(sw) != NULL) {
        /* Each array task is a shard, and a shard cannot tell whether a
         * configuration needs more seeds: the others run its other seeds. */
        rc_err_set(err, RC_EXIT_USAGE, "%s: seeds: until cannot run as an array job (--array "
                   "%ld): a shard does not see a configuration's other seeds; leave out --array "
                   "(one allocation runs the passes)", file, o->array);
        goto done;
    }
    if (o->array > 0 && (size_t)o->array > rc_sweep_count(sw)) {
        rc_err_set(err, RC_EXIT_USAGE, "--array %ld is more than the sweep's %zu jobs: some shards "
                                       "would be empty", o->array, rc_sweep_count(sw));
        goto done;
    }
    exe = realpath("/proc/self/exe", NULL);
    if (exe == NULL) {
        rc = rc_err_set(err, RC_EXIT_RUNTIME, "cannot find this program's path: %s",
                        strerror(errno));
        goto done;
    }
    if ((sweep_abs = abs_existing("sweep file", file, err)) == NULL) goto done;
    if (o->out != NULL) out_abs = abs_new_file("--out", o->out, err);
    else {
        sb_printf(&tmp, "%s.h5", rc_sweep_name(sw));
        out_abs = abs_new_file("results file", tmp.p, err);
    }
    if (out_abs == NULL) goto done;
    if (o->data_dir != NULL && (data_abs = abs_existing("--data-dir", o->data_dir, err)) == NULL)
        goto done;
    /* Job ids and the sweep hash name each trace by its content (exp/sweep.h
     * rc_sweep_bind), as `rcsim plan`, the sweep and its results file do; bound
     * with the --data-dir the script passes on.  Traces this host cannot read
     * leave the hash provisional, and the header says so. */
    rc_err bind_err = {0};
    if (rc_sweep_bind(sw, data_abs, &bind_err) != 0) {
        fprintf(stderr,
                "rcsim slurm: warning: %s\nrcsim slurm: warning: the sweep hash in the script "
                "header is provisional (it includes each trace's checksum once the trace is "
                "found); the sweep itself refuses to start without its traces\n",
                bind_err.msg);
        provisional = true;
    }
    if (o->job_name != NULL) sb_puts(&name, o->job_name);
    else sb_printf(&name, "rcsim-%s", rc_sweep_name(sw));
    if (!directive_safe("job name", name.p, err)) goto done;
    if (o->log != NULL) {
        if ((log_abs = abs_new_file("--log", o->log, err)) == NULL) goto done;
    } else {
        tmp.n = 0;
        sb_puts(&tmp, out_abs);
        *strrchr(tmp.p, '/') = '\0';
        tmp.n = strlen(tmp.p);
        sb_printf(&tmp, o->array > 0 ? "/%s-%%A_%%a.log" : "/%s-%%j.log", name.p);
        log_abs = rc_xstrdup(tmp.p);
    }
    if (!directive_safe("log path", log_abs, err)) goto done;
    if (o->array > 0) {
        /* Part files go into OUT's name without .h5, plus ".parts/". */
        tmp.n = 0;
        sb_puts(&tmp, out_abs);
        if (tmp.n > 3 && !strcmp(tmp.p + tmp.n - 3, ".h5")) tmp.p[tmp.n -= 3] = '\0';
        sb_puts(&tmp, ".parts");
        parts_abs = rc_xstrdup(tmp.p);
        merge_path = merge_script_path(o->script);
        sb_printf(&mname, "%s-merge", name.p);
        tmp.n = 0;
        sb_puts(&tmp, out_abs);
        *strrchr(tmp.p, '/') = '\0';
        tmp.n = strlen(tmp.p);
        sb_printf(&tmp, "/%s-%%j.log", mname.p);
        merge_log = rc_xstrdup(tmp.p);
        if (!directive_safe("merge log path", merge_log, err)) goto done;
    }

    long ntasks = o->ntasks;
    int frc = fit_partition(o, sw, time_s, &pi, &ntasks, err);
    if (frc != 0) {
        rc = frc;
        goto done;
    }

    /* The rcsim sweep command line (a bash array body). */
    if (o->array > 0) sb_puts(&args, "sweep \"$SWEEP\" --shard \"$TASK/$NSHARDS\" --out \"$OUT\"");
    else sb_puts(&args, "sweep \"$SWEEP\" --out \"$OUT\"");
    for (size_t i = 0; i < o->n_sets; i++) {
        sb_puts(&args, " --set ");
        sb_shquote(&args, o->sets[i]);
    }
    if (o->until != NULL) {
        sb_puts(&args, " --until ");
        sb_shquote(&args, o->until->rule);
        sb_printf(&args, " --min-seeds %u --max-seeds %u --seed-step %u", o->until->min,
                  o->until->max, o->until->step);
    }
    if (data_abs != NULL) {
        sb_puts(&args, " --data-dir ");
        sb_shquote(&args, data_abs);
    }
    if (o->have_grace) sb_printf(&args, " --grace %g", o->grace);
    if (o->have_progress) sb_printf(&args, " --progress %g", o->progress);

    if (o->array > 0 && ((merge_abs = abs_new_file("merge script", merge_path, err)) == NULL ||
                         (script_abs = abs_new_file("-o", o->script, err)) == NULL))
        goto done;
    build_header(&hdr, sw, o, ntasks, o->array > 0 ? parts_abs : out_abs, log_abs, time_s, &pi,
                 merge_abs, provisional);

    if (o->array > 0) {
        sb_puts(&setup, "# Array task TASK of NSHARDS: shard TASK/NSHARDS of the sweep, on one "
                        "rank, into its own part file.\nPARTS=");
        sb_shquote(&setup, parts_abs);
        sb_printf(&setup, "\nNSHARDS=%ld\nTASK=${SLURM_ARRAY_TASK_ID:-}\n", o->array);
        sb_puts(&setup, "if [ -z \"$TASK\" ]; then\n"
                        "    echo \"rcsim-slurm: this is an array job script (one task per "
                        "shard): submit it with sbatch\" >&2\n"
                        "    exit 2\n"
                        "fi\n"
                        "mkdir -p \"$PARTS\" || exit 1");
        sb_puts(&outv, "\"$PARTS/part-$TASK.h5\"");
    } else {
        sb_shquote(&outv, out_abs);
    }

    char num[32];
    subst_add(&s, "HEADER", hdr.p);
    subst_add(&s, "JOB_NAME", name.p);
    snprintf(num, sizeof num, "%ld", o->array > 0 ? 1L : o->nodes);
    subst_add(&s, "NODES", num);
    snprintf(num, sizeof num, "%ld", ntasks);
    subst_add(&s, "NTASKS", num);
    snprintf(num, sizeof num, "%ld", o->cpus);
    subst_add(&s, "CPUS_PER_TASK", num);
    snprintf(num, sizeof num, "0-%ld", o->array - 1);
    subst_add(&s, "ARRAY", o->array > 0 ? num : "");
    subst_add(&s, "TIME", o->time ? o->time : "");
    subst_add(&s, "PARTITION", o->partition ? o->partition : "");
    subst_add(&s, "ACCOUNT", o->account ? o->account : "");
    subst_add(&s, "LOG", log_abs);
    snprintf(num, sizeof num, "%ld", o->lead);
    subst_add(&s, "SIGNAL_LEAD", num);
    subst_add(&s, "REQUEUE_FLAG", o->requeue ? "--requeue" : "--no-requeue");
    subst_addq(&s, "RCSIM", exe);
    subst_addq(&s, "SWEEP", sweep_abs);
    subst_add(&s, "ARRAY_SETUP", setup.p ? setup.p : "");
    subst_add(&s, "OUT", outv.p);
    subst_add(&s, "LAUNCHER", o->launcher);
    subst_add(&s, "REQUEUE", o->requeue ? "1" : "0");
    snprintf(num, sizeof num, "%ld", o->max_requeues);
    subst_add(&s, "MAX_REQUEUES", num);
    subst_add(&s, "SWEEP_ARGS", args.p);
    expand_template(slurm_sweep_template, &s, &script);

    if (o->array > 0) {
        build_merge_header(&mhdr, sw, o, provisional, out_abs, parts_abs, merge_log, script_abs);
        subst_add(&ms, "HEADER", mhdr.p);
        subst_add(&ms, "JOB_NAME", mname.p);
        subst_add(&ms, "TIME", o->time ? o->time : "");
        subst_add(&ms, "PARTITION", o->partition ? o->partition : "");
        subst_add(&ms, "ACCOUNT", o->account ? o->account : "");
        subst_add(&ms, "LOG", merge_log);
        subst_addq(&ms, "RCSIM", exe);
        subst_addq(&ms, "OUT", out_abs);
        subst_addq(&ms, "PARTS", parts_abs);
        snprintf(num, sizeof num, "%ld", o->array);
        subst_add(&ms, "NSHARDS", num);
        expand_template(slurm_merge_template, &ms, &mscript);
    }

    if ((rc = write_script(o->script, &script, err)) != 0) goto done;
    if (o->array > 0) {
        if ((rc = write_script(merge_path, &mscript, err)) != 0) {
            unlink(o->script); /* one script without the other is no use */
            goto done;
        }
        sbuf q = {0};
        sb_shquote(&q, merge_path);
        sbuf qa = {0};
        sb_shquote(&qa, o->script);
        fprintf(stderr, "rcsim slurm: wrote %s (array of %ld tasks, %zu jobs) and %s (merge into "
                        "%s); submit both with:\n  jid=$(sbatch --parsable %s) && sbatch "
                        "--dependency=afterok:${jid%%%%;*} %s\n",
                o->script, o->array, rc_sweep_count(sw), merge_path, out_abs, qa.p, q.p);
        free(q.p);
        free(qa.p);
    } else if (o->script != NULL && strcmp(o->script, "-") != 0) {
        fprintf(stderr, "rcsim slurm: wrote %s (%zu jobs, %ld tasks); submit with: sbatch %s\n",
                o->script, rc_sweep_count(sw), ntasks, o->script);
    }
    rc = RC_EXIT_OK;

done:
    subst_free(&s);
    subst_free(&ms);
    free(script.p);
    free(mscript.p);
    free(hdr.p);
    free(mhdr.p);
    free(args.p);
    free(tmp.p);
    free(name.p);
    free(mname.p);
    free(setup.p);
    free(outv.p);
    free(exe);
    free(sweep_abs);
    free(out_abs);
    free(log_abs);
    free(data_abs);
    free(merge_path);
    free(merge_abs);
    free(script_abs);
    free(merge_log);
    free(parts_abs);
    rc_sweep_free(sw);
    return rc;
}
