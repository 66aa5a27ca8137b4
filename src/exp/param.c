#include "exp/param.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "multicast/strategy_table.h"

#define OFF(f) offsetof(rc_job, f)
#define SZ(f) sizeof(((rc_job *)0)->f)
#define C RC_PF_CANON
#define A RC_PF_AXIS
#define N RC_PF_CANON_NONDEF
#define BIG 1e18

/* The strategy parameter's help lists the strategy table's patterns
 * (multicast/strategy_table.h), filled in before the table is first read. */
static char strategy_help[512];

static void generate_help(void)
{
    if (strategy_help[0] != '\0') return;
    size_t nf, used = 0;
    const rc_strategy_family *const *f = rc_strategy_families(&nf);
    used += (size_t)snprintf(strategy_help, sizeof strategy_help, "multicast strategy: ");
    for (size_t i = 0; i < nf && used < sizeof strategy_help; i++)
        used += (size_t)snprintf(strategy_help + used, sizeof strategy_help - used, "%s%s",
                                 i ? " | " : "", f[i]->pattern);
    if (used < sizeof strategy_help)
        snprintf(strategy_help + used, sizeof strategy_help - used, " (see --help strategies)");
}

/* Defaults are the paper's values (docs/spec.md §1.3, §3); the model defaults to exact. */
static const rc_param_def table[] = {
    {"users", RC_PT_INT, OFF(users), 0, "128", 2, 1 << 20, "", NULL, C | A,
     "number of users (clients) in the population, m"},
    {"group_size", RC_PT_INT, OFF(group_size), 0, "0", 0, 1 << 20, "", NULL, C | A,
     "members per group, sampled from the users (0 = all users)"},
    {"groups", RC_PT_INT, OFF(groups), 0, "1", 1, 1 << 24, "", NULL, C | A,
     "number of groups over the same population (a user may be in several)"},
    {"strategy", RC_PT_STRING, OFF(strategy), SZ(strategy), "unicast", 0, 0, "", NULL, C | A,
     strategy_help /* from the strategy table: generate_help */},
    {"burst", RC_PT_INT, OFF(burst), 0, "1", 1, 100000, "", NULL, C | A,
     "multicasts a sender starts per app event (multi-message workload)"},
    {"app_rate", RC_PT_DOUBLE, OFF(app_rate), 0, "1/30", 0, 1e6, "1/s", NULL,
     C | A, "group events per second, per group (paper: 1/30)"},
    {"heavy_fraction", RC_PT_DOUBLE, OFF(heavy_fraction), 0, "0.2", 0, 1, "", NULL, C | A,
     "fraction of each group (first in group order) that are heavy users"},
    {"heavy_weight", RC_PT_DOUBLE, OFF(heavy_weight), 0, "4", 0, 1e9, "", NULL, C | A,
     "sender-choice weight of heavy users (others 1)"},
    {"trace", RC_PT_STRING, OFF(trace), SZ(trace), "online", 0, 0, "", NULL, C | A,
     "availability: 'online', a trace name (gen_os15, os15) in --data-dir, or a .txt.gz path"},
    {"data_dir", RC_PT_STRING, OFF(data_dir), SZ(data_dir), "", 0, 0, "", NULL, 0,
     "directory holding availability traces (default $RCSIM_DATA_DIR, then data/availability; "
     "looked at only when a trace name is resolved)"},
    {"model", RC_PT_ENUM, OFF(model), 0, "exact", 0, 1, "", "exact|paper", C | A,
     "exact = continuous-time Loopix; paper = the reference's 10 ms lattice and quirks"},
    {"q_lattice", RC_PT_TRI, OFF(quirks.lattice), 0, "auto", -1, 1, "", NULL, C | A,
     "quirk: 10 ms lattice, per-tick Bernoulli streams, delays lifted to ticks "
     "(docs/spec.md §9.1.3)"},
    {"q_trace16", RC_PT_TRI, OFF(quirks.trace16), 0, "auto", -1, 1, "", NULL, C | A,
     "quirk: user i of every provider gets trace line i, only 16 lines used "
     "(docs/spec.md §9.1.1)"},
    {"q_frozen_pull", RC_PT_TRI, OFF(quirks.frozen_pull), 0, "auto", -1, 1, "", NULL, C | A,
     "quirk: pull countdown frozen while offline; ONLINE = waited < 1 period "
     "(docs/spec.md §9.1.2)"},
    {"q_ingress_delay", RC_PT_TRI, OFF(quirks.ingress_delay), 0, "auto", -1, 1, "", NULL, C | A,
     "the sender's provider adds a mixing delay (4 delayed hops; on in both models) "
     "(docs/spec.md §9.1.4)"},
    {"q_arm_once", RC_PT_TRI, OFF(quirks.arm_once), 0, "auto", -1, 1, "", NULL, C | A,
     "quirk: RC-FT arms timeouts once; reassigned roles are not watched (docs/spec.md §9.1.5)"},
    {"q_acks_always", RC_PT_TRI, OFF(quirks.acks_always), 0, "auto", -1, 1, "", NULL, C | A,
     "quirk: Rollercoaster sends ACKs even with timeouts off (docs/spec.md §9.1.6)"},
    {"q_seed0_groups", RC_PT_TRI, OFF(quirks.seed0_groups), 0, "auto", -1, 1, "", NULL, C | A,
     "quirk: the reference's groups and heavy users (Python's Random(0).sample) "
     "whatever the job seed (docs/spec.md §9.1.7)"},
    {"q_nonce0_plain", RC_PT_TRI, OFF(quirks.nonce0_plain), 0, "auto", -1, 1, "", NULL, C | A,
     "quirk: a source's first multicast in a group is not shuffled (docs/spec.md §9.1.8)"},
    {"q_nonce_perm", RC_PT_TRI, OFF(quirks.nonce_perm), 0, "auto", -1, 1, "", NULL, C | A,
     "quirk: receivers shuffled by Python's Random(nonce) alone: every source's j-th message "
     "gets the same permutation (docs/spec.md §2.3.2)"},
    {"cover", RC_PT_ENUM, OFF(cover), 0, "auto", 0, 2, "", "skip|full|auto", C | A,
     "skip = simulate only what shapes latency; full = route every cover packet too; "
     "auto = full with --anonymity on, else skip"},
    {"duration", RC_PT_DURATION, OFF(duration_s), 0, "86400", 1e-3, 1e9, "s", NULL, C | A,
     "simulated span (seconds, or with s/m/h/d suffix: 24h)"},
    {"seed", RC_PT_U64, OFF(seed), 0, "1", 0, 1.8e19, "", NULL, C | A,
     "job seed; every random stream of the job derives from it"},
    {"rate_payload", RC_PT_DOUBLE, OFF(rate_payload), 0, "2", 1e-9, 1e6, "1/s", NULL, C | A,
     "lambda_P: payload stream rate per client (before x p)"},
    {"rate_drop", RC_PT_DOUBLE, OFF(rate_drop), 0, "2", 0, 1e6, "1/s", NULL, C | A,
     "lambda_D: drop cover rate per client"},
    {"rate_loop", RC_PT_DOUBLE, OFF(rate_loop), 0, "2", 0, 1e6, "1/s", NULL, C | A,
     "lambda_L: loop cover rate per client"},
    {"rate_delay", RC_PT_DOUBLE, OFF(rate_delay), 0, "3", 1e-9, 1e6, "1/s", NULL, C | A,
     "mu: per-hop exponential delay rate (mean delay 1/mu)"},
    {"pull_period", RC_PT_DURATION, OFF(pull_period_s), 0, "1", 1e-3, 1e6, "s", NULL, C | A,
     "clients pull their provider every this much online time"},
    {"mix_rate_loop", RC_PT_DOUBLE, OFF(mix_rate_loop), 0, "2", 0, 1e6, "1/s", NULL, C | A,
     "lambda_M: loop cover rate per mix (--cover full)"},
    {"mix_rate_loop_delay", RC_PT_DOUBLE, OFF(mix_rate_loop_delay), 0, "3", 1e-9, 1e6, "1/s",
     NULL, C | A, "delay rate of mix loop packets (--cover full)"},
    {"lambda_div", RC_PT_DOUBLE, OFF(lambda_div), 0, "1", 1e-6, 1e6, "", NULL, C | A,
     "divide all six Loopix rates by this (docs/spec.md §1.3; the p-vs-lambda figures)"},
    {"tick", RC_PT_DURATION, OFF(tick_s), 0, "0.01", 1e-6, 10, "s", NULL, C | A,
     "lattice step when q_lattice is on"},
    {"mix_layers", RC_PT_INT, OFF(mix_layers), 0, "3", 1, 64, "", NULL, C | A,
     "mix layers"},
    {"mixes_per_layer", RC_PT_INT, OFF(mixes_per_layer), 0, "3", 1, 1 << 16, "", "auto", C | A,
     "mixes in each layer, or auto: the fewest whose planned load fits mix_capacity "
     "(docs/spec.md §1.13)"},
    {"mix_capacity", RC_PT_DOUBLE, OFF(mix_capacity), 0, "0", 0, 1e12, "1/s", NULL, C | A | N,
     "packets (sub-messages) per second a mix is planned for; with --mixes-per-layer auto it "
     "sizes the layers to the clients' and mixes' nominal rates (0 = none); with "
     "--node-service serve it is also each mix's service rate"},
    {"node_service", RC_PT_ENUM, OFF(node_service), 0, "plan", 0, 1, "", "plan|serve",
     C | A | N,
     "plan = mix_capacity only sizes the layers, no node has a service rate; serve = each "
     "mix serves mix_capacity sub-messages per second and each provider provider_capacity, "
     "one packet at a time in arrival order (docs/spec.md §1.14; needs --cover full)"},
    {"provider_capacity", RC_PT_DOUBLE, OFF(provider_capacity), 0, "0", 0, 1e12, "1/s", NULL,
     C | A | N,
     "node_service serve: sub-messages per second a provider serves (0 = infinite)"},
    {"queue_limit", RC_PT_INT, OFF(queue_limit), 0, "0", 0, 1 << 24, "", NULL, C | A | N,
     "node_service serve: packets a serving node holds, the one in service included; an "
     "arrival that finds it full is dropped (0 = no limit)"},
    {"node_processing", RC_PT_DURATION, OFF(node_processing_s), 0, "0", 0, 3600, "s", NULL,
     C | A | N,
     "node_service serve: a fixed processing time per sub-message at every node, mixes and "
     "providers, added to the exponential service of a node with a capacity (seconds, or "
     "2ms; 0 = none; docs/spec.md §1.14)"},
    {"mix_kind", RC_PT_ENUM, OFF(mix_kind), 0, "poisson", 0, 3, "",
     "poisson|threshold|timed|pool", C | A | N,
     "how a mix lets packets go: poisson = an exponential delay each (rate_delay); threshold "
     "= all at once when mix_threshold are in; timed = all every mix_period; pool = when "
     "mix_threshold + mix_pool are in, mix_threshold chosen at random (docs/spec.md §1.15; "
     "needs --cover full)"},
    {"mix_threshold", RC_PT_INT, OFF(mix_threshold), 0, "10", 1, 1 << 20, "", NULL, C | A | N,
     "mix_kind threshold or pool: packets a flush sends"},
    {"mix_period", RC_PT_DURATION, OFF(mix_period_s), 0, "1", 1e-6, 1e6, "s", NULL, C | A | N,
     "mix_kind timed: a mix flushes every this long (each on a phase of its own)"},
    {"mix_pool", RC_PT_INT, OFF(mix_pool), 0, "0", 0, 1 << 20, "", NULL, C | A | N,
     "mix_kind pool: packets a flush keeps, chosen at random (>= 1)"},
    {"link_latency", RC_PT_DURATION, OFF(link_latency_s), 0, "0", 0, 3600, "s", NULL,
     C | A | N,
     "one-way latency of every link: client-provider, provider-mix, mix-mix, mix-provider and "
     "a pull's answer (seconds, or 120ms; 0 = links take no time; docs/spec.md §1.16)"},
    {"link_latency_file", RC_PT_STRING, OFF(link_latency_file), SZ(link_latency_file), "", 0, 0,
     "", NULL, C | A | N,
     "per-link latencies from a file of regions, a region-by-region matrix (ms) and node "
     "placements (replaces --link-latency; format in docs/spec.md §1.16)"},
    {"topology", RC_PT_ENUM, OFF(topology), 0, "stratified", 0, 2, "",
     "stratified|cascade|free-route", C | A | N,
     "how a packet picks its mixes: stratified = one of each layer; cascade = one of "
     "mixes_per_layer fixed chains; free-route = any mix at every hop (docs/spec.md §1.17)"},
    {"users_per_provider", RC_PT_INT, OFF(users_per_provider), 0, "16", 1, 1 << 20, "", NULL,
     C | A, "clients per provider (filled greedily)"},
    {"rc_base_delay_factor", RC_PT_DOUBLE, OFF(rc_base_delay_factor), 0, "2", 0, 1e6, "", NULL,
     C | A, "RC-FT timeout estimate: t_msg = factor * hops / mu, plus the path's links when "
     "there are any (docs/spec.md §2.4)"},
    {"provider_rate", RC_PT_DOUBLE, OFF(provider_rate), 0, "0", 0, 1e6, "1/s", NULL, C | A | N,
     "provider-fanout: packets a provider injects into the mixes per second, one after the "
     "other (0 = unlimited; not divided by lambda_div; docs/spec.md §2.6)"},
    {"offline_members", RC_PT_STRING, OFF(offline_members), SZ(offline_members), "", 0, 0, "",
     NULL, C | A, "comma list of group-0 positions forced offline for the whole run"},
    {"source_offline", RC_PT_STRING, OFF(source_offline), SZ(source_offline), "", 0, 0, "",
     NULL, C | A,
     "AT:FOR (seconds): the sender of the first multicast after AT goes offline for FOR seconds "
     "right after it starts sending"},
    {"gossip_interval", RC_PT_DURATION, OFF(gossip_interval_s), 0, "0", 0, 1e9, "s", NULL, C | A,
     "anti-entropy: each member reconciles with a random member this often (0 = off)"},
    {"gossip_push_max", RC_PT_INT, OFF(gossip_push_max), 0, "8", 1, 1 << 20, "", NULL, C | A,
     "anti-entropy: messages pushed per repair"},
    {"gossip_window", RC_PT_DURATION, OFF(gossip_window_s), 0, "2h", 1, 1e9, "s", NULL, C | A,
     "anti-entropy: a digest covers the group's payloads created this recently"},
    {"membership_rate", RC_PT_DOUBLE, OFF(membership_rate), 0, "0", 0, 1e3, "1/s", NULL, C | A,
     "changing membership: join/leave events per second per group (0 = static groups)"},
    {"adversary", RC_PT_ENUM, OFF(adversary), 0, "none", 0, 3, "", "none|drop|ack-drop|delay",
     C | A | N,
     "misbehaving members: drop = forward nothing, ACK nothing; ack-drop = forward nothing but "
     "ACK; delay = forward after adversary_delay (never as a message's source)"},
    {"adversary_fraction", RC_PT_DOUBLE, OFF(adversary_fraction), 0, "0", 0, 1, "", NULL,
     C | A | N, "fraction of the users that misbehave, chosen by the seed (rounded)"},
    {"adversary_delay", RC_PT_DURATION, OFF(adversary_delay_s), 0, "60", 0, 1e9, "s", NULL,
     C | A | N, "adversary=delay: extra delay before a misbehaving member forwards or ACKs"},
    {"population", RC_PT_INT, OFF(population), 0, "0", 0, 1 << 20, "", NULL, C | A | N,
     "population mode: N users in 'groups' groups of sizes drawn from group_size_dist, members "
     "drawn by the seed (0 = off); sets users = N"},
    {"population_model", RC_PT_INT, OFF(population_model), 0, "0", 0, RC_POPULATION_MODEL, "",
     NULL, C | A | N,
     "population mode's model version (0 = the newest, 4): 4 schedules each message for its "
     "recipient's pull when it leaves, a pull's messages in the order they arrived as in 2, "
     "and does what 2 does (2's laws, faster); 3 does so in the order they left (not 2's "
     "laws for RC-FT: kept to rerun old jobs); 2 counts a busy client's drop and loop cover "
     "firings in aggregate and draws a packet's hops as one sum where p = 1 (the same laws, "
     "other draws, faster); "
     "1 draws every firing and hop (rcsim before model 2; docs/beyond.md)"},
    {"group_size_dist", RC_PT_STRING, OFF(group_size_dist), SZ(group_size_dist), "", 0, 0, "",
     NULL, C | A | N,
     "population mode: group sizes, fixed:M | zipf:S:MIN:MAX | lognormal:MU:SIGMA"},
    {"packet_size", RC_PT_INT, OFF(packet_size), 0, "2048", 1, 1 << 30, "B", NULL, C | A | N,
     "bytes of one sub-message on the wire (a Sphinx packet; Loopix's 2 KiB), for the bandwidth "
     "in bytes (docs/spec.md §1.12); changes no simulated event"},
    {"anonymity", RC_PT_BOOL, OFF(anonymity), 0, "off", 0, 1, "", NULL, C | A | N,
     "measure anonymity against a global passive adversary (docs/spec.md §10; implies "
     "--cover full)"},
    {"corrupt_mixes", RC_PT_DOUBLE, OFF(corrupt_mixes), 0, "0", 0, 1, "", NULL, C | A | N,
     "anonymity and disclosure: fraction of the mixes the adversary owns, chosen by the seed "
     "(rounded)"},
    {"corrupt_providers", RC_PT_DOUBLE, OFF(corrupt_providers), 0, "0", 0, 1, "", NULL,
     C | A | N,
     "anonymity and disclosure: fraction of the providers the adversary owns, chosen by the "
     "seed (rounded)"},
    {"anon_targets", RC_PT_INT, OFF(anon_targets), 0, "1000", 1, 1 << 24, "", NULL, C | A | N,
     "anonymity: real sub-messages tracked, at times drawn by the seed between a warm-up and "
     "a cool-down (docs/spec.md §10.2)"},
    {"anon_group", RC_PT_STRING, OFF(anon_group), SZ(anon_group), "all", 0, 0, "", NULL,
     C | A | N,
     "anonymity: whose messages are tracked: all (every group's) | G (group index, 0-based) | "
     "largest | size:M (the group whose size is nearest M; the lowest index among equals)"},
    {"anon_trace", RC_PT_STRING, OFF(anon_trace), SZ(anon_trace), "", 0, 0, "", NULL, 0,
     "anonymity: write every observation of the run to this CSV file, and the tracked "
     "messages' values to FILE.targets.csv (docs/spec.md §10.6; small runs)"},
    {"anon_sender", RC_PT_ENUM, OFF(anon_sender), 0, "auto", 0, 2, "", "auto|dense|log",
     C | A | N,
     "anonymity: how the sender view is computed: dense vectors (up to 1024 users), a log of "
     "the pools read backward from each tracked exit, or auto (dense up to 1024 users, else "
     "the log); the same values to within 10^-12 (docs/spec.md §10.4)"},
    {"disclosure", RC_PT_BOOL, OFF(disclosure), 0, "off", 0, 1, "", NULL, C | A | N,
     "measure what an adversary watching the whole run learns of the target group: "
     "membership and multicast sources (docs/spec.md §11, docs/disclosure.md)"},
    {"disclosure_window", RC_PT_DURATION, OFF(disclosure_window_s), 0, "15", 1e-3, 1e9, "s",
     NULL, C | A | N,
     "disclosure: how long after a multicast the adversary attributes arrivals to it"},
    {"disclosure_group", RC_PT_STRING, OFF(disclosure_group), SZ(disclosure_group), "largest",
     0, 0, "", NULL, C | A | N,
     "disclosure: the target group: G (group index, 0-based) | largest | size:M (the group "
     "whose size is nearest M; the lowest index among equals)"},
    {"store_raw", RC_PT_BOOL, OFF(store_raw), 0, "false", 0, 1, "", NULL, RC_PF_STORED,
     "keep raw per-delivery latencies in the results"},
    {"check", RC_PT_BOOL, OFF(check), 0, "false", 0, 1, "", NULL, 0,
     "check run-time invariants for this job (slower)"},
};

const rc_param_def *rc_param_table(size_t *count)
{
    generate_help();
    *count = sizeof table / sizeof table[0];
    return table;
}

static bool names_equal(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char x = (*a == '-') ? '_' : *a, y = (*b == '-') ? '_' : *b;
        if (x != y) return false;
    }
    return *a == *b;
}

const rc_param_def *rc_param_find(const char *name)
{
    generate_help();
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (names_equal(table[i].name, name)) return &table[i];
    return NULL;
}

/* A decimal number's characters only: strtod also reads hexadecimal ("0x10"),
 * "inf", "nan" and leading blanks, none of which a user means by a value. */
static bool decimal_chars(const char *from, const char *to)
{
    for (const char *c = from; c < to; c++)
        if (!strchr("0123456789.eE+-", *c)) return false;
    return to > from;
}

int rc_parse_duration(const char *text, double *seconds)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || errno != 0 || !isfinite(v) || !decimal_chars(text, end)) return -1;
    double mult = 1;
    if (*end == 's') mult = 1, end++;
    else if (*end == 'm' && end[1] == 's') mult = 1e-3, end += 2;
    else if (*end == 'm') mult = 60, end++;
    else if (*end == 'h') mult = 3600, end++;
    else if (*end == 'd') mult = 86400, end++;
    if (*end != '\0') return -1;
    *seconds = v * mult;
    return 0;
}

static int parse_bool(const char *t, bool *out)
{
    if (!strcasecmp(t, "true") || !strcasecmp(t, "yes") || !strcasecmp(t, "on") || !strcmp(t, "1"))
        *out = true;
    else if (!strcasecmp(t, "false") || !strcasecmp(t, "no") || !strcasecmp(t, "off") ||
             !strcmp(t, "0"))
        *out = false;
    else
        return -1;
    return 0;
}

static int range_error(const rc_param_def *d, const char *text, rc_err *err)
{
    /* Integer bounds print as integers ([2, 1048576], not 1.04858e+06). */
    if (d->type == RC_PT_INT || d->type == RC_PT_U64)
        return rc_err_set(err, RC_EXIT_USAGE, "%s: value '%s' out of range [%.0f, %.0f]", d->name,
                          text, d->min, d->max);
    return rc_err_set(err, RC_EXIT_USAGE, "%s: value '%s' out of range [%g, %g]", d->name, text,
                      d->min, d->max);
}

int rc_param_set(rc_job *job, const rc_param_def *d, const char *text, rc_err *err)
{
    char *base = (char *)job + d->offset;
    char *end;
    errno = 0;
    switch (d->type) {
    case RC_PT_INT: {
        /* An integer may have one word standing for 0 (mixes_per_layer's "auto"). */
        if (d->choices != NULL && !strcasecmp(text, d->choices)) {
            *(int *)base = 0;
            return 0;
        }
        long v = strtol(text, &end, 10);
        if (end == text || *end != '\0' || errno != 0)
            return rc_err_set(err, RC_EXIT_USAGE, "%s: '%s' is not an integer", d->name, text);
        if ((double)v < d->min || (double)v > d->max) return range_error(d, text, err);
        *(int *)base = (int)v;
        return 0;
    }
    case RC_PT_U64: {
        if (text[0] == '-')
            return rc_err_set(err, RC_EXIT_USAGE, "%s: '%s' must not be negative", d->name, text);
        unsigned long long v = strtoull(text, &end, 0);
        if (end == text || *end != '\0' || errno != 0)
            return rc_err_set(err, RC_EXIT_USAGE, "%s: '%s' is not an unsigned integer", d->name,
                              text);
        *(uint64_t *)base = (uint64_t)v;
        return 0;
    }
    case RC_PT_DOUBLE: {
        double v;
        /* Rates like 1/30 are common: accept a simple fraction. */
        const char *slash = strchr(text, '/');
        if (slash != NULL) {
            char num[64];
            size_t len = (size_t)(slash - text);
            if (len == 0 || len >= sizeof num)
                return rc_err_set(err, RC_EXIT_USAGE, "%s: '%s' is not a number", d->name, text);
            memcpy(num, text, len);
            num[len] = '\0';
            double a = strtod(num, &end);
            if (*end != '\0' || end == num || !decimal_chars(num, end))
                return rc_err_set(err, RC_EXIT_USAGE, "%s: '%s' is not a number", d->name, text);
            double b = strtod(slash + 1, &end);
            if (*end != '\0' || end == slash + 1 || b == 0 || !decimal_chars(slash + 1, end))
                return rc_err_set(err, RC_EXIT_USAGE, "%s: '%s' is not a number", d->name, text);
            v = a / b;
        } else {
            v = strtod(text, &end);
            if (end == text || *end != '\0' || errno != 0 || !isfinite(v) ||
                !decimal_chars(text, end))
                return rc_err_set(err, RC_EXIT_USAGE, "%s: '%s' is not a number", d->name, text);
        }
        if (v < d->min || v > d->max) return range_error(d, text, err);
        *(double *)base = v;
        return 0;
    }
    case RC_PT_DURATION: {
        double v;
        if (rc_parse_duration(text, &v) != 0)
            return rc_err_set(err, RC_EXIT_USAGE,
                              "%s: '%s' is not a duration (e.g. 3600, 90s, 15m, 24h, 1d)", d->name,
                              text);
        if (v < d->min || v > d->max) return range_error(d, text, err);
        *(double *)base = v;
        return 0;
    }
    case RC_PT_BOOL: {
        bool v;
        if (parse_bool(text, &v) != 0)
            return rc_err_set(err, RC_EXIT_USAGE, "%s: '%s' is not a boolean (true/false)",
                              d->name, text);
        *(bool *)base = v;
        return 0;
    }
    case RC_PT_TRI: {
        bool v;
        if (!strcasecmp(text, "auto")) {
            *(int *)base = RC_AUTO;
            return 0;
        }
        if (parse_bool(text, &v) != 0)
            return rc_err_set(err, RC_EXIT_USAGE, "%s: '%s' is not one of auto/on/off", d->name,
                              text);
        *(int *)base = v ? 1 : 0;
        return 0;
    }
    case RC_PT_STRING: {
        size_t len = strlen(text);
        if (len >= d->size)
            return rc_err_set(err, RC_EXIT_USAGE, "%s: value is too long (%zu > %zu characters)",
                              d->name, len, d->size - 1);
        memcpy(base, text, len + 1);
        return 0;
    }
    case RC_PT_ENUM: {
        const char *c = d->choices;
        int idx = 0;
        size_t tl = strlen(text);
        while (c && *c) {
            const char *bar = strchr(c, '|');
            size_t len = bar ? (size_t)(bar - c) : strlen(c);
            if (len == tl && strncasecmp(c, text, len) == 0) {
                *(int *)base = idx;
                return 0;
            }
            idx++;
            c = bar ? bar + 1 : NULL;
        }
        return rc_err_set(err, RC_EXIT_USAGE, "%s: '%s' is not one of %s", d->name, text,
                          d->choices);
    }
    }
    return rc_err_set(err, RC_EXIT_USAGE, "%s: unsupported parameter type", d->name);
}

int rc_param_set_by_name(rc_job *job, const char *name, const char *text, rc_err *err)
{
    const rc_param_def *d = rc_param_find(name);
    if (d == NULL) return rc_err_set(err, RC_EXIT_USAGE, "unknown parameter '%s'", name);
    return rc_param_set(job, d, text, err);
}

/* snprintf(buf, n, "%s", s) without printf's cost (job ids format every field). */
static void copy_text(char *buf, size_t n, const char *s)
{
    if (n == 0) return;
    size_t len = strlen(s);
    if (len >= n) len = n - 1;
    memcpy(buf, s, len);
    buf[len] = '\0';
}

/* %.17g costs about 0.5 us a value, and job ids format every double of every
 * job (rc_job_canonical): a sweep master expanding a million jobs spent most of
 * its start-up here.  The values of a sweep repeat (defaults, axis values), so
 * a small direct-mapped cache of formatted doubles, keyed by their bits, gives
 * the same text for a fraction of the cost.  Single-threaded by design (each
 * rcsim process is). */
static void format_double(double v, char *buf, size_t n)
{
    enum { SLOTS = 512 };
    static struct {
        uint64_t bits;
        bool used;
        char text[32];
    } cache[SLOTS];
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    size_t k = (size_t)((bits * 0x9E3779B97F4A7C15ULL) >> 55) & (SLOTS - 1);
    if (!cache[k].used || cache[k].bits != bits) {
        snprintf(cache[k].text, sizeof cache[k].text, "%.17g", v);
        cache[k].bits = bits;
        cache[k].used = true;
    }
    copy_text(buf, n, cache[k].text);
}

/* Decimal text of v (printf's %llu / %d without printf's cost). */
static void format_integer(bool negative, uint64_t v, char *buf, size_t n)
{
    char tmp[24];
    size_t k = sizeof tmp;
    tmp[--k] = '\0';
    do {
        tmp[--k] = (char)('0' + v % 10);
        v /= 10;
    } while (v > 0);
    if (negative) tmp[--k] = '-';
    copy_text(buf, n, tmp + k);
}

void rc_param_format(const rc_job *job, const rc_param_def *d, char *buf, size_t n)
{
    const char *base = (const char *)job + d->offset;
    switch (d->type) {
    case RC_PT_INT: {
        int v = *(const int *)base;
        if (v == 0 && d->choices != NULL) {
            copy_text(buf, n, d->choices);
            break;
        }
        format_integer(v < 0, v < 0 ? (uint64_t)(-(int64_t)v) : (uint64_t)v, buf, n);
        break;
    }
    case RC_PT_U64: format_integer(false, *(const uint64_t *)base, buf, n); break;
    case RC_PT_DOUBLE:
    case RC_PT_DURATION: format_double(*(const double *)base, buf, n); break;
    case RC_PT_BOOL: copy_text(buf, n, *(const bool *)base ? "true" : "false"); break;
    case RC_PT_TRI: {
        int v = *(const int *)base;
        copy_text(buf, n, v < 0 ? "auto" : v ? "on" : "off");
        break;
    }
    case RC_PT_STRING: copy_text(buf, n, base); break;
    case RC_PT_ENUM: {
        int want = *(const int *)base, idx = 0;
        const char *c = d->choices;
        while (c && *c) {
            const char *bar = strchr(c, '|');
            size_t len = bar ? (size_t)(bar - c) : strlen(c);
            if (idx == want) {
                snprintf(buf, n, "%.*s", (int)len, c);
                return;
            }
            idx++;
            c = bar ? bar + 1 : NULL;
        }
        snprintf(buf, n, "%d", want);
        break;
    }
    }
}

double rc_param_number(const rc_job *job, const rc_param_def *d)
{
    const char *base = (const char *)job + d->offset;
    switch (d->type) {
    case RC_PT_INT:
    case RC_PT_TRI:
    case RC_PT_ENUM: return *(const int *)base;
    case RC_PT_U64: return (double)*(const uint64_t *)base;
    case RC_PT_DOUBLE:
    case RC_PT_DURATION: return *(const double *)base;
    case RC_PT_BOOL: return *(const bool *)base ? 1 : 0;
    case RC_PT_STRING: return NAN;
    }
    return NAN;
}
