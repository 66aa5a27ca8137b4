/* rcsim run: one job from command-line options.  Every registry parameter is
 * an option (--users 128, --strategy rc-k2-p2, --duration 24h, ...). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "core/version.h"
#include "exp/param.h"
#include "exp/run.h"
#include "io/h5out.h"
#include "io/run_out.h"
#include "io/json.h"
#include "multicast/adversary.h"
#include "multicast/strategy_table.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: rcsim run [--PARAM VALUE ...] [--json] [--out FILE.h5 [--force]] [--quiet]\n\n"
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
            "  %-24s also write the job's results to an HDF5 file (docs/results-layout.md); an\n"
            "  %-24s existing FILE is replaced only if it is an earlier `rcsim run` file of the\n"
            "  %-24s same job; never a sweep's file, a locked or a non-HDF5 file (exit 2)\n"
            "  %-24s replace an earlier `rcsim run` file of another job\n"
            "  %-24s no human summary\n"
            "  %-24s this help; --help strategies: strategy names in full\n\n"
            "Strategies (families of the strategy table; rcsim strategies --json):\n",
            "--json", "--out FILE", "", "", "--force", "--quiet", "--help");
    size_t nf;
    const rc_strategy_family *const *fam = rc_strategy_families(&nf);
    for (size_t i = 0; i < nf; i++) fprintf(out, "  %-31s %s\n", fam[i]->pattern, fam[i]->summary);
    fprintf(out, "  The reference's names (rollercoaster-k2-p2-timeout10x-dropoffline) work too.\n\n"
                 "Models: --model exact (continuous-time Loopix, default) or --model paper (the\n"
                 "reference simulator's 10 ms lattice and quirks; every quirk also has its own\n"
                 "--q-* switch: auto follows the model).\n");
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
        printf("  population %d in %d groups of sizes %s (population model %d); groups per user "
               "mean %.1f, max %.0f (%llu in none); sub-messages sent per user mean %.0f, p99 "
               "%.0f, max %.0f\n",
               job->population, job->groups, job->group_size_dist, job->population_model,
               l.groups_mean, l.groups_max,
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
    printf("  bandwidth per client online: payload %.3f/s, cover %.3f/s%s, %.0f B/s; real share "
           "of payload slots %.3f; mix load mean %.1f/s, max %.1f/s (%d x %d mixes)\n",
           r->c.bw_payload_pps, r->c.bw_cover_pps, job->cover == RC_COVER_FULL ? "" : " (expected)",
           r->c.bw_bytes_per_client_s, r->c.bw_cover_used, r->c.bw_mix_load_mean_pps,
           r->c.bw_mix_load_max_pps, job->mix_layers, rc_job_mixes_per_layer(job));
    if (job->cover == RC_COVER_FULL)
        printf("  departures while active %.3f/s (%llu gaps), idle %.3f/s (%llu gaps), KS %.4f "
               "(5 %% critical %.4f); real messages per pull mean %.3f, max %.0f\n",
               r->c.unobs_active_rate_pps, (unsigned long long)r->c.unobs_active_gaps,
               r->c.unobs_idle_rate_pps, (unsigned long long)r->c.unobs_idle_gaps, r->c.unobs_ks,
               r->c.unobs_ks_crit05, r->c.unobs_real_per_pull_mean, r->c.unobs_real_per_pull_max);
    if (job->anonymity)
        printf("  anonymity (%llu tracked; %llu of the mixes and %llu of the providers corrupted): "
               "entropy mean %.3f bits, median %.3f, p5 %.3f; min-entropy mean %.3f; sender "
               "entropy mean %.3f; unlinkability epsilon mean %.3f, p95 %.3f, delta %.3f\n",
               (unsigned long long)r->c.anon_targets, (unsigned long long)r->c.anon_corrupt_mixes,
               (unsigned long long)r->c.anon_corrupt_providers, r->c.anon_entropy_mean_bits,
               r->c.anon_entropy_median_bits, r->c.anon_entropy_p5_bits,
               r->c.anon_min_entropy_mean_bits, r->c.anon_sender_entropy_mean_bits,
               r->c.anon_eps_mean, r->c.anon_eps_p95, r->c.anon_delta);
    printf("  %llu events in %.3f s wall (%.2f M events/s), peak RSS %llu MiB\n",
           (unsigned long long)r->c.events, r->c.wall_s,
           r->c.wall_s > 0 ? (double)r->c.events / r->c.wall_s / 1e6 : 0.0,
           (unsigned long long)(r->c.peak_rss_kb / 1024));
}

/* Population mode: latency by group size, and the per-user load. */
static void put_population(json_t *o, const rc_job *job, const rc_result *r)
{
    json_object_set_new(o, "population", json_integer(job->population));
    json_object_set_new(o, "group_size_dist", rc_json_str(job->group_size_dist));
    json_object_set_new(o, "population_model", json_integer(job->population_model));
    json_t *a = json_array();
    for (uint32_t i = 0; i < r->n_sizes; i++) {
        const rc_size_bucket *b = &r->sizes[i];
        const rc_summary *s = &b->online;
        json_t *e = json_object();
        json_object_set_new(e, "lo", rc_json_u64(b->lo));
        json_object_set_new(e, "hi", b->hi == UINT64_MAX ? json_null() : rc_json_u64(b->hi));
        json_object_set_new(e, "groups", rc_json_u64(b->groups));
        json_object_set_new(e, "multicasts", rc_json_u64(b->multicasts));
        json_object_set_new(e, "expected", rc_json_u64(b->expected));
        json_object_set_new(e, "deliveries", rc_json_u64(b->deliveries));
        json_object_set_new(e, "undelivered", rc_json_u64(b->undelivered));
        json_object_set_new(e, "online", rc_json_u64(s->count));
        json_object_set_new(e, "mean_s", rc_json_num(s->count ? s->mean_s : NAN, 6));
        json_object_set_new(e, "median_s", rc_json_num(s->count ? s->q[4] : NAN, 6));
        json_object_set_new(e, "p90_s", rc_json_num(s->count ? s->q[6] : NAN, 6));
        json_object_set_new(e, "p99_s", rc_json_num(s->count ? s->q[8] : NAN, 6));
        json_array_append_new(a, e);
    }
    json_object_set_new(o, "size_buckets", a);
    rc_load_summary l;
    rc_result_load_summary(r, &l);
    json_t *u = json_object();
    json_object_set_new(u, "users", rc_json_u64(l.users));
    json_object_set_new(u, "without_group", rc_json_u64(l.without_group));
    json_object_set_new(u, "sent_mean", rc_json_num(l.sent_mean, 3));
    json_object_set_new(u, "sent_median", rc_json_num(l.sent_p50, 3));
    json_object_set_new(u, "sent_p90", rc_json_num(l.sent_p90, 3));
    json_object_set_new(u, "sent_p99", rc_json_num(l.sent_p99, 3));
    json_object_set_new(u, "sent_max", rc_json_num(l.sent_max, 3));
    json_object_set_new(u, "groups_mean", rc_json_num(l.groups_mean, 3));
    json_object_set_new(u, "groups_median", rc_json_num(l.groups_p50, 3));
    json_object_set_new(u, "groups_p90", rc_json_num(l.groups_p90, 3));
    json_object_set_new(u, "groups_max", rc_json_num(l.groups_max, 3));
    json_object_set_new(o, "user_load", u);
}

/* When `rcsim run --json` prints a counter (the json column of multicast/counters.def). */
typedef enum {
    WHEN_ALWAYS, WHEN_IF_SO, WHEN_IF_ADV, WHEN_IF_ANON, WHEN_IF_SERVE, WHEN_IF_DISC, WHEN_LAST,
    WHEN_NEVER
} json_when;

/* The counters printed at `when`, in the list's order, under their json_key (never
 * the NEVER rows: nothing asks for WHEN_NEVER). */
static void put_counters(json_t *o, const rc_counters *c, json_when when)
{
#define RC_COUNTER(name, from, type, units, json, json_key)                                       \
    if (when == WHEN_##json && when != WHEN_NEVER)                                                 \
        json_object_set_new(o, json_key, JSON_##type(c->name));
#define JSON_U64(v) rc_json_u64(v)
#define JSON_F64(v) rc_json_num(v, 6)
#include "multicast/counters.def"
#undef JSON_U64
#undef JSON_F64
}

/* One line of JSON (io/json.h); keys and formats are what scripts parse. */
static void print_json(const rc_job *job, const rc_result *r)
{
    char id[17];
    rc_job_id_hex(r->job_id, id);
    const rc_summary *s = &r->online;
    json_t *o = json_object();
#define PUT(k, v) json_object_set_new(o, k, v)
    PUT("job_id", rc_json_str(id));
    PUT("strategy", rc_json_str(job->strategy));
    PUT("users", json_integer(job->users));
    PUT("group_size", json_integer(rc_job_group_size(job)));
    PUT("groups", json_integer(job->groups));
    PUT("trace", rc_json_str(job->trace));
    PUT("model", rc_json_str(job->model == RC_MODEL_PAPER ? "paper" : "exact"));
    PUT("seed", rc_json_u64(job->seed));
    PUT("duration_s", rc_json_num(job->duration_s, 3));
    PUT("deliveries", rc_json_u64(s->count));
    put_counters(o, &r->c, WHEN_ALWAYS);
    PUT("mean_s", rc_json_num(s->mean_s, 6));
    PUT("p1_s", rc_json_num(s->q[0], 6));
    PUT("p25_s", rc_json_num(s->q[3], 6));
    PUT("median_s", rc_json_num(s->q[4], 6));
    PUT("p75_s", rc_json_num(s->q[5], 6));
    PUT("p90_s", rc_json_num(s->q[6], 6));
    PUT("p99_s", rc_json_num(s->q[8], 6));
    PUT("max_s", rc_json_num(s->max_s, 6));
    if (job->source_offline[0]) {
        put_counters(o, &r->c, WHEN_IF_SO);
        PUT("so_latency_mean_s",
            rc_json_num(r->c.so_delivered
                            ? (double)r->c.so_latency_sum_ms / 1e3 / (double)r->c.so_delivered
                            : 0.0,
                        3));
        PUT("so_latency_max_s", rc_json_num((double)r->c.so_latency_max_ms / 1e3, 3));
    }
    if (job->adversary != RC_ADV_NONE) put_counters(o, &r->c, WHEN_IF_ADV);
    if (r->n_sizes > 0) put_population(o, job, r);
    PUT("packet_size", json_integer(job->packet_size)); /* bandwidth's bytes: docs/spec.md §1.12 */
    if (job->mixes_per_layer == RC_MIXES_AUTO) { /* sized with the load: docs/spec.md §1.13 */
        PUT("mix_capacity", rc_json_num(job->mix_capacity, 6));
        PUT("mix_layers", json_integer(job->mix_layers));
        PUT("mixes_per_layer", json_integer(rc_job_mixes_per_layer(job)));
    }
    if (job->anonymity) put_counters(o, &r->c, WHEN_IF_ANON);
    if (job->node_service == RC_SERVICE_SERVE) put_counters(o, &r->c, WHEN_IF_SERVE); /* §1.14 */
    if (job->disclosure) put_counters(o, &r->c, WHEN_IF_DISC);
    put_counters(o, &r->c, WHEN_LAST);
#undef PUT
    rc_json_print(stdout, o, JSON_COMPACT | RC_JSON_FIXED);
}

int rc_cmd_run(int argc, char **argv)
{
    rc_job job;
    rc_job_defaults(&job);
    const char *env_dir = getenv("RCSIM_DATA_DIR");
    if (env_dir && strlen(env_dir) < sizeof job.data_dir) strcpy(job.data_dir, env_dir);
    bool json = false, quiet = false, force = false;
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
        if (!strcmp(a, "--force")) { force = true; continue; }
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
    int rc;
    if (rc_job_validate(&job, &err) != 0) {
        fprintf(stderr, "rcsim run: %s\n", err.msg);
        return RC_EXIT_USAGE;
    }
    /* Fail before simulating if the file cannot be written there. */
    if (out_path && rc_h5out_check_dir(out_path, &err) != 0) {
        fprintf(stderr, "rcsim run: --out %s: %s\n", out_path, err.msg);
        return RC_EXIT_USAGE;
    }
    /* Bound before the run so that --out's canonical text and trace_* attributes
     * name the trace's content, not its spelling (rc_run_job binds its own copy,
     * so the printed job id names it either way; only --out pays the second read). */
    if (out_path != NULL && (rc = rc_job_bind_trace_file(&job, &err)) != 0) {
        fprintf(stderr, "rcsim run: %s\n", err.msg);
        return rc;
    }
    /* What is at --out may be replaced, checked (and locked) before simulating
     * (io/run_out.h). */
    rc_run_out ro = {0};
    if (out_path != NULL && (rc = rc_run_out_claim(out_path, rc_job_id(&job), force, &ro, &err)) != 0) {
        fprintf(stderr, "rcsim run: %s\n", err.msg);
        return rc;
    }
    rc_result res;
    rc = rc_run_job(&job, &res, NULL, NULL, &err);
    if (rc == RC_JOB_TRACE_CHANGED) rc = RC_EXIT_USAGE;
    if (rc != 0) {
        fprintf(stderr, "rcsim run: %s\n", err.msg);
        rc_run_out_release(&ro);
        return rc;
    }
    if (!quiet && !json) print_human(&job, &res);
    if (json) print_json(&job, &res);
    if (out_path) {
        rc = rc_h5out_write_job(ro.path, &job, &res, &err);
        if (rc != 0) fprintf(stderr, "rcsim run: %s\n", err.msg);
    }
    rc_run_out_release(&ro);
    rc_result_free(&res);
    return rc;
}
