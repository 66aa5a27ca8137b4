/* param: the table-driven parameter registry: one table, read by every place
 * that needs the parameters.
 *
 * One row per rc_job field: name (the CLI option --name and the sweep-file
 * key), type, unit, default, range and help.  The same table parses command
 * lines and sweep files, validates ranges, prints --help, writes HDF5
 * attributes and builds the canonical text behind job ids.  Unknown names are
 * errors.  Names use '_' ; the CLI also accepts '-' in their place.
 */
#ifndef RCSIM_EXP_PARAM_H
#define RCSIM_EXP_PARAM_H

#include <stddef.h>

#include "core/err.h"
#include "exp/job.h"

typedef enum {
    RC_PT_INT,      /* int (or its word for 0, `choices`) */
    RC_PT_U64,      /* uint64_t */
    RC_PT_DOUBLE,   /* double */
    RC_PT_DURATION, /* double seconds; accepts "90", "90s", "15m", "24h", "1d" */
    RC_PT_BOOL,     /* bool; accepts true/false/yes/no/on/off/1/0 */
    RC_PT_TRI,      /* int quirk switch: auto (-1), on (1), off (0) */
    RC_PT_STRING,   /* char[size] */
    RC_PT_ENUM,     /* int; value must be one of `choices` ("a|b|c", index = value) */
} rc_param_type;

enum {
    RC_PF_CANON = 1u << 0,  /* part of the job id (affects results) */
    RC_PF_AXIS = 1u << 1,   /* may be a sweep axis */
    RC_PF_STORED = 1u << 2, /* changes what is stored, not the results: not part of the job
                               id, but a sweep may not change it on resume (farm/preflight.h) */
    /* With RC_PF_CANON: written into the canonical text (and so the job id)
     * only when the value differs from the default.  Extensions added after
     * results exist use it, so every earlier job keeps its id. */
    RC_PF_CANON_NONDEF = 1u << 3,
};

typedef struct rc_param_def {
    const char *name;
    rc_param_type type;
    size_t offset;      /* offsetof(rc_job, field) */
    size_t size;        /* for strings: capacity */
    const char *def;    /* default as text */
    double min, max;    /* numeric range, inclusive */
    const char *unit;   /* "1/s", "s", "" */
    const char *choices;/* RC_PT_ENUM: "a|b|c"; RC_PT_INT: NULL or a word that stands for 0
                           (below min; "auto"), parsed and formatted as that word */
    unsigned flags;
    const char *help;
} rc_param_def;

const rc_param_def *rc_param_table(size_t *count);
/* Finds by name; '-' and '_' are interchangeable.  NULL if unknown. */
const rc_param_def *rc_param_find(const char *name);

/* Parses `text` into the field and checks its range.  The message names the
 * key and the bad value (callers prefix file:line).  Returns 0 or RC_EXIT_USAGE. */
int rc_param_set(rc_job *job, const rc_param_def *def, const char *text, rc_err *err);
int rc_param_set_by_name(rc_job *job, const char *name, const char *text, rc_err *err);

/* Formats the field canonically into buf. */
void rc_param_format(const rc_job *job, const rc_param_def *def, char *buf, size_t n);

/* Numeric value of a field as double (ints, bools, enums, tri-states); NAN for strings. */
double rc_param_number(const rc_job *job, const rc_param_def *def);

/* Parses a duration ("86400", "90s", "15m", "24h", "1d"); returns 0 on success. */
int rc_parse_duration(const char *text, double *seconds);

#endif
