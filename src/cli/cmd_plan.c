/* cmd_plan: `rcsim plan FILE` expands a sweep file without running anything
 * and prints what a run would do: the number of jobs, the axes, the
 * estimated cost (rc_job_cost_estimate) and the wall time on 1..N workers
 * when the most expensive jobs are handed out first, as the farm does.
 * A bad sweep file is reported on stderr with exit code 2 (cli/commands.h).
 */
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "io/json.h"
#include "core/err.h"
#include "core/log.h"
#include "exp/cost.h"
#include "exp/job.h"
#include "exp/param.h"
#include "exp/sweep.h"

#define PLAN_MAX_WORKERS 1000000L

static void usage(FILE *out)
{
    fprintf(out,
            "usage: rcsim plan FILE [--set key=value ...] [--data-dir DIR] [--list] [--json]\n"
            "                  [--workers N]\n"
            "\n"
            "Expands a sweep file (docs/sweep-format.md) into its jobs without running them\n"
            "and prints the sweep name, the number of jobs, the axes and their sizes, the\n"
            "estimated cost in CPU-seconds and the wall time on 1..N workers when the most\n"
            "expensive jobs go first.  Exits 2, with the error on stderr, if the file is bad.\n"
            "\n"
            "options:\n"
            "  -s, --set KEY=VALUE  override a parameter for every job (repeatable); on an\n"
            "                       axis key it replaces the axis by that one value\n"
            "      --data-dir DIR   where trace names are looked up, as `rcsim sweep\n"
            "                       --data-dir` (default $RCSIM_DATA_DIR, then the\n"
            "                       built-in places; docs/traces.md)\n"
            "  -l, --list           one line per job: index, id, estimated cost and the\n"
            "                       parameters that vary between jobs\n"
            "  -j, --json           machine-readable output (one JSON object)\n"
            "  -w, --workers N      largest worker count in the wall-time table (default 64)\n"
            "  -h, --help           this help\n"
            "\n"
            "The cost model is rough (CPU-seconds on one core of the development machine,\n"
            "constants fitted to measured jobs: docs/sweep-format.md, \"The cost model\");\n"
            "observed jobs (anonymity on) vary with how many messages they track.  Use it\n"
            "to compare sweeps and size allocations, not as a promise.\n");
}

/* "45s", "12m30s", "3h05m", "2d04h" */
static void human_time(double s, char *buf, size_t n)
{
    if (!(s < 1e15)) {
        snprintf(buf, n, "inf");
        return;
    }
    if (s < 60) snprintf(buf, n, "%.1fs", s);
    else if (s < 3600) snprintf(buf, n, "%dm%02ds", (int)(s / 60), (int)fmod(s, 60));
    else if (s < 86400) snprintf(buf, n, "%dh%02dm", (int)(s / 3600), (int)fmod(s / 60, 60));
    else snprintf(buf, n, "%dd%02dh", (int)(s / 86400), (int)fmod(s / 3600, 24));
}

static int cmp_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

/* Makespan of longest-processing-time-first on `w` workers: each job, in
 * decreasing cost, goes to the worker that frees up first (a min-heap). */
static double makespan(const double *sorted_desc, size_t n, size_t w)
{
    if (n == 0) return 0;
    if (w > n) w = n;
    double *heap = rc_xcalloc(w, sizeof *heap);
    for (size_t i = 0; i < n; i++) {
        heap[0] += sorted_desc[i]; /* the root is the least loaded; sift it down */
        size_t j = 0;
        for (;;) {
            size_t l = 2 * j + 1, r = l + 1, m = j;
            if (l < w && heap[l] < heap[m]) m = l;
            if (r < w && heap[r] < heap[m]) m = r;
            if (m == j) break;
            double t = heap[j];
            heap[j] = heap[m];
            heap[m] = t;
            j = m;
        }
    }
    double best = 0;
    for (size_t i = 0; i < w; i++)
        if (heap[i] > best) best = heap[i];
    free(heap);
    return best;
}

/* Marks the registry parameters whose value differs between jobs. */
static bool *varying_params(const rc_sweep *sw, const rc_param_def *t, size_t np)
{
    bool *vary = rc_xcalloc(np ? np : 1, sizeof *vary);
    size_t n = rc_sweep_count(sw);
    for (size_t k = 0; k < np; k++) {
        if (!(t[k].flags & RC_PF_CANON)) continue;
        char first[300], cur[300];
        rc_param_format(rc_sweep_job(sw, 0), &t[k], first, sizeof first);
        for (size_t i = 1; i < n && !vary[k]; i++) {
            rc_param_format(rc_sweep_job(sw, i), &t[k], cur, sizeof cur);
            if (strcmp(first, cur) != 0) vary[k] = true;
        }
    }
    return vary;
}

/* Worker counts for the table: powers of two up to max, and max itself. */
static size_t worker_counts(long max, size_t *out, size_t cap)
{
    size_t n = 0;
    for (long w = 1; w < max && n < cap - 1; w *= 2) out[n++] = (size_t)w;
    out[n++] = (size_t)max;
    return n;
}

static void print_text(const rc_sweep *sw, const double *cost, const double *sorted, long workers,
                       bool list)
{
    size_t n = rc_sweep_count(sw), na = rc_sweep_axis_count(sw), grid = 1;
    printf("sweep:     %s (%s)\n", rc_sweep_name(sw), rc_sweep_path(sw));
    if (rc_sweep_description(sw)[0]) printf("about:     %s\n", rc_sweep_description(sw));
    printf("jobs:      %zu", n);
    for (size_t a = 0; a < na; a++) {
        printf("%s%s %zu", a == 0 ? " = " : " x ", rc_sweep_axis_name(sw, a),
               rc_sweep_axis_size(sw, a));
        grid *= rc_sweep_axis_size(sw, a);
    }
    if (n > grid) printf(" %s %zu included", na ? "+" : "=", n - (na ? grid : 0));
    printf("\n");
    char hex[17];
    rc_job_id_hex(rc_sweep_hash(sw), hex);
    printf("hash:      %s\n", hex);
    double total = 0;
    for (size_t i = 0; i < n; i++) total += cost[i];
    char a[32], b[32];
    human_time(total, a, sizeof a);
    human_time(n ? sorted[0] : 0, b, sizeof b);
    printf("estimate:  %.0f CPU-s (%s on one core); longest job %s (rough model)\n", total, a, b);
    printf("wall time, longest jobs first:\n");
    size_t ws[64];
    size_t nw = worker_counts(workers, ws, 64);
    for (size_t i = 0; i < nw; i++) {
        human_time(makespan(sorted, n, ws[i]), a, sizeof a);
        printf("  %7zu worker%s  %s\n", ws[i], ws[i] == 1 ? " " : "s", a);
    }
    if (!list) return;
    size_t np;
    const rc_param_def *t = rc_param_table(&np);
    bool *vary = varying_params(sw, t, np);
    printf("\n%6s  %-16s  %9s  %s\n", "#", "id", "cost_s", "parameters that vary");
    for (size_t i = 0; i < n; i++) {
        rc_job_id_hex(rc_sweep_job_id(sw, i), hex);
        printf("%6zu  %s  %9.2f ", i + 1, hex, cost[i]);
        for (size_t k = 0; k < np; k++) {
            if (!vary[k]) continue;
            char v[300];
            rc_param_format(rc_sweep_job(sw, i), &t[k], v, sizeof v);
            printf(" %s=%s", t[k].name, v);
        }
        printf("\n");
    }
    free(vary);
}

static void print_json(const rc_sweep *sw, const double *cost, const double *sorted, long workers,
                       bool list)
{
    size_t n = rc_sweep_count(sw), na = rc_sweep_axis_count(sw);
    char hex[17];
    json_t *o = json_object();
    json_object_set_new(o, "name", rc_json_str(rc_sweep_name(sw)));
    json_object_set_new(o, "path", rc_json_str(rc_sweep_path(sw)));
    json_object_set_new(o, "description", rc_json_str(rc_sweep_description(sw)));
    rc_job_id_hex(rc_sweep_hash(sw), hex);
    json_object_set_new(o, "hash", rc_json_str(hex));
    json_object_set_new(o, "jobs", rc_json_u64(n));
    json_t *axes = json_array();
    for (size_t a = 0; a < na; a++)
        json_array_append_new(axes, json_pack("{s:o, s:o}", "name",
                                              rc_json_str(rc_sweep_axis_name(sw, a)), "size",
                                              rc_json_u64(rc_sweep_axis_size(sw, a))));
    json_object_set_new(o, "axes", axes);
    double total = 0;
    for (size_t i = 0; i < n; i++) total += cost[i];
    json_object_set_new(o, "cost_cpu_s", rc_json_num(total, 3));
    json_object_set_new(o, "longest_job_s", rc_json_num(n ? sorted[0] : 0.0, 3));
    json_t *wall = json_object();
    size_t ws[64];
    size_t nw = worker_counts(workers, ws, 64);
    for (size_t i = 0; i < nw; i++) {
        char key[32];
        snprintf(key, sizeof key, "%zu", ws[i]);
        json_object_set_new(wall, key, rc_json_num(makespan(sorted, n, ws[i]), 3));
    }
    json_object_set_new(o, "wall_s", wall);
    if (list) {
        size_t np;
        const rc_param_def *t = rc_param_table(&np);
        bool *vary = varying_params(sw, t, np);
        json_t *jobs = json_array();
        for (size_t i = 0; i < n; i++) {
            rc_job_id_hex(rc_sweep_job_id(sw, i), hex);
            json_t *params = json_object();
            for (size_t k = 0; k < np; k++) {
                if (!vary[k]) continue;
                char v[300];
                rc_param_format(rc_sweep_job(sw, i), &t[k], v, sizeof v);
                json_object_set_new(params, t[k].name, rc_json_str(v));
            }
            json_array_append_new(jobs, json_pack("{s:o, s:o, s:o, s:o}", "index", rc_json_u64(i),
                                                  "id", rc_json_str(hex), "cost_s",
                                                  rc_json_num(cost[i], 3), "params", params));
        }
        json_object_set_new(o, "list", jobs);
        free(vary);
    }
    rc_json_print(stdout, o, RC_JSON_FIXED);
}

int rc_cmd_plan(int argc, char **argv)
{
    static const struct option opts[] = {
        {"set", required_argument, NULL, 's'},   {"list", no_argument, NULL, 'l'},
        {"json", no_argument, NULL, 'j'},        {"workers", required_argument, NULL, 'w'},
        {"help", no_argument, NULL, 'h'},        {"data-dir", required_argument, NULL, 'D'},
        {NULL, 0, NULL, 0},
    };
    const char *data_dir = NULL;
    const char **sets = rc_xcalloc((size_t)argc + 1, sizeof *sets);
    size_t n_sets = 0;
    bool list = false, json = false;
    long workers = 64;
    int c, rc = RC_EXIT_OK;
    optind = 0; /* GNU: full re-initialisation, so the command can run twice in one process */
    while ((c = getopt_long(argc, argv, "s:ljw:h", opts, NULL)) != -1) {
        switch (c) {
        case 's': sets[n_sets++] = optarg; break;
        case 'D': data_dir = optarg; break;
        case 'l': list = true; break;
        case 'j': json = true; break;
        case 'w': {
            char *end;
            workers = strtol(optarg, &end, 10);
            if (*end != '\0' || end == optarg || workers < 1 || workers > PLAN_MAX_WORKERS) {
                fprintf(stderr, "rcsim plan: --workers '%s' must be 1..%ld\n", optarg,
                        PLAN_MAX_WORKERS);
                free(sets);
                return RC_EXIT_USAGE;
            }
            break;
        }
        case 'h':
            usage(stdout);
            free(sets);
            return RC_EXIT_OK;
        default:
            usage(stderr);
            free(sets);
            return RC_EXIT_USAGE;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "rcsim plan: expected exactly one sweep file%s\n",
                optind < argc ? " (options may come before or after it)" : "");
        usage(stderr);
        free(sets);
        return RC_EXIT_USAGE;
    }
    rc_err err = {0};
    rc_sweep *sw = rc_sweep_load(argv[optind], sets, n_sets, &err);
    free(sets);
    if (sw == NULL) {
        fprintf(stderr, "rcsim plan: %s\n", err.msg);
        return err.code ? err.code : RC_EXIT_USAGE;
    }
    /* Ids and hash name each trace by its content (exp/sweep.h rc_sweep_bind); a
     * trace that cannot be read makes the sweep fail, which is worth saying now,
     * but a plan is still useful without the files (estimating before fetching). */
    if (rc_sweep_bind(sw, data_dir, &err) != 0)
        fprintf(stderr,
                "rcsim plan: warning: %s\nrcsim plan: warning: job ids and hash below are "
                "provisional (they include each trace's checksum once the trace is found)\n",
                err.msg);
    size_t n = rc_sweep_count(sw);
    double *cost = rc_xcalloc(n ? n : 1, sizeof *cost);
    double *sorted = rc_xcalloc(n ? n : 1, sizeof *sorted);
    for (size_t i = 0; i < n; i++) sorted[i] = cost[i] = rc_job_cost_estimate(rc_sweep_job(sw, i));
    qsort(sorted, n, sizeof *sorted, cmp_desc);
    if (json) print_json(sw, cost, sorted, workers, list);
    else print_text(sw, cost, sorted, workers, list);
    if (fflush(stdout) != 0) rc = RC_EXIT_RUNTIME;
    free(cost);
    free(sorted);
    rc_sweep_free(sw);
    return rc;
}
