/* json: the one JSON writer of rcsim (jansson).
 *
 * `rcsim run --json`, `rcsim plan --json` and `rcsim bench --json` build a
 * jansson value and print it with rc_json_print, so every string is escaped
 * by one well-kept library (a trace path with a quote or a newline stays
 * valid JSON).  These helpers add what jansson leaves to the caller: strings
 * that are not valid UTF-8, non-finite numbers, fixed decimals, 64-bit
 * unsigned counters.  Values built here are new references (json_*_new).
 */
#ifndef RCSIM_IO_JSON_H
#define RCSIM_IO_JSON_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

/* A string; never NULL: bytes that are not UTF-8 become U+FFFD. */
json_t *rc_json_str(const char *s);

/* A number rounded to `decimals` places (as printf's %.Nf would print it;
 * decimals < 0: unrounded); null when not finite.  Print with
 * RC_JSON_FIXED so the rounded value is not shown with binary noise. */
json_t *rc_json_num(double v, int decimals);
#define RC_JSON_FIXED JSON_REAL_PRECISION(15)

/* An integer; above INT64_MAX (json_int_t) the decimal digits as a string. */
json_t *rc_json_u64(uint64_t v);

/* Prints `v` and a newline to f and drops the reference.  `flags` are
 * jansson's dump flags.  Returns 0, or -1 if printing failed. */
int rc_json_print(FILE *f, json_t *v, size_t flags);

#endif
