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
#include "multicast/adversary.h"
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
    rc_h5out_sweep sw = {"run", "", canon, r->job_id};
    rc_h5out *h = rc_h5out_open(tmp, &sw, err);
    if (h == NULL) return err->code ? err->code : RC_EXIT_RUNTIME;
    char host[256] = "unknown";
    gethostname(host, sizeof host);
    rc_h5out_prov prov = {host, 0, (double)time(NULL)};
    int rc = rc_h5out_begin(h, err);
    if (rc == 0) rc = rc_h5out_write_job(h, job, r, &prov, err);
    int rc2 = rc_h5out_end(h, err);
    rc_h5out_close(h, rc ? NULL : err);
    if (rc == 0) rc = rc2;
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
            "  %-24s this help; --help strategies: strategy names in full\n\n"
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

/* `--help strategies`: the grammar of strategy names, which the parameter's
 * one-line help points to (multicast/strategy_name.h parses them). */
static void help_strategies(FILE *out)
{
    fprintf(out,
            "Strategies: the `strategy` parameter (--strategy NAME on `rcsim run`, strategy:\n"
            "in a sweep file's defaults or axes).\n\n"
            "  unicast              sequential unicast: the sender queues one copy per member\n"
            "                       on its own send queue, in group order (docs/spec.md §2.2)\n"
            "  rc-kK-pP             Rollercoaster (docs/spec.md §2.3): the members form a\n"
            "                       schedule tree of branching factor K, and each recipient\n"
            "                       forwards to its children; P is the parallelism, the number\n"
            "                       of sub-messages one packet carries (-pP may be left out:\n"
            "                       P = 1).  No ACKs and no timeouts.  K, P: integers 1..4096\n"
            "  rc-kK-pP-ft          fault tolerant (RC-FT, docs/spec.md §2.4): recipients ACK,\n"
            "                       and a role whose ACK is late is reassigned; the timeout is\n"
            "                       the estimate times the multiplier 1.0\n"
            "  rc-kK-pP-ftM         RC-FT with timeout multiplier M, a number in (0, 1000]\n"
            "                       (rc-k2-p2-ft1.5)\n"
            "  ...-dropoffline      a member that received its copy while offline neither\n"
            "                       forwards nor ACKs it (under RC-FT the source reassigns\n"
            "                       its role); goes last: rc-k2-p2-ft-dropoffline\n\n"
            "The reference simulator's names work too:\n"
            "  rollercoaster-kK-pP[-notimeout|-timeoutNNx][-dropoffline]\n"
            "with timeoutNNx = RC-FT with multiplier NN/10, e.g.\n"
            "  rollercoaster-k2-p2-timeout10x-dropoffline = rc-k2-p2-ft-dropoffline.\n"
            "Results files and tables use the short form (rc-k2-p2-ft1.5-dropoffline).\n\n"
            "Related parameters: --rc-base-delay-factor (the RC-FT timeout estimate) and the\n"
            "quirks --q-arm-once, --q-acks-always, --q-nonce0-plain, --q-nonce-perm\n"
            "(rcsim run --help lists them).\n");
}

int rc_help_topic(const char *topic, FILE *out)
{
    if (!strcmp(topic, "strategies") || !strcmp(topic, "strategy")) {
        help_strategies(out);
        return RC_EXIT_OK;
    }
    fprintf(stderr, "rcsim: no help topic '%s' (topics: strategies)\n", topic);
    return RC_EXIT_USAGE;
}

static void print_human(const rc_job *job, const rc_result *r)
{
    const rc_summary *s = &r->online;
    printf("rcsim %s: %s, %d users, group %d x %d, trace %s, model %s, %.0f s simulated, seed %llu\n",
           RCSIM_VERSION, job->strategy, job->users, job->groups, rc_job_group_size(job),
           job->trace, job->model == RC_MODEL_PAPER ? "paper" : "exact", job->duration_s,
           (unsigned long long)job->seed);
    if (r->n_sizes > 0) {
        rc_load_summary l;
        rc_result_load_summary(r, &l);
        printf("  population %d in %d groups of sizes %s; groups per user mean %.1f, max %.0f "
               "(%llu in none); sub-messages sent per user mean %.0f, p99 %.0f, max %.0f\n",
               job->population, job->groups, job->group_size_dist, l.groups_mean, l.groups_max,
               (unsigned long long)l.without_group, l.sent_mean, l.sent_p99, l.sent_max);
        printf("  median online latency by group size (s):");
        for (uint32_t i = 0; i < r->n_sizes; i++)
            printf(" %llu-%llu: %.2f", (unsigned long long)r->sizes[i].lo,
                   (unsigned long long)r->sizes[i].hi, r->sizes[i].online.q[4]);
        printf("\n");
    }
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
    if (job->adversary != RC_ADV_NONE)
        printf("  adversaries %llu: withheld %llu copies, %llu ACKs; faked %llu ACKs; delayed %llu\n",
               (unsigned long long)r->c.adv_members, (unsigned long long)r->c.adv_withheld,
               (unsigned long long)r->c.adv_acks_withheld,
               (unsigned long long)r->c.adv_acks_faked, (unsigned long long)r->c.adv_delayed);
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

/* Population mode: latency by group size, and the per-user load. */
static void print_population_json(const rc_job *job, const rc_result *r)
{
    printf("\"population\":%d,\"group_size_dist\":\"%s\",\"size_buckets\":[", job->population,
           job->group_size_dist);
    for (uint32_t i = 0; i < r->n_sizes; i++) {
        const rc_size_bucket *b = &r->sizes[i];
        const rc_summary *s = &b->online;
        printf("%s{\"lo\":%llu,", i ? "," : "", (unsigned long long)b->lo);
        if (b->hi == UINT64_MAX) printf("\"hi\":null,");
        else printf("\"hi\":%llu,", (unsigned long long)b->hi);
        printf("\"groups\":%llu,\"multicasts\":%llu,\"expected\":%llu,\"deliveries\":%llu,"
               "\"undelivered\":%llu,\"online\":%llu,",
               (unsigned long long)b->groups, (unsigned long long)b->multicasts,
               (unsigned long long)b->expected, (unsigned long long)b->deliveries,
               (unsigned long long)b->undelivered, (unsigned long long)s->count);
        json_num(stdout, "mean_s", s->count ? s->mean_s : NAN, true);
        json_num(stdout, "median_s", s->count ? s->q[4] : NAN, true);
        json_num(stdout, "p90_s", s->count ? s->q[6] : NAN, true);
        json_num(stdout, "p99_s", s->count ? s->q[8] : NAN, false);
        printf("}");
    }
    rc_load_summary l;
    rc_result_load_summary(r, &l);
    printf("],\"user_load\":{\"users\":%llu,\"without_group\":%llu,", (unsigned long long)l.users,
           (unsigned long long)l.without_group);
    json_num(stdout, "sent_mean", l.sent_mean, true);
    json_num(stdout, "sent_median", l.sent_p50, true);
    json_num(stdout, "sent_p90", l.sent_p90, true);
    json_num(stdout, "sent_p99", l.sent_p99, true);
    json_num(stdout, "sent_max", l.sent_max, true);
    json_num(stdout, "groups_mean", l.groups_mean, true);
    json_num(stdout, "groups_median", l.groups_p50, true);
    json_num(stdout, "groups_p90", l.groups_p90, true);
    json_num(stdout, "groups_max", l.groups_max, false);
    printf("},");
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
    if (job->adversary != RC_ADV_NONE)
        printf("\"adv_members\":%llu,\"adv_withheld\":%llu,\"adv_acks_withheld\":%llu,"
               "\"adv_acks_faked\":%llu,\"adv_delayed\":%llu,",
               (unsigned long long)r->c.adv_members, (unsigned long long)r->c.adv_withheld,
               (unsigned long long)r->c.adv_acks_withheld, (unsigned long long)r->c.adv_acks_faked,
               (unsigned long long)r->c.adv_delayed);
    if (r->n_sizes > 0) print_population_json(job, r);
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
        if (!strncmp(a, "--help=", 7)) return rc_help_topic(a + 7, stdout);
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            /* `--help TOPIC` shows a topic; plain --help the options. */
            if (i + 1 < argc && argv[i + 1][0] != '-') return rc_help_topic(argv[i + 1], stdout);
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
