/* rcsim run: one job from command-line options.  Every registry parameter is
 * an option (--users 128, --strategy rc-k2-p2, --duration 24h, ...). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/commands.h"
#include "core/version.h"
#include "exp/param.h"
#include "exp/run.h"
#include "multicast/strategy_name.h"

#include "io/h5out.h"

/* Writes the job as a one-job results file: to PATH.tmp first, renamed into
 * place only when complete, so a failure leaves no partial file. */
static int write_out(const char *path, const rc_job *job, const rc_result *r, rc_err *err)
{
    char tmp[4096], canon[8192];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    rc_job_canonical(job, canon, sizeof canon);
    unlink(tmp);
    rc_h5out_sweep sw = {"run", "", canon, r->job_id, 1, ""};
    rc_h5out *h = rc_h5out_open(tmp, &sw, strlen(canon) + 1, err);
    if (h == NULL) return err->code ? err->code : RC_EXIT_RUNTIME;
    char host[256] = "unknown";
    gethostname(host, sizeof host);
    rc_h5out_prov prov = {host, 0, (double)time(NULL), NULL, ""};
    void *image;
    size_t len;
    rc_result_pack(r, &image, &len);
    int rc = rc_h5out_add(h, job, image, len, canon, &prov, err);
    free(image);
    bool locked;
    if (rc == 0) rc = rc_h5out_flush(h, &locked, err);
    rc_h5out_close(h);
    if (rc == 0 && rename(tmp, path) != 0)
        rc = rc_err_set(err, RC_EXIT_RUNTIME, "cannot rename %s to %s", tmp, path);
    if (rc != 0) unlink(tmp);
    return rc;
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: rcsim run [--PARAM VALUE ...] [--json] [--out FILE.h5] [--quiet]\n\n"
            "Runs one simulation job and prints its latency summary (online-only\n"
            "deliveries, docs/spec.md §5).  Options (defaults are the paper's values):\n\n");
    size_t n;
    const rc_param_def *t = rc_param_table(&n);
    for (size_t i = 0; i < n; i++) {
        char opt[64];
        snprintf(opt, sizeof opt, "--%s", t[i].name);
        for (char *c = opt + 2; *c; c++)
            if (*c == '_') *c = '-';
        fprintf(out, "  %-24s %s", opt, t[i].help);
        if (t[i].unit[0]) fprintf(out, " [%s]", t[i].unit);
        fprintf(out, " (default: %s)\n", t[i].def[0] ? t[i].def : "\"\"");
    }
    fprintf(out,
            "  %-24s print one JSON line with the results\n"
            "  %-24s also write the job's results to an HDF5 file (docs/results-layout.md)\n"
            "  %-24s no human summary\n"
            "  %-24s this help\n\n"
            "Strategies:\n"
            "  unicast                 sequential unicast: the sender queues one copy per member\n"
            "  rc-kK-pP                Rollercoaster, branching factor K, parallelism P, no timeouts\n"
            "  rc-kK-pP-ft             ... fault tolerant (ACK timeouts, reassignment), multiplier 1.0\n"
            "  rc-kK-pP-ftM            ... timeout multiplier M (e.g. rc-k2-p2-ft1.5)\n"
            "  ...-dropoffline         members that got a copy after being offline neither forward\n"
            "                          nor ACK it (the source reassigns their role)\n"
            "  The reference's names (rollercoaster-k2-p2-timeout10x-dropoffline) work too.\n\n"
            "Models: --model exact (continuous-time Loopix, default) or --model paper (the\n"
            "reference simulator's 10 ms lattice and quirks; every quirk also has its own\n"
            "--q-* switch: auto follows the model).\n",
            "--json", "--out FILE", "--quiet", "--help");
}

static void print_human(const rc_job *job, const rc_result *r)
{
    const rc_summary *s = &r->online;
    printf("rcsim %s: %s, %d users, group %d x %d, trace %s, model %s, %.0f s simulated, seed %llu\n",
           RCSIM_VERSION, job->strategy, job->users, job->groups, rc_job_group_size(job),
           job->trace, job->model == RC_MODEL_PAPER ? "paper" : "exact", job->duration_s,
           (unsigned long long)job->seed);
    printf("  multicasts %llu, deliveries %llu (online %llu), undelivered %llu, duplicates %llu\n",
           (unsigned long long)r->c.multicasts, (unsigned long long)r->c.deliveries,
           (unsigned long long)r->c.deliveries_online, (unsigned long long)r->c.undelivered,
           (unsigned long long)r->c.duplicates);
    printf("  latency (online-only, s): mean %.3f  p1 %.3f  p25 %.3f  median %.3f  p75 %.3f  "
           "p90 %.3f  p99 %.3f  max %.3f\n",
           s->mean_s, s->q[0], s->q[3], s->q[4], s->q[5], s->q[6], s->q[8], s->max_s);
    printf("  packets: payload %llu, ack %llu, bundles %llu; reassignments %llu, timeouts %llu\n",
           (unsigned long long)r->c.payload_packets, (unsigned long long)r->c.ack_packets,
           (unsigned long long)r->c.bundles, (unsigned long long)r->c.reassignments,
           (unsigned long long)r->c.timeouts);
    printf("  %llu events in %.3f s wall (%.2f M events/s), peak RSS %llu MiB\n",
           (unsigned long long)r->c.events, r->c.wall_s,
           r->c.wall_s > 0 ? (double)r->c.events / r->c.wall_s / 1e6 : 0.0,
           (unsigned long long)(r->c.peak_rss_kb / 1024));
}

static void json_num(FILE *f, const char *k, double v, bool comma)
{
    if (isfinite(v)) fprintf(f, "\"%s\":%.6f%s", k, v, comma ? "," : "");
    else fprintf(f, "\"%s\":null%s", k, comma ? "," : "");
}

static void print_json(const rc_job *job, const rc_result *r)
{
    char id[17];
    rc_job_id_hex(r->job_id, id);
    const rc_summary *s = &r->online;
    printf("{\"job_id\":\"%s\",\"strategy\":\"%s\",\"users\":%d,\"group_size\":%d,\"groups\":%d,"
           "\"trace\":\"%s\",\"model\":\"%s\",\"seed\":%llu,\"duration_s\":%.3f,",
           id, job->strategy, job->users, rc_job_group_size(job), job->groups, job->trace,
           job->model == RC_MODEL_PAPER ? "paper" : "exact", (unsigned long long)job->seed,
           job->duration_s);
    printf("\"deliveries\":%llu,\"deliveries_all\":%llu,\"multicasts\":%llu,\"undelivered\":%llu,"
           "\"duplicates\":%llu,\"payload_packets\":%llu,\"ack_packets\":%llu,"
           "\"reassignments\":%llu,\"timeouts\":%llu,\"repair_packets\":%llu,\"repairs\":%llu,"
           "\"joins\":%llu,\"leaves\":%llu,\"expected_deliveries\":%llu,",
           (unsigned long long)s->count, (unsigned long long)r->c.deliveries,
           (unsigned long long)r->c.multicasts, (unsigned long long)r->c.undelivered,
           (unsigned long long)r->c.duplicates, (unsigned long long)r->c.payload_packets,
           (unsigned long long)r->c.ack_packets, (unsigned long long)r->c.reassignments,
           (unsigned long long)r->c.timeouts, (unsigned long long)r->c.repair_packets,
           (unsigned long long)r->c.repairs, (unsigned long long)r->c.joins,
           (unsigned long long)r->c.leaves, (unsigned long long)r->c.expected_deliveries);
    json_num(stdout, "mean_s", s->mean_s, true);
    json_num(stdout, "p1_s", s->q[0], true);
    json_num(stdout, "p25_s", s->q[3], true);
    json_num(stdout, "median_s", s->q[4], true);
    json_num(stdout, "p75_s", s->q[5], true);
    json_num(stdout, "p90_s", s->q[6], true);
    json_num(stdout, "p99_s", s->q[8], true);
    json_num(stdout, "max_s", s->max_s, true);
    if (job->source_offline[0])
        printf("\"so_expected\":%llu,\"so_delivered\":%llu,\"so_latency_mean_s\":%.3f,"
               "\"so_latency_max_s\":%.3f,",
               (unsigned long long)r->c.so_expected, (unsigned long long)r->c.so_delivered,
               r->c.so_delivered ? (double)r->c.so_latency_sum_ms / 1e3 / (double)r->c.so_delivered
                                 : 0.0,
               (double)r->c.so_latency_max_ms / 1e3);
    printf("\"events\":%llu,", (unsigned long long)r->c.events);
    json_num(stdout, "wall_s", r->c.wall_s, true);
    printf("\"peak_rss_kb\":%llu}\n", (unsigned long long)r->c.peak_rss_kb);
}

int rc_cmd_run(int argc, char **argv)
{
    rc_job job;
    rc_job_defaults(&job);
    const char *env_dir = getenv("RCSIM_DATA_DIR");
    if (env_dir && strlen(env_dir) < sizeof job.data_dir) strcpy(job.data_dir, env_dir);
    bool json = false, quiet = false;
    const char *out_path = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(a, "--json")) { json = true; continue; }
        if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) { quiet = true; continue; }
        if (strncmp(a, "--", 2) != 0) {
            fprintf(stderr, "rcsim run: unexpected argument '%s' (try --help)\n", a);
            return RC_EXIT_USAGE;
        }
        char name[128];
        const char *val = NULL;
        const char *eq = strchr(a + 2, '=');
        size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
        if (len >= sizeof name) len = sizeof name - 1;
        memcpy(name, a + 2, len);
        name[len] = '\0';
        if (eq) val = eq + 1;
        if (!strcmp(name, "out")) {
            if (!val) {
                if (i + 1 >= argc) {
                    fprintf(stderr, "rcsim run: --out needs a file name\n");
                    return RC_EXIT_USAGE;
                }
                val = argv[++i];
            }
            out_path = val;
            continue;
        }
        const rc_param_def *d = rc_param_find(name);
        if (d == NULL) {
            fprintf(stderr, "rcsim run: unknown option '--%s' (try --help)\n", name);
            return RC_EXIT_USAGE;
        }
        if (!val) {
            if (d->type == RC_PT_BOOL && (i + 1 >= argc || strncmp(argv[i + 1], "--", 2) == 0)) {
                val = "true";
            } else {
                if (i + 1 >= argc) {
                    fprintf(stderr, "rcsim run: option '--%s' needs a value\n", name);
                    return RC_EXIT_USAGE;
                }
                val = argv[++i];
            }
        }
        rc_err err = {0};
        if (rc_param_set(&job, d, val, &err) != 0) {
            /* The message starts with the registry name; show the option as typed. */
            size_t klen = strlen(d->name);
            const char *rest = strncmp(err.msg, d->name, klen) == 0 ? err.msg + klen : err.msg;
            fprintf(stderr, "rcsim run: --%s%s\n", name, rest);
            return RC_EXIT_USAGE;
        }
    }
    rc_job_resolve(&job);
    rc_err err = {0};
    if (rc_job_validate(&job, &err) != 0) {
        fprintf(stderr, "rcsim run: %s\n", err.msg);
        return RC_EXIT_USAGE;
    }
    if (out_path) {
        /* Fail before simulating if the file cannot be written there. */
        char dir[4096];
        snprintf(dir, sizeof dir, "%s", out_path);
        char *slash = strrchr(dir, '/');
        if (slash == NULL) strcpy(dir, ".");
        else if (slash == dir) dir[1] = '\0';
        else *slash = '\0';
        if (access(dir, W_OK) != 0) {
            fprintf(stderr, "rcsim run: --out %s: directory %s is not writable (%s)\n", out_path,
                    dir, strerror(errno));
            return RC_EXIT_USAGE;
        }
    }
    rc_result res;
    int rc = rc_run_job(&job, &res, NULL, NULL, &err);
    if (rc != 0) {
        fprintf(stderr, "rcsim run: %s\n", err.msg);
        return rc;
    }
    if (!quiet && !json) print_human(&job, &res);
    if (json) print_json(&job, &res);
    if (out_path) {
        rc = write_out(out_path, &job, &res, &err);
        if (rc != 0) fprintf(stderr, "rcsim run: %s\n", err.msg);
    }
    rc_result_free(&res);
    return rc;
}
