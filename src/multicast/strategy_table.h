/* strategy_table: the registry of strategy families.
 *
 * A strategy name a user types (`--strategy rc-k2-p2-ft`, `strategy:` in a
 * sweep file) belongs to one family: unicast, rc (Rollercoaster) or
 * provider-fanout.  Each family is one row of the table in strategy_table.c,
 * defined in its own file next to its ops: its name pattern, its parameters
 * (names, types, help), a parser that turns a name into those parameters, the
 * canonical form, the sub-messages per packet it asks of the net, its cost
 * terms (exp/ sizes runs with them), its help text and the kinds of message
 * it sends (multicast/msg.h).  Everything that needs
 * to know strategies reads this table: mc (which ops to run), the CLI
 * (`--help strategies`, `rcsim strategies --json`), job validation, the cost
 * model and, through the JSON, analysis/.  docs/extending.md says how to add
 * a family.
 */
#ifndef RCSIM_MULTICAST_STRATEGY_TABLE_H
#define RCSIM_MULTICAST_STRATEGY_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"
#include "multicast/msg.h"

typedef struct rc_strategy_ops rc_strategy_ops; /* multicast/mc.h */
typedef struct rc_strategy_family rc_strategy_family;

/* The bytes a family's parameter struct may take in rc_strategy_spec. */
enum { RC_STRATEGY_PARAMS_BYTES = 64 };

/* A parameter's C type in its family's struct: int, bool, double. */
typedef enum { RC_SP_INT, RC_SP_BOOL, RC_SP_NUMBER } rc_strategy_param_type;

/* One parameter of a family: its name (the key in JSON and help), type, help
 * and where it sits in the family's own parameter struct (offsetof). */
typedef struct rc_strategy_param {
    const char *name;
    rc_strategy_param_type type;
    const char *help;
    size_t offset;
} rc_strategy_param;

/* A parsed strategy name: its family and the family's own parameter struct
 * (e.g. rc_rc_params), which the family reads and writes with
 * rc_strategy_params_get/set; everyone else reads parameters by name
 * (rc_strategy_param_value). */
typedef struct rc_strategy_spec {
    const rc_strategy_family *family;
    union {
        unsigned char bytes[RC_STRATEGY_PARAMS_BYTES];
        double align_double;
        void *align_pointer;
    } params;
} rc_strategy_spec;

/* Copies the family's parameter struct (n bytes, at most
 * RC_STRATEGY_PARAMS_BYTES) into / out of s. */
void rc_strategy_params_set(rc_strategy_spec *s, const void *params, size_t n);
void rc_strategy_params_get(const rc_strategy_spec *s, void *params, size_t n);

/* What one multicast costs to simulate, in units the cost model (exp/) has
 * calibrated: sub-messages that clients send (each also takes a payload slot
 * of its sender: the utilisation), sub-messages that providers inject (no
 * slot), timeouts armed, and the parallelism p (bundling work).  A family
 * states its own terms; the cost model knows no family. */
typedef struct rc_strategy_cost {
    double client_copies_per_recipient;   /* per recipient: unicast 1, RC 2 (ACKs) */
    double client_copies_per_multicast;   /* per multicast: provider-fanout 1 */
    double provider_copies_per_recipient; /* per recipient: provider-fanout 1 */
    double timeouts_per_member;           /* per member: RC-FT 1 */
    int p; /* sub-messages per packet the net bundles (1 unless the family sets it) */
} rc_strategy_cost;

/* Returned by a family's parse when the name is not one of its own. */
enum { RC_STRATEGY_NOT_MINE = -1 };

struct rc_strategy_family {
    const char *family;  /* "rc": the key in JSON and results */
    const char *pattern; /* the grammar, "rc-kK-pP[-ft[M]][-dropoffline]" */
    const char *summary; /* one line */
    const char *help;    /* the `--help strategies` paragraph (lines end in \n) */
    const rc_strategy_param *params;
    size_t n_params;
    size_t params_size; /* sizeof the family's parameter struct (0: none) */
    /* 0 with *out filled, RC_STRATEGY_NOT_MINE, or an error code with err
     * set (the name is this family's but malformed). */
    int (*parse)(const char *name, rc_strategy_spec *out, rc_err *err);
    /* The canonical name (what results and tables show). */
    void (*format)(const rc_strategy_spec *s, char *buf, size_t n);
    /* Its cost terms and bundling (out arrives zeroed, with p = 1). */
    void (*cost)(const rc_strategy_spec *s, rc_strategy_cost *out);
    const rc_strategy_ops *ops;
    /* The kinds of message the family sends (multicast/msg.h): rc_msg.type is
     * the index into this array (at most RC_MSG_SERVICE_FIRST of them). */
    const rc_msg_kind *msg_kinds;
    size_t n_msg_kinds;
};

/* The families in table order. */
const rc_strategy_family *const *rc_strategy_families(size_t *n);
const rc_strategy_family *rc_strategy_family_find(const char *family);

/* Parses a strategy name of any family; RC_EXIT_USAGE naming the name and
 * the patterns on error (err may be NULL). */
int rc_strategy_parse(const char *name, rc_strategy_spec *out, rc_err *err);
/* Canonical name into buf. */
void rc_strategy_format(const rc_strategy_spec *s, char *buf, size_t n);
/* A parameter by name, as a double (bools 0 or 1; NAN when the family has
 * none of that name). */
double rc_strategy_param_value(const rc_strategy_spec *s, const char *name);
/* Sub-messages per packet the net bundles: rc_strategy_cost.p. */
int rc_strategy_split(const rc_strategy_spec *s);
void rc_strategy_cost_of(const rc_strategy_spec *s, rc_strategy_cost *out);

#endif
