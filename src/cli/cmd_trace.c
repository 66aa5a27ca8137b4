/* cmd_trace: `rcsim trace stats|synth` — availability-trace statistics and
 * synthetic traces (trace/avail.h, trace/synth.h; docs/traces.md). */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "core/err.h"
#include "trace/avail.h"
#include "trace/synth.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: rcsim trace stats [--tsv] [--data-dir DIR] TRACE...\n"
            "       rcsim trace synth (--like TRACE | --online F --gaps G --gap-median S)\n"
            "                         [--lines N] [--seed S] [--period P] [--concentration K]\n"
            "                         [--sigma-on X] [--data-dir DIR] -o OUT.txt.gz\n\n"
            "Availability traces: gzipped text, one line per client, one '0'/'1' per second.\n"
            "TRACE is a path or a name resolved like a job's trace (os10 ->\n"
            "schedules_gen_os10.txt.gz in --data-dir, $RCSIM_DATA_DIR, ./data/availability).\n\n"
            "  stats   print lines, period, mean online fraction, first-16-lines online\n"
            "          fraction, offline periods per line and their median length\n"
            "          (docs/spec.md §4)\n"
            "  synth   write a synthetic trace from an on/off renewal model with per-line\n"
            "          online fractions ~ Beta and log-normal sessions (docs/traces.md)\n\n"
            "synth options:\n"
            "  --like TRACE         fit the model to TRACE (explicit options below override)\n"
            "  --online F           mean online fraction over lines, in (0,1)\n"
            "  --gaps G             mean number of offline periods per line and day\n"
            "  --gap-median S       median offline period length in seconds\n"
            "  --lines N            lines to write (default: as --like TRACE, else 600)\n"
            "  --seed S             seed of the generator (default 1); same seed, same file\n"
            "  --period P           line length in seconds (default 86400 or as --like)\n"
            "  --concentration K    Beta a+b of per-line online fractions; 0: all lines\n"
            "                       equal (default 2.6 or fitted)\n"
            "  --sigma-on X         log-sd of online session lengths (default 1.8 or fitted)\n"
            "  -o, --output OUT     output file (gzip)\n"
            "common:\n"
            "  --data-dir DIR       where to look up trace names first\n"
            "  --tsv                (stats) tab-separated output with a header line\n"
            "  -h, --help           this help\n");
}

static int parse_double(const char *opt, const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end != '\0') {
        fprintf(stderr, "rcsim trace: %s: bad number '%s'\n", opt, s);
        return RC_EXIT_USAGE;
    }
    *out = v;
    return 0;
}

static int parse_u64(const char *opt, const char *s, unsigned long long max, unsigned long long *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end != '\0' || s[0] == '-' || v > max) {
        fprintf(stderr, "rcsim trace: %s: bad integer '%s' (0..%llu)\n", opt, s, max);
        return RC_EXIT_USAGE;
    }
    *out = v;
    return 0;
}

/* Resolves and loads TRACE; prints the error and returns NULL on failure. */
static rc_trace *load(const char *name, const char *data_dir, int *rc)
{
    char path[4096];
    rc_err err = {0};
    *rc = rc_trace_resolve(name, data_dir, path, sizeof path, &err);
    if (*rc == 0 && path[0] == '\0')
        *rc = rc_err_set(&err, RC_EXIT_USAGE, "'online' is not a trace file");
    rc_trace *t = *rc ? NULL : rc_trace_load(path, 0, &err);
    if (t == NULL) {
        if (*rc == 0) *rc = err.code;
        fprintf(stderr, "rcsim trace: %s\n", err.msg);
    }
    return t;
}

enum { OPT_TSV = 256, OPT_DATA_DIR, OPT_LIKE, OPT_ONLINE, OPT_GAPS, OPT_GAP_MEDIAN, OPT_LINES,
       OPT_SEED, OPT_PERIOD, OPT_CONC, OPT_SIGMA_ON };

static const struct option long_opts[] = {
    {"help", no_argument, NULL, 'h'},
    {"output", required_argument, NULL, 'o'},
    {"tsv", no_argument, NULL, OPT_TSV},
    {"data-dir", required_argument, NULL, OPT_DATA_DIR},
    {"like", required_argument, NULL, OPT_LIKE},
    {"online", required_argument, NULL, OPT_ONLINE},
    {"gaps", required_argument, NULL, OPT_GAPS},
    {"gap-median", required_argument, NULL, OPT_GAP_MEDIAN},
    {"lines", required_argument, NULL, OPT_LINES},
    {"seed", required_argument, NULL, OPT_SEED},
    {"period", required_argument, NULL, OPT_PERIOD},
    {"concentration", required_argument, NULL, OPT_CONC},
    {"sigma-on", required_argument, NULL, OPT_SIGMA_ON},
    {NULL, 0, NULL, 0},
};

static void print_stats(const char *name, const rc_trace_stats *s, bool tsv)
{
    if (tsv)
        printf("%s\t%zu\t%u\t%.4f\t%.4f\t%.4f\t%.2f\t%.1f\t%.3f\n", name, s->lines, s->period_s,
               s->mean_online, s->first16_online, s->online_sd, s->gaps_per_line,
               s->gap_median_s, s->on_log_sd);
    else
        /* The median of an even count can end in .5; round half up as the
         * docs/spec.md §4 table does (630.5 -> 631). */
        printf("%-40s %6zu %7u %7.1f %% %7.1f %% %7.3f %7.2f %9.0f %7.2f\n", name, s->lines,
               s->period_s, 100 * s->mean_online, 100 * s->first16_online, s->online_sd,
               s->gaps_per_line, floor(s->gap_median_s + 0.5), s->on_log_sd);
}

static int cmd_stats(int argc, char **argv, bool tsv, const char *data_dir)
{
    if (argc == 0) {
        fprintf(stderr, "rcsim trace stats: no TRACE given (try --help)\n");
        return RC_EXIT_USAGE;
    }
    if (tsv)
        printf("trace\tlines\tperiod_s\tmean_online\tfirst16_online\tonline_sd\tgaps_per_line\t"
               "gap_median_s\ton_log_sd\n");
    else
        printf("%-40s %6s %7s %9s %9s %7s %7s %9s %7s\n", "trace", "lines", "period", "online",
               "first16", "sd", "gaps", "gap_med_s", "on_lsd");
    int worst = 0;
    for (int i = 0; i < argc; i++) {
        int rc;
        rc_trace *t = load(argv[i], data_dir, &rc);
        if (t == NULL) {
            worst = rc > worst ? rc : worst;
            continue;
        }
        rc_trace_stats s;
        rc_synth_stats(t, &s);
        const char *base = strrchr(argv[i], '/');
        print_stats(base ? base + 1 : argv[i], &s, tsv);
        rc_trace_free(t);
    }
    return worst;
}

int rc_cmd_trace(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? RC_EXIT_USAGE : 0;
    }
    const char *sub = argv[1];
    bool is_stats = !strcmp(sub, "stats"), is_synth = !strcmp(sub, "synth");
    if (!is_stats && !is_synth) {
        fprintf(stderr, "rcsim trace: unknown subcommand '%s' (stats or synth)\n", sub);
        return RC_EXIT_USAGE;
    }

    bool tsv = false;
    const char *data_dir = NULL, *like = NULL, *out = NULL;
    double online = -1, gaps = -1, gap_median = -1, conc = -1, sigma_on = -1;
    unsigned long long lines = 0, seed = 1, period = 0;
    bool have_lines = false, have_period = false;
    int rc = 0, c;
    optind = 0; /* GNU getopt: 0 re-initialises the scanner */
    while (rc == 0 && (c = getopt_long(argc - 1, argv + 1, "ho:", long_opts, NULL)) != -1) {
        switch (c) {
        case 'h': usage(stdout); return 0;
        case 'o': out = optarg; break;
        case OPT_TSV: tsv = true; break;
        case OPT_DATA_DIR: data_dir = optarg; break;
        case OPT_LIKE: like = optarg; break;
        case OPT_ONLINE: rc = parse_double("--online", optarg, &online); break;
        case OPT_GAPS: rc = parse_double("--gaps", optarg, &gaps); break;
        case OPT_GAP_MEDIAN: rc = parse_double("--gap-median", optarg, &gap_median); break;
        case OPT_CONC: rc = parse_double("--concentration", optarg, &conc); break;
        case OPT_SIGMA_ON: rc = parse_double("--sigma-on", optarg, &sigma_on); break;
        case OPT_LINES:
            rc = parse_u64("--lines", optarg, 1000000, &lines);
            have_lines = true;
            break;
        case OPT_SEED: rc = parse_u64("--seed", optarg, ULLONG_MAX, &seed); break;
        case OPT_PERIOD:
            rc = parse_u64("--period", optarg, 100000000, &period);
            have_period = true;
            break;
        default: return RC_EXIT_USAGE;
        }
    }
    if (rc) return rc;
    int nargs = argc - 1 - optind;
    char **args = argv + 1 + optind;
    if (is_stats) return cmd_stats(nargs, args, tsv, data_dir);

    if (nargs > 0) {
        fprintf(stderr, "rcsim trace synth: unexpected argument '%s'\n", args[0]);
        return RC_EXIT_USAGE;
    }
    if (out == NULL) {
        fprintf(stderr, "rcsim trace synth: -o OUT is required (try --help)\n");
        return RC_EXIT_USAGE;
    }
    rc_synth_model m;
    rc_synth_default(&m);
    size_t n_lines = 600;
    if (like) {
        rc_trace *t = load(like, data_dir, &rc);
        if (t == NULL) return rc;
        rc_trace_stats s;
        rc_synth_stats(t, &s);
        rc_trace_free(t);
        rc_synth_fit(&s, &m);
        n_lines = s.lines;
    } else if (online < 0 || gaps < 0 || gap_median < 0) {
        fprintf(stderr, "rcsim trace synth: give --like TRACE, or all of --online, --gaps and "
                        "--gap-median\n");
        return RC_EXIT_USAGE;
    }
    if (online >= 0) m.online = online;
    if (gaps >= 0) m.gaps = gaps;
    if (gap_median >= 0) m.gap_median_s = gap_median;
    if (conc >= 0) m.concentration = conc;
    if (sigma_on >= 0) m.sigma_on = sigma_on;
    if (have_period) m.period_s = (uint32_t)period;
    if (have_lines) n_lines = (size_t)lines;

    rc_err err = {0};
    rc = rc_synth_write(&m, n_lines, seed, out, &err);
    if (rc) {
        fprintf(stderr, "rcsim trace synth: %s\n", err.msg);
        return rc;
    }
    printf("wrote %s: %zu lines of %u s; seed %llu; online %.4f, gaps %.3f/line, gap median %.0f "
           "s, concentration %.3f, sigma_on %.3f, sigma_off %.3f\n",
           out, n_lines, m.period_s, seed, m.online, m.gaps, m.gap_median_s, m.concentration,
           m.sigma_on, rc_synth_sigma_off(&m));
    return 0;
}
