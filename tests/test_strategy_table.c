/* The strategy table (multicast/strategy_table.h) and the provider-fanout
 * family added through it (docs/spec.md §2.6): every family's row is
 * consistent, names round-trip, errors name every pattern, the cost terms are
 * the families' own; provider-fanout delivers exactly once from one client
 * packet, in both models, and its provider keeps --provider-rate. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exp/job.h"
#include "exp/param.h"
#include "exp/result.h"
#include "multicast/mc.h"
#include "multicast/services.h"
#include "multicast/strategy_table.h"
#include "one_multicast.h"

Test(strategy_table, every_row_is_consistent)
{
    size_t n;
    const rc_strategy_family *const *f = rc_strategy_families(&n);
    cr_assert_geq(n, 3);
    for (size_t i = 0; i < n; i++) {
        cr_assert_not_null(f[i]->ops, "%s: no ops", f[i]->family);
        cr_assert_str_eq(f[i]->ops->name, f[i]->family, "family %s runs ops named %s",
                         f[i]->family, f[i]->ops->name);
        cr_assert(f[i]->ops->create && f[i]->ops->destroy && f[i]->ops->multicast &&
                      f[i]->ops->receive,
                  "%s: a required op is missing", f[i]->family);
        cr_assert(f[i]->parse && f[i]->format && f[i]->cost, "%s: incomplete row", f[i]->family);
        cr_assert(f[i]->params_size <= RC_STRATEGY_PARAMS_BYTES, "%s: parameters too large",
                  f[i]->family);
        for (size_t j = 0; j < f[i]->n_params; j++) {
            const rc_strategy_param *p = &f[i]->params[j];
            size_t sz = p->type == RC_SP_INT ? sizeof(int)
                        : p->type == RC_SP_BOOL ? sizeof(bool) : sizeof(double);
            cr_assert(p->offset + sz <= f[i]->params_size, "%s: parameter %s outside its struct",
                      f[i]->family, p->name);
        }
        cr_assert_eq(rc_strategy_family_find(f[i]->family), f[i]);
        cr_assert(strlen(f[i]->help) > 0 && f[i]->help[strlen(f[i]->help) - 1] == '\n',
                  "%s: help must end in a newline", f[i]->family);
        for (size_t j = 0; j < i; j++)
            cr_assert_str_neq(f[i]->family, f[j]->family, "family %s listed twice", f[i]->family);
    }
    cr_assert_null(rc_strategy_family_find("no-such-family"));
}

/* Each family declares the kinds of message it sends (multicast/msg.h): at
 * least one, named, in the strategies' range; the services' kinds sit above
 * it without overlapping, so any family runs beside any service. */
Test(strategy_table, every_row_declares_its_message_kinds)
{
    size_t n;
    const rc_strategy_family *const *f = rc_strategy_families(&n);
    for (size_t i = 0; i < n; i++) {
        cr_assert(f[i]->n_msg_kinds >= 1 && f[i]->n_msg_kinds <= RC_MSG_SERVICE_FIRST,
                  "%s: %zu message kinds", f[i]->family, f[i]->n_msg_kinds);
        for (size_t k = 0; k < f[i]->n_msg_kinds; k++) {
            const rc_msg_kind *mk = &f[i]->msg_kinds[k];
            cr_assert(mk->name && mk->name[0], "%s: kind %zu has no name", f[i]->family, k);
            for (size_t j = 0; j < k; j++)
                cr_assert_str_neq(mk->name, f[i]->msg_kinds[j].name, "%s: kind %s twice",
                                  f[i]->family, mk->name);
        }
        rc_msg_kinds kinds;
        rc_msg_kinds_init(&kinds);
        rc_msg_kinds_add(&kinds, 0, f[i]->msg_kinds, f[i]->n_msg_kinds, -1);
        int s = 0;
        for (const rc_mc_service_ops *const *o = rc_mc_services; *o; o++, s++) {
            cr_assert_geq((*o)->first_type, RC_MSG_SERVICE_FIRST, "%s", (*o)->name);
            rc_msg_kinds_add(&kinds, (*o)->first_type, (*o)->msg_kinds, (*o)->n_msg_kinds, s);
        }
        cr_assert_not_null(kinds.of[0]);
        cr_assert_eq(kinds.service[0], -1);
    }
}

Test(strategy_table, names_round_trip_through_the_canonical_form)
{
    const char *given[] = {"unicast", "provider-fanout", "rc-k2-p2", "rc-k2",
                           "rc-k2-p2-ft1.5-dropoffline", "rollercoaster-k4-p1-timeout10x"};
    const char *canon[] = {"unicast", "provider-fanout", "rc-k2-p2", "rc-k2-p1",
                           "rc-k2-p2-ft1.5-dropoffline", "rc-k4-p1-ft"};
    const char *family[] = {"unicast", "provider-fanout", "rc", "rc", "rc", "rc"};
    for (size_t i = 0; i < sizeof given / sizeof *given; i++) {
        rc_strategy_spec s, t;
        rc_err err = {0};
        cr_assert_eq(rc_strategy_parse(given[i], &s, &err), 0, "%s: %s", given[i], err.msg);
        cr_assert_str_eq(s.family->family, family[i]);
        char buf[128];
        rc_strategy_format(&s, buf, sizeof buf);
        cr_assert_str_eq(buf, canon[i]);
        cr_assert_eq(rc_strategy_parse(buf, &t, &err), 0);
        cr_assert_eq(t.family, s.family);
        for (size_t j = 0; j < s.family->n_params; j++) {
            const char *name = s.family->params[j].name;
            cr_assert_eq(rc_strategy_param_value(&t, name), rc_strategy_param_value(&s, name),
                         "%s: parameter %s changes on re-parsing", buf, name);
        }
    }
}

/* Parameters are read by name from the family's own struct; the packet split
 * is the family's word (its cost terms), not a parameter that happens to be
 * called "p". */
Test(strategy_table, parameters_are_read_by_name)
{
    rc_strategy_spec s;
    cr_assert_eq(rc_strategy_parse("rc-k3-p5-ft2-dropoffline", &s, NULL), 0);
    cr_assert_eq(rc_strategy_param_value(&s, "k"), 3.0);
    cr_assert_eq(rc_strategy_param_value(&s, "p"), 5.0);
    cr_assert_eq(rc_strategy_param_value(&s, "ft"), 1.0);
    cr_assert_eq(rc_strategy_param_value(&s, "multiplier"), 2.0);
    cr_assert_eq(rc_strategy_param_value(&s, "dropoffline"), 1.0);
    cr_assert(isnan(rc_strategy_param_value(&s, "q")));
    cr_assert_eq(rc_strategy_split(&s), 5);
    cr_assert_eq(rc_strategy_parse("rc-k2", &s, NULL), 0);
    cr_assert_eq(rc_strategy_param_value(&s, "ft"), 0.0);
    cr_assert_eq(rc_strategy_param_value(&s, "multiplier"), 1.0);
    cr_assert_eq(rc_strategy_split(&s), 1);
    cr_assert_eq(rc_strategy_parse("unicast", &s, NULL), 0);
    cr_assert(isnan(rc_strategy_param_value(&s, "p")));
    cr_assert_eq(rc_strategy_split(&s), 1);
}

/* The --strategy option's help is generated from the table: a new row shows up. */
Test(strategy_table, the_strategy_option_help_lists_every_family)
{
    const rc_param_def *d = rc_param_find("strategy");
    cr_assert_not_null(d);
    size_t n;
    const rc_strategy_family *const *f = rc_strategy_families(&n);
    for (size_t i = 0; i < n; i++)
        cr_assert_not_null(strstr(d->help, f[i]->pattern), "--strategy help lacks %s: %s",
                           f[i]->pattern, d->help);
}

Test(strategy_table, unknown_names_list_every_pattern)
{
    rc_strategy_spec s;
    rc_err err = {0};
    cr_assert_eq(rc_strategy_parse("provider-fanout-k2", &s, &err), RC_EXIT_USAGE);
    size_t n;
    const rc_strategy_family *const *f = rc_strategy_families(&n);
    for (size_t i = 0; i < n; i++)
        cr_assert(strstr(err.msg, f[i]->pattern), "error '%s' lacks %s", err.msg, f[i]->pattern);
    /* a malformed name of a known family says what is wrong with it */
    rc_err err2 = {0};
    cr_assert_eq(rc_strategy_parse("rc-k2-p0", &s, &err2), RC_EXIT_USAGE);
    cr_assert(strstr(err2.msg, "p must be an integer"), "%s", err2.msg);
}

Test(strategy_table, families_state_their_own_cost_terms)
{
    struct {
        const char *name;
        double client_r, client_m, provider_r, timeouts;
        int p;
    } want[] = {
        {"unicast", 1, 0, 0, 0, 1},
        {"rc-k2-p2", 2, 0, 0, 0, 2},
        {"rc-k4-p8-ft-dropoffline", 2, 0, 0, 1, 8},
        {"provider-fanout", 0, 1, 1, 0, 1},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        rc_strategy_spec s;
        cr_assert_eq(rc_strategy_parse(want[i].name, &s, NULL), 0);
        rc_strategy_cost c;
        rc_strategy_cost_of(&s, &c);
        cr_assert(c.client_copies_per_recipient == want[i].client_r &&
                      c.client_copies_per_multicast == want[i].client_m &&
                      c.provider_copies_per_recipient == want[i].provider_r &&
                      c.timeouts_per_member == want[i].timeouts && c.p == want[i].p,
                  "%s: cost terms %g %g %g %g p=%d", want[i].name, c.client_copies_per_recipient,
                  c.client_copies_per_multicast, c.provider_copies_per_recipient,
                  c.timeouts_per_member, c.p);
        cr_assert_eq(rc_strategy_split(&s), want[i].p);
    }
}

/* ---------- provider-fanout ---------- */

static void fanout_job(rc_job *job, int users, rc_model model, double rate)
{
    rc_job_defaults(job);
    job->users = users;
    job->app_rate = 0;
    job->duration_s = 600;
    job->model = model;
    job->provider_rate = rate;
    job->store_raw = true;
    strcpy(job->strategy, "provider-fanout");
}

Test(provider_fanout, one_client_packet_and_every_member_once)
{
    int sizes[] = {2, 3, 16, 17, 128};
    for (size_t g = 0; g < sizeof sizes / sizeof *sizes; g++)
        for (int model = 0; model < 2; model++) {
            rc_job job;
            fanout_job(&job, sizes[g], (rc_model)model, 0);
            job.seed = 7 + g;
            rc_result r;
            uint32_t source;
            one_multicast(&job, &r, &source);
            cr_assert_eq(r.c.deliveries, (uint64_t)sizes[g] - 1, "n=%d model=%d: %llu",
                         sizes[g], model, (unsigned long long)r.c.deliveries);
            cr_assert_eq(r.c.undelivered, 0);
            cr_assert_eq(r.c.duplicates, 0);
            /* the source's one packet to its provider is the only client packet */
            cr_assert_eq(r.c.payload_packets, 1, "n=%d: %llu client packets", sizes[g],
                         (unsigned long long)r.c.payload_packets);
            for (size_t i = 0; i < r.n_deliveries; i++) {
                cr_assert_neq(r.deliveries[i].recipient, source, "the source got its own copy");
                /* at least the ingress hand-off and every mix layer lie between */
                cr_assert_gt(r.deliveries[i].delivered_s, r.deliveries[i].sent_s);
            }
            rc_result_free(&r);
        }
}

static int by_latency(const void *a, const void *b)
{
    const rc_delivery *x = a, *y = b;
    double lx = x->delivered_s - x->sent_s, ly = y->delivered_s - y->sent_s;
    return (lx > ly) - (lx < ly);
}

/* With --provider-rate r the provider injects the copies 1/r apart, so at
 * most i copies can be delivered within i/r of the multicast: the i-th
 * shortest latency is at least i/r.  Unlimited, they all leave at once and
 * the whole group has its copy long before (n - 2)/r. */
Test(provider_fanout, the_provider_keeps_its_rate)
{
    for (int model = 0; model < 2; model++) {
        rc_job job;
        fanout_job(&job, 40, (rc_model)model, 0.5);
        rc_result r;
        one_multicast(&job, &r, NULL);
        cr_assert_eq(r.c.deliveries, 39);
        qsort(r.deliveries, r.n_deliveries, sizeof *r.deliveries, by_latency);
        for (size_t i = 0; i < r.n_deliveries; i++) {
            double lat = r.deliveries[i].delivered_s - r.deliveries[i].sent_s;
            cr_assert_geq(lat, (double)i / 0.5, "model %d: copy %zu after %g s < %g s", model, i,
                          lat, (double)i / 0.5);
        }
        double last_limited = r.deliveries[r.n_deliveries - 1].delivered_s;
        rc_result_free(&r);

        fanout_job(&job, 40, (rc_model)model, 0);
        one_multicast(&job, &r, NULL);
        cr_assert_eq(r.c.deliveries, 39);
        double last_free = 0;
        for (size_t i = 0; i < r.n_deliveries; i++)
            if (r.deliveries[i].delivered_s > last_free) last_free = r.deliveries[i].delivered_s;
        cr_assert_lt(last_free, 37 / 0.5, "model %d: unlimited, the last copy took %g s", model,
                     last_free);
        cr_assert_lt(last_free, last_limited);
        rc_result_free(&r);
    }
}

/* A member that is offline all run never pulls its copy; the others do. */
Test(provider_fanout, an_offline_member_misses_only_its_own_copy)
{
    rc_job job;
    fanout_job(&job, 16, RC_MODEL_PAPER, 0);
    strcpy(job.offline_members, "3,5");
    rc_result r;
    one_multicast(&job, &r, NULL);
    cr_assert_eq(r.c.deliveries, 13);
    cr_assert_eq(r.c.undelivered, 2);
    rc_result_free(&r);
}
