/* Links and paths (docs/spec.md §1.16, §1.17): a fixed link latency adds
 * exactly its sum over the path to every message's time in the network, the
 * random draws unchanged; a link map's latencies are what the observed wire
 * shows on every link; each topology's routes; the map file's errors. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/sim.h"
#include "exp/job.h"
#include "loopix/linkmap.h"
#include "loopix/net.h"

enum { SENDS = 3000, USERS = 48 };

typedef struct rec {
    rc_time emitted[SENDS], arrived[SENDS], delivered[SENDS];
    int n_arrived, n_delivered;
} rec;

static rec R;

static void h_sent(void *c, uint32_t u, uint32_t b, rc_time now) { (void)c, (void)u, (void)b, (void)now; }
static void h_online(void *c, uint32_t u, bool on, rc_time now) { (void)c, (void)u, (void)on, (void)now; }
static void h_deliver(void *c, uint32_t u, uint32_t b, bool online, rc_time now)
{
    (void)c, (void)u, (void)online;
    R.delivered[b] = now;
    R.n_delivered++;
}
static void h_arrived(void *c, uint32_t u, uint32_t b, rc_time emitted, rc_time now)
{
    (void)c, (void)u;
    R.emitted[b] = emitted;
    R.arrived[b] = now;
    R.n_arrived++;
}

/* One run of SENDS messages between USERS clients (model: 1 = as a job, 2 =
 * population model 2's summed path); R holds what happened. */
static void run(rc_job *job, int model, const rc_linkmap *map)
{
    memset(&R, 0, sizeof R);
    for (int i = 0; i < SENDS; i++) R.delivered[i] = -1;
    rc_job_resolve(job);
    rc_sim sim;
    rc_sim_init(&sim, (rc_time)4000 * 1000000);
    rc_net_cfg cfg;
    rc_job_net_cfg(job, &cfg);
    cfg.aggregate_cover = model >= 2;
    cfg.link_map = map;
    rc_net_hooks h = {NULL, h_sent, h_deliver, h_online, h_arrived, NULL, NULL, NULL};
    rc_net *n = rc_net_new(&sim, &cfg, NULL, 1, NULL, h);
    rc_net_start(n);
    for (uint32_t i = 0; i < SENDS; i++) rc_net_send(n, i % USERS, (i * 7 + 3) % USERS, i);
    rc_sim_run(&sim, NULL, NULL, 0);
    rc_net_free(n);
    rc_sim_free(&sim);
}

static void base_job(rc_job *job, bool lattice)
{
    rc_job_defaults(job);
    job->users = USERS;
    job->seed = 5;
    job->model = lattice ? RC_MODEL_PAPER : RC_MODEL_EXACT;
}

/* Every message's time from its sender to its recipient's postbox grows by
 * exactly (layers + 2) x D: the client's link, the provider's to the first
 * layer, layers - 1 between mixes and the last mix's to the recipient's
 * provider; a pull hands a message over at least one more D after that. */
static void check_fixed(bool lattice, int model, double d_s, rc_time d_us)
{
    static rec base;
    rc_job job;
    base_job(&job, lattice);
    run(&job, model, NULL);
    base = R;
    base_job(&job, lattice);
    job.link_latency_s = d_s;
    run(&job, model, NULL);
    cr_assert_eq(base.n_arrived, SENDS);
    cr_assert_eq(R.n_arrived, SENDS);
    rc_time path = (rc_time)(job.mix_layers + 2) * d_us;
    for (int i = 0; i < SENDS; i++) {
        cr_assert_eq(R.emitted[i], base.emitted[i], "message %d left at another time", i);
        cr_assert_eq(R.arrived[i] - R.emitted[i], base.arrived[i] - base.emitted[i] + path,
                     "message %d: %lld us with links, %lld without, path %lld", i,
                     (long long)(R.arrived[i] - R.emitted[i]),
                     (long long)(base.arrived[i] - base.emitted[i]), (long long)path);
        if (R.delivered[i] >= 0)
            cr_assert_geq(R.delivered[i], R.arrived[i] + d_us, "message %d pulled too early", i);
    }
    cr_assert_gt(R.n_delivered, SENDS * 9 / 10);
}

Test(links, fixed_latency_adds_its_sum_exact_model) { check_fixed(false, 1, 0.073, 73000); }

/* Nodes that mix (docs/spec.md §1.15) move packets hop by hop, each crossing
 * its link before it queues at the next node.  Timed mixes of period T, one
 * per layer, no delay at the providers and no service: a message's time is
 * its links plus the waits for the flush instants, and a link of D = 2T moves
 * every arrival and so every flush it meets by exactly D, so every message's
 * time grows by exactly (layers + 2) x D here too. */
Test(links, fixed_latency_adds_its_sum_through_timed_mixes)
{
    static rec base;
    for (int with = 0; with < 2; with++) {
        rc_job job;
        base_job(&job, false);
        job.mix_kind = RC_MIX_TIMED;
        job.mix_period_s = 0.05;
        job.mixes_per_layer = 1;
        job.quirks.ingress_delay = 0;
        job.link_latency_s = with ? 0.1 : 0;
        run(&job, 1, NULL);
        if (!with) base = R;
    }
    cr_assert_eq(base.n_arrived, SENDS);
    cr_assert_eq(R.n_arrived, SENDS);
    rc_time path = 5 * 100000;
    for (int i = 0; i < SENDS; i++) {
        cr_assert_eq(R.emitted[i], base.emitted[i], "message %d left at another time", i);
        cr_assert_eq(R.arrived[i] - R.emitted[i], base.arrived[i] - base.emitted[i] + path,
                     "message %d: %lld us with links, %lld without", i,
                     (long long)(R.arrived[i] - R.emitted[i]),
                     (long long)(base.arrived[i] - base.emitted[i]));
        if (R.delivered[i] >= 0) cr_assert_geq(R.delivered[i], R.arrived[i] + 100000);
    }
}
/* on the lattice a link's latency is lifted to ticks: 73 ms -> 80 ms */
Test(links, fixed_latency_adds_its_sum_lattice) { check_fixed(true, 1, 0.073, 80000); }
Test(links, fixed_latency_adds_its_sum_population_model_2) { check_fixed(false, 2, 0.05, 50000); }

/* ---------- a link map, seen on the observed wire ---------- */

static const char *MAP =
    "# two regions, illustrative numbers\n"
    "region,eu\nregion,us\n"
    "latency,eu,eu,7\n"
    "latency,eu,us,45\n"
    "latency,us,eu,55   # not symmetric on purpose\n"
    "latency,us,us,11\n"
    "place,provider,0,us\n"
    "place,mix,4,us\n";

static char *write_tmp(const char *text)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/rcsim_links_XXXXXX");
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

typedef struct wobs {
    rc_net *net;
    uint32_t users, upp, providers, layers, width;
    long links, checked_pull, bad;
    /* per bundle: its mixes in order */
    uint32_t (*path)[8];
    uint8_t *hops;
    uint64_t cap;
    uint32_t *loop_origin; /* per mix-loop packet id */
    rc_time *last_in;      /* per packet id: when its last link reached a node */
    long early;            /* links that left a node before the packet reached it */
} wobs;

/* The region of a node as the map says, computed here from the test's own
 * reading of MAP: provider 0 and mix 4 in us, others index mod 2, clients
 * with their provider. */
static int region_of(const wobs *w, uint32_t node)
{
    if (node < w->users) node = w->users + node / w->upp;
    if (node < w->users + w->providers) {
        uint32_t p = node - w->users;
        return p == 0 ? 1 : (int)(p % 2);
    }
    uint32_t m = node - w->users - w->providers;
    return m == 4 ? 1 : (int)(m % 2);
}

static rc_time map_lat(const wobs *w, uint32_t a, uint32_t b)
{
    static const rc_time ms[2][2] = {{7, 45}, {55, 11}};
    return ms[region_of(w, a)][region_of(w, b)] * 1000;
}

static void on_link(void *ctx, const rc_wire_link *l)
{
    wobs *w = ctx;
    if (l->kind == RC_WIRE_CREATE) {
        if (l->packet < w->cap) w->loop_origin[l->packet] = l->from;
        return;
    }
    if (l->kind == RC_WIRE_END) return;
    w->links++;
    if (l->received - l->sent != map_lat(w, l->from, l->to)) w->bad++;
    if (l->kind == RC_WIRE_PULL) w->checked_pull++;
    if (l->kind == RC_WIRE_LINK && l->packet < w->cap) {
        if (l->sent < w->last_in[l->packet]) w->early++;
        w->last_in[l->packet] = l->received;
    }
    uint32_t first = w->users + w->providers;
    if (l->kind == RC_WIRE_LINK && l->to >= first && l->packet < w->cap) {
        uint8_t *k = &w->hops[l->packet];
        if (*k < 8) w->path[l->packet][*k] = l->to - first;
        (*k)++;
    }
}

static wobs W;

/* A run with the wire observed (cover full) under `topology`, with MAP or a
 * fixed latency, the mixes Poisson (nodes 0) or nodes that serve and batch
 * (nodes 1: threshold mixes of 4 and service at every node, so packets go
 * hop by hop through loopix/node.c); W holds what was seen. */
static void run_observed_nodes(int topology, bool map, int nodes)
{
    rc_job job;
    rc_job_defaults(&job);
    job.users = USERS;
    job.users_per_provider = 8;
    job.seed = 9;
    job.cover = RC_COVER_FULL;
    job.topology = topology;
    if (nodes) {
        job.mix_kind = RC_MIX_THRESHOLD;
        job.mix_threshold = 4;
        job.node_service = RC_SERVICE_SERVE;
        job.mix_capacity = 5000;
        job.provider_capacity = 5000;
    }
    rc_job_resolve(&job);
    rc_err err = {0};
    rc_linkmap *m = NULL;
    if (map) {
        m = rc_linkmap_load(write_tmp(MAP), &err);
        cr_assert_not_null(m, "%s", err.msg);
    }
    rc_sim sim;
    rc_sim_init(&sim, (rc_time)60 * 1000000);
    rc_net_cfg cfg;
    rc_job_net_cfg(&job, &cfg);
    cfg.link_map = m;
    rc_net_hooks h = {NULL, h_sent, h_deliver, h_online, h_arrived, NULL, NULL, NULL};
    memset(&R, 0, sizeof R);
    rc_net *n = rc_net_new(&sim, &cfg, NULL, 1, NULL, h);
    free(W.path), free(W.hops), free(W.loop_origin), free(W.last_in);
    memset(&W, 0, sizeof W);
    W.net = n;
    W.users = USERS;
    W.upp = 8;
    W.providers = rc_net_providers(n);
    W.layers = rc_net_mix_layers(n);
    W.width = rc_net_mixes_per_layer(n);
    W.cap = 1u << 22;
    W.path = calloc(W.cap, sizeof *W.path);
    W.hops = calloc(W.cap, 1);
    W.loop_origin = calloc(W.cap, sizeof *W.loop_origin);
    W.last_in = calloc(W.cap, sizeof *W.last_in);
    for (uint64_t i = 0; i < W.cap; i++) W.loop_origin[i] = UINT32_MAX;
    rc_net_observe(n, (rc_net_wire){&W, on_link, NULL});
    rc_net_start(n);
    for (uint32_t i = 0; i < 500; i++) rc_net_send(n, i % USERS, (i * 7 + 3) % USERS, i);
    rc_sim_run(&sim, NULL, NULL, 0);
    rc_net_free(n);
    rc_sim_free(&sim);
    rc_linkmap_free(m);
}

static void run_observed(int topology, bool map) { run_observed_nodes(topology, map, 0); }

Test(links, every_observed_link_takes_its_region_pairs_latency)
{
    run_observed(RC_TOPO_STRATIFIED, true);
    cr_assert_gt(W.links, 10000);
    cr_assert_gt(W.checked_pull, 100);
    cr_assert_eq(W.bad, 0, "%ld of %ld links took another latency", W.bad, W.links);
    cr_assert_eq(W.early, 0);
}

/* Through nodes that serve and batch, every link takes its latency and a
 * packet leaves a node only after it has reached it: it crosses the link,
 * then queues and mixes at the next node. */
Test(links, serving_batching_nodes_take_every_links_latency)
{
    run_observed_nodes(RC_TOPO_STRATIFIED, true, 1);
    cr_assert_gt(W.links, 10000);
    cr_assert_gt(W.checked_pull, 100);
    cr_assert_eq(W.bad, 0, "%ld of %ld links took another latency", W.bad, W.links);
    cr_assert_eq(W.early, 0, "%ld links left a node before the packet reached it", W.early);
}

/* hop h of every path through the mixes, by topology */
static void check_routes_nodes(int topology, int nodes)
{
    run_observed_nodes(topology, true, nodes);
    long paths = 0, off_layer = 0, loops = 0;
    uint32_t chains_seen = 0;
    for (uint64_t p = 0; p < W.cap; p++) {
        if (W.hops[p] == 0) continue;
        bool loop = W.loop_origin[p] != UINT32_MAX;
        if (loop) {
            /* a mix loop: in a cascade it stays on its origin's chain */
            loops++;
            uint32_t chain = (W.loop_origin[p] - W.users - W.providers) % W.width;
            uint32_t own = W.loop_origin[p] - W.users - W.providers;
            for (int k = 0; k < W.hops[p] && k < 8; k++) {
                if (topology == RC_TOPO_CASCADE)
                    cr_assert_eq(W.path[p][k] % W.width, chain, "loop %lu left its chain",
                                 (unsigned long)p);
                /* only its last mix hop is its own mix: it ends there */
                if (k + 1 < W.hops[p])
                    cr_assert_neq(W.path[p][k], own, "loop %lu passed its own mix",
                                  (unsigned long)p);
            }
            continue;
        }
        /* (through nodes, a packet still held at the end has made fewer) */
        if (nodes) cr_assert_leq(W.hops[p], W.layers, "packet %lu made %u hops", (unsigned long)p, W.hops[p]);
        else cr_assert_eq(W.hops[p], W.layers, "packet %lu made %u hops", (unsigned long)p, W.hops[p]);
        if (W.hops[p] < W.layers) continue;
        paths++;
        for (uint32_t k = 0; k < W.layers; k++) {
            uint32_t m = W.path[p][k];
            if (m / W.width != k) off_layer++;
            if (topology != RC_TOPO_FREE_ROUTE)
                cr_assert_eq(m / W.width, k, "hop %u went to layer %u", k, m / W.width);
            if (topology == RC_TOPO_CASCADE)
                cr_assert_eq(m % W.width, W.path[p][0] % W.width, "hop %u left its chain", k);
        }
        chains_seen |= 1u << (W.path[p][0] % W.width);
    }
    cr_assert_gt(paths, 1000);
    cr_assert_gt(loops, 100);
    cr_assert_eq(chains_seen, (1u << W.width) - 1, "every first-hop index is used");
    if (topology == RC_TOPO_FREE_ROUTE) /* uniform over all mixes: 2/3 of hops off layer */
        cr_assert(off_layer > paths * (long)W.layers / 2, "%ld of %ld hops off their layer",
                  off_layer, paths * (long)W.layers);
    cr_assert_eq(W.bad, 0, "%ld links took another latency", W.bad);
    cr_assert_eq(W.early, 0, "%ld links left a node before the packet reached it", W.early);
}

static void check_routes(int topology) { check_routes_nodes(topology, 0); }

Test(links, stratified_routes) { check_routes(RC_TOPO_STRATIFIED); }
Test(links, cascade_routes) { check_routes(RC_TOPO_CASCADE); }
Test(links, free_route_routes) { check_routes(RC_TOPO_FREE_ROUTE); }
Test(links, stratified_routes_through_nodes) { check_routes_nodes(RC_TOPO_STRATIFIED, 1); }
Test(links, cascade_routes_through_nodes) { check_routes_nodes(RC_TOPO_CASCADE, 1); }
Test(links, free_route_routes_through_nodes) { check_routes_nodes(RC_TOPO_FREE_ROUTE, 1); }

/* ---------- the file's errors ---------- */

static void bad_file(const char *text, const char *want)
{
    char *path = write_tmp(text);
    rc_err err = {0};
    rc_linkmap *m = rc_linkmap_load(path, &err);
    cr_assert_null(m, "accepted: %s", text);
    cr_assert_eq(err.code, RC_EXIT_USAGE);
    cr_assert(strstr(err.msg, path) != NULL, "no file name in: %s", err.msg);
    cr_assert(strstr(err.msg, want) != NULL, "wanted '%s' in: %s", want, err.msg);
    unlink(path);
}

Test(links, file_errors_name_file_line_and_field)
{
    bad_file("region,eu\nlatency,eu,eu,x\n", ":2: field 4 (ms): 'x'");
    bad_file("region,eu\nlatency,eu,eu,-3\n", ":2: field 4 (ms): '-3'");
    bad_file("region,eu\n\n# c\nlatency,eu,mars,3\n", ":4: field 3 (region): 'mars'");
    bad_file("region,eu\nlatency,eu,eu,3\nplace,router,0,eu\n", ":3: field 2 (kind): 'router'");
    bad_file("region,eu\nlatency,eu,eu,3\nplace,mix,a,eu\n", ":3: field 3 (index): 'a'");
    bad_file("region,eu\nlatency,eu,eu,3\nplace,mix,1\n", ":3: 'place' takes 4 fields, found 3");
    bad_file("region,eu\nregion,eu\n", ":2: field 2 (name): region 'eu' declared twice");
    bad_file("regio,eu\n", ":1: field 1 (record): 'regio'");
    bad_file("region,eu\nregion,us\nlatency,eu,eu,1\nlatency,us,us,1\n",
             "no latency between regions eu and us");
    bad_file("# nothing\n", "declares no region");
    bad_file("region,eu\nlatency,eu,eu,1\nlatency,eu,eu,2\n", ":3: latency eu,eu given twice");
    rc_err err = {0};
    cr_assert_null(rc_linkmap_load("/nonexistent/links.csv", &err));
    cr_assert(strstr(err.msg, "/nonexistent/links.csv") != NULL, "%s", err.msg);
}

Test(links, placements_beyond_the_network_are_refused)
{
    char *path = write_tmp("region,eu\nlatency,eu,eu,3\n\nplace,mix,9,eu\n");
    rc_err err = {0};
    rc_linkmap *m = rc_linkmap_load(path, &err);
    cr_assert_not_null(m, "%s", err.msg);
    cr_assert_eq(rc_linkmap_check(m, 8, 9, &err), RC_EXIT_USAGE);
    cr_assert(strstr(err.msg, ":4: field 3 (index): mix 9, but the network has 9") != NULL, "%s",
              err.msg);
    cr_assert_eq(rc_linkmap_check(m, 8, 10, &err), 0);
    rc_linkmap_free(m);
    unlink(path);
}

/* RC-FT's timeout counts a path's links (docs/spec.md §2.4): layers + 3 links of the
 * longest latency, the fixed one or the map's largest pair; none without links. */
Test(links, path_link_latency_for_rc_ft_timeouts)
{
    for (int c = 0; c < 3; c++) {
        rc_job job;
        base_job(&job, false);
        job.link_latency_s = c == 1 ? 0.15 : 0;
        rc_job_resolve(&job);
        rc_err err = {0};
        rc_linkmap *m = c == 2 ? rc_linkmap_load(write_tmp(MAP), &err) : NULL;
        rc_sim sim;
        rc_sim_init(&sim, 1000000);
        rc_net_cfg cfg;
        rc_job_net_cfg(&job, &cfg);
        cfg.link_map = m;
        rc_net_hooks h = {NULL, h_sent, h_deliver, h_online, h_arrived, NULL, NULL, NULL};
        rc_net *n = rc_net_new(&sim, &cfg, NULL, 1, NULL, h);
        double want = c == 0 ? 0 : c == 1 ? 6 * 0.15 : 6 * 0.055;
        cr_assert_float_eq(rc_net_path_link_latency_s(n), want, 1e-12, "case %d: %g", c,
                           rc_net_path_link_latency_s(n));
        rc_net_free(n);
        rc_sim_free(&sim);
        rc_linkmap_free(m);
    }
}
