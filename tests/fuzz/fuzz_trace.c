/* fuzz_trace: libFuzzer harness for the trace line parser (rc_trace_parse) on
 * raw, uncompressed bytes.  Besides "no crash, no leak, no UB" it checks the
 * invariants the engine relies on: toggles strictly ascending in (0, period),
 * online_at agreeing with the toggles, fractions in [0, 1]. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "trace/avail.h"

static void check(const rc_trace *t)
{
    uint32_t period = rc_trace_period_s(t);
    if (period == 0 || rc_trace_lines(t) == 0) abort();
    for (size_t l = 0; l < rc_trace_lines(t); l++) {
        bool on;
        size_t n;
        const uint32_t *tg = rc_trace_toggles(t, l, &on, &n);
        if (rc_trace_online_at(t, l, 0) != on) abort();
        uint32_t prev = 0;
        for (size_t i = 0; i < n; i++) {
            if (tg[i] <= prev || tg[i] >= period) abort();
            /* The state flips exactly at each toggle. */
            if (rc_trace_online_at(t, l, tg[i]) == rc_trace_online_at(t, l, tg[i] - 1)) abort();
            prev = tg[i];
        }
        double f = rc_trace_online_fraction(t, l);
        if (!(f >= 0 && f <= 1)) abort();
        if (rc_trace_online_at(t, l, (uint64_t)period + 0) != on) abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rc_err err = {0};
    /* min_lines from the first byte exercises the "too few lines" path. */
    size_t min_lines = size ? data[0] % 4 : 0;
    rc_trace *t = rc_trace_parse("fuzz", data, size, min_lines, &err);
    if (t == NULL) {
        if (err.code == 0 || err.msg[0] == '\0') abort(); /* a failure must say why */
        return 0;
    }
    if (err.code != 0) abort();
    check(t);
    rc_trace_free(t);
    return 0;
}
