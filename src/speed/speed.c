/* speed: the benchmark harness behind `rcsim bench` (speed/speed.h has the
 * contract; docs/performance.md is the manual and holds the measured numbers).
 *
 * Runs a fixed list of job configurations (24 h simulated, --model paper,
 * seed 1; --quick: 2 h and fewer of them) through rc_run_job, each repeat in
 * a fork()ed child so that the peak RSS (ru_maxrss from wait4) and the CPU
 * time belong to that job alone, and prints per configuration: median wall
 * time, median CPU time, events, events/s and peak RSS.  It then measures the
 * sweep throughput (jobs/s) of `rcsim sweep` on many small jobs under
 * /usr/bin/mpirun with 1, 2, ... workers.  --json writes all of it with the
 * provenance (version, git revision, host, date, CPU model, load average)
 * that bench/compare.py needs to compare two runs.
 *
 * Memory: everything lives in fixed arrays (static or on the stack); children _exit.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "speed/speed.h"
#include "core/err.h"
#include "core/log.h"
#include "core/version.h"
#include "exp/job.h"
#include "exp/param.h"
#include "exp/run.h"
#include "io/json.h"
#include "trace/avail.h"

#define BENCH_MAX_REPEAT RC_SPEED_MAX_REPEAT
#define BENCH_MAX_NP RC_SPEED_MAX_NP
#define MPIRUN RC_SPEED_MPIRUN

/* One configuration: a name (the key bench/compare.py matches on) and the
 * parameters that differ from the base (model paper, seed 1, the duration). */
typedef struct speed_cfg {
    const char *name;
    const char *params; /* "key=value key=value ..." for rc_param_set_by_name */
    bool quick;         /* part of the --quick subset */
} speed_cfg;

static const speed_cfg configs[] = {
    {"unicast-u32-online", "strategy=unicast users=32 trace=online", true},
    {"unicast-u128-online", "strategy=unicast users=128 trace=online", true},
    {"unicast-u256-online", "strategy=unicast users=256 trace=online", false},
    {"rc-k2-p2-u32-online", "strategy=rc-k2-p2 users=32 trace=online", true},
    {"rc-k2-p2-u128-online", "strategy=rc-k2-p2 users=128 trace=online", true},
    {"rc-k2-p2-u256-online", "strategy=rc-k2-p2 users=256 trace=online", false},
    {"unicast-u32-gen_os15", "strategy=unicast users=32 trace=gen_os15", false},
    {"unicast-u128-gen_os15", "strategy=unicast users=128 trace=gen_os15", false},
    {"unicast-u256-gen_os15", "strategy=unicast users=256 trace=gen_os15", false},
    {"rc-k2-p2-u32-gen_os15", "strategy=rc-k2-p2 users=32 trace=gen_os15", false},
    {"rc-k2-p2-u128-gen_os15", "strategy=rc-k2-p2 users=128 trace=gen_os15", true},
    {"rc-k2-p2-u256-gen_os15", "strategy=rc-k2-p2 users=256 trace=gen_os15", false},
    {"multigroup-g16x128-u128-rc-k2-p2-ft-dropoffline",
     "strategy=rc-k2-p2-ft-dropoffline users=128 groups=16 group_size=128 trace=online", true},
    {"exact-rc-k2-p2-u128-online", "model=exact strategy=rc-k2-p2 users=128 trace=online", true},
    /* Anonymity (docs/performance.md): the cost of tracking 1,000 messages against
     * the same job with every packet simulated and nothing tracked (goal: at most 2x); peak
     * RSS against the number tracked; a 10,000-user population for 10 simulated minutes.
     * Their own durations (1 h, 10 min) whatever --quick says; not in the --quick subset. */
    {"anon-off-cover-full-rc-k2-p2-u128-1h",
     "model=exact strategy=rc-k2-p2 users=128 trace=online cover=full duration=1h", false},
    {"anon-on-rc-k2-p2-u128-1h-t1000",
     "model=exact strategy=rc-k2-p2 users=128 trace=online anonymity=on anon_targets=1000 "
     "duration=1h", false},
    {"anon-on-rc-k2-p2-u128-1h-t250",
     "model=exact strategy=rc-k2-p2 users=128 trace=online anonymity=on anon_targets=250 "
     "duration=1h", false},
    {"anon-on-rc-k2-p2-u128-1h-t4000",
     "model=exact strategy=rc-k2-p2 users=128 trace=online anonymity=on anon_targets=4000 "
     "duration=1h", false},
    {"anon-on-pop10000-rc-k2-p2-ft-10m",
     "model=exact strategy=rc-k2-p2-ft-dropoffline population=10000 groups=1000 "
     "group_size_dist=zipf:1.5:3:200 trace=online anonymity=on duration=10m", false},
    /* Anonymity in population mode at deployment scale (docs/performance.md, "Anonymity on
     * populations"): 2 x 10^4 users for one simulated minute, every group's messages and one
     * target group's, and the same population with every packet simulated and nothing
     * tracked.  Their own duration; run them with --only anon-population. */
    {"anon-population-n20000-g4000-1m",
     "model=exact strategy=rc-k2-p2-ft-dropoffline population=20000 groups=4000 "
     "group_size_dist=zipf:1.5:3:200 trace=online anonymity=on duration=1m", false},
    {"anon-population-n20000-g4000-largest-1m",
     "model=exact strategy=rc-k2-p2-ft-dropoffline population=20000 groups=4000 "
     "group_size_dist=zipf:1.5:3:200 trace=online anonymity=on anon_group=largest duration=1m",
     false},
    {"anon-population-off-cover-full-n20000-g4000-1m",
     "model=exact strategy=rc-k2-p2-ft-dropoffline population=20000 groups=4000 "
     "group_size_dist=zipf:1.5:3:200 trace=online cover=full duration=1m", false},
    /* The same at 3,000 users (the sender log's mode above 1,024 users): minutes, not
     * half an hour, on a loaded machine. */
    {"anon-population-n3000-g600-1m",
     "model=exact strategy=rc-k2-p2-ft-dropoffline population=3000 groups=600 "
     "group_size_dist=zipf:1.5:3:200 trace=online anonymity=on duration=1m", false},
    {"anon-population-off-cover-full-n3000-g600-1m",
     "model=exact strategy=rc-k2-p2-ft-dropoffline population=3000 groups=600 "
     "group_size_dist=zipf:1.5:3:200 trace=online cover=full duration=1m", false},
    /* Full cover on populations against full cover at m = 1,000 without one
     * (docs/performance.md, "Full cover on populations"; goal: events/s within
     * 1.5x).  Their own durations (the 1,000 users for 10 minutes, long
     * enough to time); run them with --only fullcover. */
    {"fullcover-pop-n10000-g2000-1m",
     "model=exact strategy=unicast population=10000 groups=2000 "
     "group_size_dist=zipf:1.5:3:200 trace=online cover=full duration=1m", false},
    {"fullcover-u1000-10m",
     "model=exact strategy=unicast users=1000 trace=online cover=full duration=10m", false},
    /* Populations at the engine's speed (docs/performance.md): the cost per
     * delivery at 10^4 and 10^5 users (goal: within 1.5x of each other) and the
     * configuration of the 10^5 side-by-side run.  Their own duration; run them alone
     * with --only pop-; not in the --quick subset. */
    {"pop-unicast-n10000-g2000-10m",
     "model=exact strategy=unicast population=10000 groups=2000 "
     "group_size_dist=zipf:1.5:3:500 trace=online duration=10m", false},
    {"pop-unicast-n100000-g20000-10m",
     "model=exact strategy=unicast population=100000 groups=20000 "
     "group_size_dist=zipf:1.5:3:500 trace=online duration=10m", false},
};
#define N_CONFIGS (sizeof configs / sizeof configs[0])

/* What a child sends back through its pipe. */
typedef struct child_report {
    int rc;
    uint64_t events, multicasts, deliveries;
    double wall_s;
    char msg[256];
} child_report;

typedef struct cfg_result {
    const speed_cfg *cfg;
    rc_job job;
    enum { CR_OK, CR_SKIPPED, CR_FAILED } status;
    char note[300];
    int n;                                  /* repeats done */
    double wall[BENCH_MAX_REPEAT], cpu[BENCH_MAX_REPEAT];
    uint64_t rss_kb[BENCH_MAX_REPEAT];
    uint64_t events, multicasts, deliveries;
    bool nondeterministic;                  /* event counts differed between repeats */
    double wall_med, cpu_med;
    uint64_t rss_max_kb;
} cfg_result;

typedef struct sweep_run {
    int workers, np;
    int status;          /* 0 ok, else exit status / -1 not run */
    double wall_s;       /* mpirun end to end, including MPI start-up (median) */
    double jobs_per_s;   /* jobs / wall_s */
    double farm_jobs_per_s; /* the sweep's own figure (excludes start-up), NAN if not found */
    int n_runs;          /* repeats done (medians over these) */
} sweep_run;

typedef rc_speed_opts opts;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double tv_s(struct timeval tv) { return (double)tv.tv_sec + 1e-6 * (double)tv.tv_usec; }

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(const double *v, int n)
{
    double s[BENCH_MAX_REPEAT];
    memcpy(s, v, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

/* Builds the job of a configuration: registry defaults, the base values,
 * then the configuration's own parameters.  A bad table entry is a bug. */
static int build_job(const speed_cfg *c, const opts *o, rc_job *job, rc_err *err)
{
    rc_job_defaults(job);
    const char *dir = o->data_dir ? o->data_dir : getenv("RCSIM_DATA_DIR");
    if (dir && strlen(dir) < sizeof job->data_dir) strcpy(job->data_dir, dir);
    char text[512];
    snprintf(text, sizeof text, "model=paper seed=1 duration=%s %s", o->quick ? "2h" : "24h",
             c->params);
    for (char *save = NULL, *kv = strtok_r(text, " ", &save); kv; kv = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(kv, '=');
        if (eq == NULL) return rc_err_set(err, RC_EXIT_RUNTIME, "bad bench parameter '%s'", kv);
        *eq = '\0';
        int rc = rc_param_set_by_name(job, kv, eq + 1, err);
        if (rc) return rc;
    }
    rc_job_resolve(job);
    return rc_job_validate(job, err);
}

/* Reads exactly n bytes unless the writer closes first; returns bytes read. */
static size_t read_full(int fd, void *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, (char *)buf + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
    return got;
}

/* One repeat in a forked child.  Returns 0 and fills the report and the
 * child's rusage, or -1 with a message in `note`. */
static int run_child(const rc_job *job, child_report *rep, struct rusage *ru, char *note, size_t nn)
{
    int fds[2];
    if (pipe(fds) != 0) {
        snprintf(note, nn, "pipe: %s", strerror(errno));
        return -1;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(note, nn, "fork: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        close(fds[0]);
        child_report r;
        memset(&r, 0, sizeof r);
        rc_err err = {0};
        rc_result res;
        r.rc = rc_run_job(job, &res, NULL, NULL, &err);
        if (r.rc == 0) {
            r.events = res.c.events;
            r.multicasts = res.c.multicasts;
            r.deliveries = res.c.deliveries;
            r.wall_s = res.c.wall_s;
            rc_result_free(&res);
        } else {
            snprintf(r.msg, sizeof r.msg, "%.250s", err.msg);
        }
        ssize_t w = write(fds[1], &r, sizeof r);
        _exit(w == (ssize_t)sizeof r ? 0 : 1);
    }
    close(fds[1]);
    size_t got = read_full(fds[0], rep, sizeof *rep);
    close(fds[0]);
    int status;
    while (wait4(pid, &status, 0, ru) < 0) {
        if (errno != EINTR) {
            snprintf(note, nn, "wait4: %s", strerror(errno));
            return -1;
        }
    }
    if (WIFSIGNALED(status)) {
        snprintf(note, nn, "job crashed (signal %d: %s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
        return -1;
    }
    if (got != sizeof *rep) {
        snprintf(note, nn, "job process exited (status %d) without a report", WEXITSTATUS(status));
        return -1;
    }
    if (rep->rc != 0) {
        snprintf(note, nn, "job failed: %s", rep->msg);
        return -1;
    }
    return 0;
}

static void run_config(cfg_result *cr, const opts *o)
{
    rc_err err = {0};
    if (build_job(cr->cfg, o, &cr->job, &err) != 0) {
        cr->status = CR_FAILED;
        snprintf(cr->note, sizeof cr->note, "%.290s", err.msg);
        return;
    }
    if (strcmp(cr->job.trace, "online") != 0) {
        char path[1024];
        rc_err terr = {0};
        if (rc_trace_resolve(cr->job.trace, cr->job.data_dir, path, sizeof path, &terr) != 0) {
            char name[sizeof cr->job.trace];
            memcpy(name, cr->job.trace, sizeof name); /* snprintf must not read from *cr */
            cr->status = CR_SKIPPED;
            snprintf(cr->note, sizeof cr->note,
                     "skipped: trace %.200s not found (scripts/get-traces.sh, RCSIM_DATA_DIR)", name);
            return;
        }
    }
    for (int r = 0; r < o->repeat; r++) {
        if (!o->quiet) {
            fprintf(stderr, "bench: %s (%d/%d) ...", cr->cfg->name, r + 1, o->repeat);
            fflush(stderr);
        }
        child_report rep;
        struct rusage ru;
        memset(&ru, 0, sizeof ru);
        double t0 = now_s();
        if (run_child(&cr->job, &rep, &ru, cr->note, sizeof cr->note) != 0) {
            if (!o->quiet) fprintf(stderr, " %s\n", cr->note);
            cr->status = CR_FAILED;
            return;
        }
        double wall = now_s() - t0;
        /* The engine's own wall time excludes fork and trace loading; the
         * bench reports the whole job as a user sees it. */
        (void)rep.wall_s;
        cr->wall[r] = wall;
        cr->cpu[r] = tv_s(ru.ru_utime) + tv_s(ru.ru_stime);
        cr->rss_kb[r] = (uint64_t)ru.ru_maxrss;
        if (r == 0) {
            cr->events = rep.events;
            cr->multicasts = rep.multicasts;
            cr->deliveries = rep.deliveries;
        } else if (rep.events != cr->events || rep.deliveries != cr->deliveries) {
            cr->nondeterministic = true;
        }
        cr->n = r + 1;
        if (!o->quiet) fprintf(stderr, " %.2f s\n", wall);
    }
    cr->status = CR_OK;
    cr->wall_med = median(cr->wall, cr->n);
    cr->cpu_med = median(cr->cpu, cr->n);
    cr->rss_max_kb = 0;
    for (int r = 0; r < cr->n; r++)
        if (cr->rss_kb[r] > cr->rss_max_kb) cr->rss_max_kb = cr->rss_kb[r];
    if (cr->nondeterministic)
        snprintf(cr->note, sizeof cr->note, "event counts differ between repeats (determinism bug)");
}

/* Runs `mpirun -np NP rcsim sweep YAML --out OUT` with output to LOG;
 * returns the exit status (or -1) and the farm's own jobs/s from its
 * summary line ("..., wall 2.0 s, 30.06 jobs/s, ..."). */
static int run_sweep(const char *self, const char *yaml, const char *out, const char *log, int np,
                     double *wall, double *farm_rate)
{
    char npbuf[16];
    snprintf(npbuf, sizeof npbuf, "%d", np);
    fflush(stdout);
    fflush(stderr);
    double t0 = now_s();
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
        setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
        setenv("OMPI_MCA_rmaps_base_oversubscribe", "1", 1);
        char *argv[] = {(char *)MPIRUN, (char *)"-np", npbuf, (char *)self, (char *)"sweep",
                        (char *)yaml, (char *)"--out", (char *)out, NULL};
        execv(MPIRUN, argv);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return -1;
    *wall = now_s() - t0;
    *farm_rate = NAN;
    FILE *f = fopen(log, "r");
    if (f) {
        char line[1024];
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "rcsim sweep ", 12) != 0) continue;
            char *p = strstr(line, " jobs/s");
            if (p == NULL) continue;
            char *q = p;
            while (q > line && (q[-1] == '.' || (q[-1] >= '0' && q[-1] <= '9'))) q--;
            if (q < p) *farm_rate = strtod(q, NULL);
        }
        fclose(f);
    }
    if (!WIFEXITED(status)) return -1;
    return WEXITSTATUS(status);
}

static void print_log_tail(const char *log)
{
    FILE *f = fopen(log, "r");
    if (f == NULL) return;
    char line[1024];
    while (fgets(line, sizeof line, f)) fprintf(stderr, "  | %s", line);
    fclose(f);
}

static void remove_sweep_files(const char *out)
{
    char p[4300];
    unlink(out);
    snprintf(p, sizeof p, "%s.journal", out);
    unlink(p);
}

/* Returns 0, or 1 when a sweep failed; *ran false when mpirun is absent. */
static int measure_sweeps(const opts *o, sweep_run *runs, bool *ran, char *note, size_t nn)
{
    *ran = false;
    if (access(MPIRUN, X_OK) != 0) {
        snprintf(note, nn, "skipped: %s not found", MPIRUN);
        return 0;
    }
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0) {
        snprintf(note, nn, "skipped: cannot find the rcsim executable (/proc/self/exe)");
        return 0;
    }
    self[len] = '\0';
    const char *tmp = getenv("TMPDIR");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/rcsim-bench-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (mkdtemp(dir) == NULL) {
        snprintf(note, nn, "cannot create a temporary directory: %s", strerror(errno));
        return 1;
    }
    char yaml[4200], out[4200], log[4200];
    snprintf(yaml, sizeof yaml, "%s/throughput.yaml", dir);
    FILE *f = fopen(yaml, "w");
    if (f == NULL) {
        snprintf(note, nn, "cannot write %.150s: %.80s", yaml, strerror(errno));
        rmdir(dir);
        return 1;
    }
    fprintf(f,
            "# written by rcsim bench: many small jobs, so the farm's per-job cost shows\n"
            "name: bench-throughput\n"
            "defaults:\n  model: paper\n  duration: 10m\n  trace: online\n  users: 32\n"
            "  strategy: unicast\n"
            "seeds: %d\n",
            o->sweep_jobs);
    fclose(f);
    int fail = 0;
    for (int i = 0; i < o->n_np; i++) {
        runs[i].workers = o->np_list[i];
        runs[i].np = runs[i].workers + 1;
        runs[i].status = 0;
    }
    /* Repeats go round the worker counts (1,2,1,2,...) so a change in the
     * machine's load affects every count alike; medians are reported. */
    double walls[BENCH_MAX_NP][BENCH_MAX_REPEAT], rates[BENCH_MAX_NP][BENCH_MAX_REPEAT];
    for (int r = 0; r < o->repeat && !fail; r++) {
        for (int i = 0; i < o->n_np && !fail; i++) {
            sweep_run *s = &runs[i];
            snprintf(out, sizeof out, "%s/out-np%d.h5", dir, s->np);
            snprintf(log, sizeof log, "%s/out-np%d.log", dir, s->np);
            if (!o->quiet) {
                fprintf(stderr, "bench: sweep of %d jobs, mpirun -np %d (%d/%d) ...", o->sweep_jobs,
                        s->np, r + 1, o->repeat);
                fflush(stderr);
            }
            s->status = run_sweep(self, yaml, out, log, s->np, &walls[i][r], &rates[i][r]);
            if (!o->quiet) fprintf(stderr, " %.2f s\n", walls[i][r]);
            if (s->status != 0) {
                fprintf(stderr, "rcsim bench: mpirun -np %d %s sweep failed (status %d); its output:\n",
                        s->np, self, s->status);
                print_log_tail(log);
                fail = 1;
            }
            remove_sweep_files(out);
            unlink(log);
            s->n_runs = r + 1;
        }
    }
    for (int i = 0; i < o->n_np; i++) {
        sweep_run *s = &runs[i];
        if (s->status != 0 || s->n_runs == 0) {
            s->wall_s = s->jobs_per_s = s->farm_jobs_per_s = NAN;
            if (s->status == 0) s->status = -1; /* never ran: an earlier count failed */
            continue;
        }
        s->wall_s = median(walls[i], s->n_runs);
        s->jobs_per_s = o->sweep_jobs / s->wall_s;
        s->farm_jobs_per_s = median(rates[i], s->n_runs);
    }
    unlink(yaml);
    rmdir(dir);
    *ran = true;
    return fail;
}

static void print_table(const cfg_result *cr, size_t n, const opts *o)
{
    printf("rcsim %s (%s) bench: %s simulated, model paper unless named, seed 1, median of %d\n",
           RCSIM_VERSION, RCSIM_GIT_REVISION, o->quick ? "2 h" : "24 h", o->repeat);
    printf("%-48s %11s %9s %9s %10s %9s\n", "configuration", "events", "wall s", "cpu s",
           "Mevents/s", "RSS MiB");
    for (size_t i = 0; i < n; i++) {
        const cfg_result *c = &cr[i];
        if (c->status != CR_OK) {
            printf("%-48s %s\n", c->cfg->name, c->note);
            continue;
        }
        printf("%-48s %11llu %9.3f %9.3f %10.3f %9.1f%s\n", c->cfg->name,
               (unsigned long long)c->events, c->wall_med, c->cpu_med,
               c->wall_med > 0 ? (double)c->events / c->wall_med / 1e6 : 0.0,
               (double)c->rss_max_kb / 1024.0, c->nondeterministic ? "  (!) events differ" : "");
    }
}

static void print_sweeps(const sweep_run *s, int n, const opts *o, const char *note)
{
    if (note[0]) {
        printf("sweep throughput: %s\n", note);
        return;
    }
    printf("sweep throughput (%d jobs: users 32, 10 min, online, unicast; median of %d;\n"
           "  end to end includes MPI start-up, farm is the sweep's own figure without it):\n",
           o->sweep_jobs, s[0].n_runs);
    for (int i = 0; i < n; i++) {
        if (s[i].status != 0) {
            printf("  %d worker(s) (mpirun -np %d): failed\n", s[i].workers, s[i].np);
            continue;
        }
        printf("  %d worker(s) (mpirun -np %d): %6.2f jobs/s end to end (%.2f s), ratio %.2f; "
               "farm %6.2f jobs/s, ratio %.2f\n",
               s[i].workers, s[i].np, s[i].jobs_per_s, s[i].wall_s,
               s[0].status == 0 ? s[i].jobs_per_s / s[0].jobs_per_s : NAN, s[i].farm_jobs_per_s,
               s[0].status == 0 ? s[i].farm_jobs_per_s / s[0].farm_jobs_per_s : NAN);
    }
}

static void cpu_model(char *out, size_t n)
{
    snprintf(out, n, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f == NULL) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) != 0) continue;
        char *p = strchr(line, ':');
        if (p == NULL) continue;
        p++;
        while (*p == ' ' || *p == '\t') p++;
        p[strcspn(p, "\n")] = '\0';
        snprintf(out, n, "%s", p);
        break;
    }
    fclose(f);
}

static double loadavg1(void)
{
    double l = NAN;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &l) != 1) l = NAN;
        fclose(f);
    }
    return l;
}

static int write_json(const char *path, const cfg_result *cr, size_t n, const sweep_run *s,
                      int ns, bool sweep_ran, const char *sweep_note, const opts *o,
                      const char *date, double load0, double load1)
{
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        fprintf(stderr, "rcsim bench: cannot write %s: %s\n", path, strerror(errno));
        return RC_EXIT_RUNTIME;
    }
    char host[256] = "unknown", cpu[256];
    gethostname(host, sizeof host);
    host[sizeof host - 1] = '\0';
    cpu_model(cpu, sizeof cpu);
    /* One document through io/json.h; reals as %.6g (JSON_REAL_PRECISION(6)). */
    json_t *doc = json_object();
#define PUT(obj, k, v) json_object_set_new(obj, k, v)
    PUT(doc, "format", rc_json_str("rcsim-bench/1"));
    PUT(doc, "rcsim_version", rc_json_str(RCSIM_VERSION));
    PUT(doc, "git_revision", rc_json_str(RCSIM_GIT_REVISION));
    PUT(doc, "host", rc_json_str(host));
    PUT(doc, "date", rc_json_str(date));
    PUT(doc, "cpu_model", rc_json_str(cpu));
    PUT(doc, "ncpu", json_integer(sysconf(_SC_NPROCESSORS_ONLN)));
    PUT(doc, "loadavg_start", rc_json_num(load0, -1));
    PUT(doc, "loadavg_end", rc_json_num(load1, -1));
    PUT(doc, "quick", json_boolean(o->quick));
    PUT(doc, "repeat", json_integer(o->repeat));
    PUT(doc, "sim_duration_s", json_integer(o->quick ? 7200 : 86400));
    json_t *jobs = json_array();
    for (size_t i = 0; i < n; i++) {
        const cfg_result *c = &cr[i];
        json_t *j = json_object();
        PUT(j, "name", rc_json_str(c->cfg->name));
        PUT(j, "params", rc_json_str(c->cfg->params));
        PUT(j, "status", rc_json_str(c->status == CR_OK        ? "ok"
                                     : c->status == CR_SKIPPED ? "skipped"
                                                               : "failed"));
        if (c->note[0]) PUT(j, "note", rc_json_str(c->note));
        if (c->status == CR_OK) {
            char id[17];
            rc_job_id_hex(rc_job_id(&c->job), id);
            PUT(j, "job_id", rc_json_str(id));
            PUT(j, "events", rc_json_u64(c->events));
            PUT(j, "multicasts", rc_json_u64(c->multicasts));
            PUT(j, "deliveries", rc_json_u64(c->deliveries));
            PUT(j, "deterministic", json_boolean(!c->nondeterministic));
            PUT(j, "wall_s", rc_json_num(c->wall_med, -1));
            PUT(j, "cpu_s", rc_json_num(c->cpu_med, -1));
            PUT(j, "events_per_s",
                rc_json_num(c->wall_med > 0 ? (double)c->events / c->wall_med : NAN, -1));
            PUT(j, "events_per_cpu_s",
                rc_json_num(c->cpu_med > 0 ? (double)c->events / c->cpu_med : NAN, -1));
            PUT(j, "peak_rss_kb", rc_json_u64(c->rss_max_kb));
            json_t *wall = json_array(), *cpus = json_array();
            for (int r = 0; r < c->n; r++) {
                json_array_append_new(wall, rc_json_num(c->wall[r], -1));
                json_array_append_new(cpus, rc_json_num(c->cpu[r], -1));
            }
            PUT(j, "wall_s_all", wall);
            PUT(j, "cpu_s_all", cpus);
        }
        json_array_append_new(jobs, j);
    }
    PUT(doc, "jobs", jobs);
    json_t *sw = json_object();
    PUT(sw, "status", rc_json_str(!sweep_ran ? "skipped" : "ran"));
    if (sweep_note[0]) PUT(sw, "note", rc_json_str(sweep_note));
    PUT(sw, "jobs", json_integer(o->sweep_jobs));
    PUT(sw, "job_params",
        rc_json_str("users=32 duration=10m trace=online strategy=unicast model=paper"));
    json_t *runs = json_array();
    for (int i = 0; sweep_ran && i < ns; i++) {
        json_t *r = json_object();
        PUT(r, "workers", json_integer(s[i].workers));
        PUT(r, "np", json_integer(s[i].np));
        PUT(r, "exit_status", json_integer(s[i].status));
        PUT(r, "repeats", json_integer(s[i].n_runs));
        PUT(r, "wall_s", rc_json_num(s[i].wall_s, -1));
        PUT(r, "jobs_per_s", rc_json_num(s[i].jobs_per_s, -1));
        PUT(r, "farm_jobs_per_s", rc_json_num(s[i].farm_jobs_per_s, -1));
        bool both = s[0].status == 0 && s[i].status == 0;
        PUT(r, "ratio", rc_json_num(both ? s[i].jobs_per_s / s[0].jobs_per_s : NAN, -1));
        PUT(r, "farm_ratio",
            rc_json_num(both ? s[i].farm_jobs_per_s / s[0].farm_jobs_per_s : NAN, -1));
        json_array_append_new(runs, r);
    }
    PUT(sw, "runs", runs);
    PUT(doc, "sweep", sw);
#undef PUT
    int bad = rc_json_print(f, doc, JSON_INDENT(2) | JSON_REAL_PRECISION(6)) != 0;
    if (bad) {
        fclose(f);
        fprintf(stderr, "rcsim bench: cannot write %s: %s\n", path, strerror(errno));
        return RC_EXIT_RUNTIME;
    }
    if (fclose(f) != 0) {
        fprintf(stderr, "rcsim bench: cannot write %s: %s\n", path, strerror(errno));
        return RC_EXIT_RUNTIME;
    }
    return 0;
}

void rc_speed_opts_init(rc_speed_opts *o)
{
    memset(o, 0, sizeof *o);
    o->repeat = -1;
    o->sweep_jobs = -1;
    o->np_list[0] = 1;
    o->np_list[1] = 2;
    o->n_np = 2;
}

int rc_speed_run(const rc_speed_opts *given)
{
    RC_ASSERT(given->n_np >= 1 && given->n_np <= BENCH_MAX_NP);
    RC_ASSERT(given->repeat <= BENCH_MAX_REPEAT);
    opts o = *given;
    if (o.repeat < 0) o.repeat = o.quick ? 1 : 3;
    if (o.sweep_jobs < 0) o.sweep_jobs = o.quick ? 20 : 60;

    time_t t = time(NULL);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
    double load0 = loadavg1();

    static cfg_result results[N_CONFIGS]; /* ~50 kB: not on the stack */
    size_t n = 0;
    int rc = 0;
    for (size_t i = 0; i < N_CONFIGS; i++) {
        if (o.quick && !configs[i].quick) continue;
        if (o.only && strstr(configs[i].name, o.only) == NULL) continue;
        cfg_result *cr = &results[n++];
        memset(cr, 0, sizeof *cr);
        cr->cfg = &configs[i];
        run_config(cr, &o);
        if (cr->status == CR_FAILED || cr->nondeterministic) rc = RC_EXIT_RUNTIME;
    }
    if (n == 0) {
        fprintf(stderr, "rcsim bench: no configuration matches --only '%s'\n", o.only);
        return RC_EXIT_USAGE;
    }

    sweep_run runs[BENCH_MAX_NP];
    memset(runs, 0, sizeof runs);
    bool sweep_ran = false;
    char sweep_note[256] = "";
    if (o.no_sweep) snprintf(sweep_note, sizeof sweep_note, "skipped (--no-sweep)");
    else if (measure_sweeps(&o, runs, &sweep_ran, sweep_note, sizeof sweep_note) != 0)
        rc = RC_EXIT_RUNTIME;
    double load1 = loadavg1();

    print_table(results, n, &o);
    print_sweeps(runs, sweep_ran ? o.n_np : 0, &o, sweep_note);
    printf("load average (1 min): %.2f at start, %.2f at end, %ld CPUs\n", load0, load1,
           sysconf(_SC_NPROCESSORS_ONLN));
    if (o.json) {
        int jrc = write_json(o.json, results, n, runs, o.n_np, sweep_ran, sweep_note, &o, date,
                             load0, load1);
        if (jrc) rc = jrc;
    }
    return rc;
}
