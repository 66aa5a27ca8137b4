/* cmd_strategies: `rcsim strategies [--json] [NAME ...]` and the text of
 * `--help strategies` (rc_help_topic), both read from the strategy table
 * (multicast/strategy_table.h): a family added there is listed here.
 *
 * The JSON is what analysis/ reads instead of parsing names itself (shape in
 * docs/extending.md, "Strategies as data"):
 *   without names: [{"family", "pattern", "summary", "params": {NAME: {"type", "help"}}}]
 *   with names:    [{"name" (canonical), "given", "family", "pattern",
 *                    "params": {NAME: value}}]  (ints and numbers as numbers, bools as bools)
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "core/err.h"
#include "io/json.h"
#include "multicast/strategy_table.h"

static const char *type_name(rc_strategy_param_type t)
{
    switch (t) {
    case RC_SP_INT: return "int";
    case RC_SP_BOOL: return "bool";
    case RC_SP_NUMBER: return "number";
    }
    return "number";
}

void rc_strategies_help(FILE *out)
{
    size_t n;
    const rc_strategy_family *const *fam = rc_strategy_families(&n);
    fprintf(out, "Strategies: the `strategy` parameter (--strategy NAME on `rcsim run`, strategy:\n"
                 "in a sweep file's defaults or axes), one family per block.\n");
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "\n%s (family \"%s\"): %s\n", fam[i]->pattern, fam[i]->family,
                fam[i]->summary);
        fputs(fam[i]->help, out);
        if (fam[i]->n_params > 0) {
            fprintf(out, "  parameters (rcsim strategies --json NAME):\n");
            for (size_t j = 0; j < fam[i]->n_params; j++)
                fprintf(out, "    %-12s %-6s %s\n", fam[i]->params[j].name,
                        type_name(fam[i]->params[j].type), fam[i]->params[j].help);
        }
    }
    fprintf(out, "\nResults files and tables use the canonical form (rc-k2-p2-ft1.5-dropoffline);\n"
                 "`rcsim strategies --json NAME ...` prints it with the family and parameters.\n");
}

int rc_help_topic(const char *topic, FILE *out)
{
    if (!strcmp(topic, "strategies") || !strcmp(topic, "strategy")) {
        rc_strategies_help(out);
        return RC_EXIT_OK;
    }
    fprintf(stderr, "rcsim: no help topic '%s' (topics: strategies)\n", topic);
    return RC_EXIT_USAGE;
}

static json_t *family_json(const rc_strategy_family *f)
{
    json_t *o = json_object();
    json_object_set_new(o, "family", rc_json_str(f->family));
    json_object_set_new(o, "pattern", rc_json_str(f->pattern));
    json_object_set_new(o, "summary", rc_json_str(f->summary));
    json_t *params = json_object();
    for (size_t j = 0; j < f->n_params; j++) {
        json_t *p = json_object();
        json_object_set_new(p, "type", rc_json_str(type_name(f->params[j].type)));
        json_object_set_new(p, "help", rc_json_str(f->params[j].help));
        json_object_set_new(params, f->params[j].name, p);
    }
    json_object_set_new(o, "params", params);
    return o;
}

static json_t *spec_json(const char *given, const rc_strategy_spec *s)
{
    const rc_strategy_family *f = s->family;
    char name[128];
    rc_strategy_format(s, name, sizeof name);
    json_t *o = json_object();
    json_object_set_new(o, "name", rc_json_str(name));
    json_object_set_new(o, "given", rc_json_str(given));
    json_object_set_new(o, "family", rc_json_str(f->family));
    json_object_set_new(o, "pattern", rc_json_str(f->pattern));
    json_t *params = json_object();
    for (size_t j = 0; j < f->n_params; j++) {
        double v = rc_strategy_param_value(s, f->params[j].name);
        json_t *val = f->params[j].type == RC_SP_BOOL  ? json_boolean(v != 0)
                      : f->params[j].type == RC_SP_INT ? json_integer((json_int_t)v)
                                                        : json_real(v);
        json_object_set_new(params, f->params[j].name, val);
    }
    json_object_set_new(o, "params", params);
    return o;
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: rcsim strategies [--json] [NAME ...]\n\n"
            "Lists the strategy families (the table in src/multicast/strategy_table.c): their\n"
            "name patterns, parameters and help.  With NAMEs, parses each and prints its\n"
            "canonical name, family and parameter values.\n\n"
            "  --json    print JSON (docs/extending.md, \"Strategies as data\")\n"
            "  --help    this help\n");
}

int rc_cmd_strategies(int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    bool as_json = false;
    optind = 1;
    for (int c; (c = getopt_long(argc, argv, "h", opts, NULL)) != -1;) {
        if (c == 'j') as_json = true;
        else if (c == 'h') {
            usage(stdout);
            return RC_EXIT_OK;
        } else {
            usage(stderr);
            return RC_EXIT_USAGE;
        }
    }
    json_t *list = json_array();
    if (optind == argc) {
        size_t n;
        const rc_strategy_family *const *fam = rc_strategy_families(&n);
        if (!as_json) {
            json_decref(list);
            rc_strategies_help(stdout);
            return RC_EXIT_OK;
        }
        for (size_t i = 0; i < n; i++) json_array_append_new(list, family_json(fam[i]));
    }
    for (int i = optind; i < argc; i++) {
        rc_strategy_spec s;
        rc_err err = {0};
        if (rc_strategy_parse(argv[i], &s, &err) != 0) {
            fprintf(stderr, "rcsim strategies: %s\n", err.msg);
            json_decref(list);
            return RC_EXIT_USAGE;
        }
        if (as_json) {
            json_array_append_new(list, spec_json(argv[i], &s));
            continue;
        }
        char name[128];
        rc_strategy_format(&s, name, sizeof name);
        printf("%s: family %s", name, s.family->family);
        for (size_t j = 0; j < s.family->n_params; j++)
            printf(", %s=%g", s.family->params[j].name,
                   rc_strategy_param_value(&s, s.family->params[j].name));
        printf("\n");
    }
    if (!as_json) {
        json_decref(list);
        return RC_EXIT_OK;
    }
    return rc_json_print(stdout, list, JSON_INDENT(1)) == 0 ? RC_EXIT_OK : RC_EXIT_RUNTIME;
}
