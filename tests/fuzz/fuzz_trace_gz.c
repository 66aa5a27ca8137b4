/* fuzz_trace_gz: libFuzzer harness for rc_trace_load on arbitrary file bytes
 * (gzip framing, truncated and corrupt streams, non-gzip input).  The seed
 * corpus holds small valid .txt.gz traces for the fuzzer to mutate. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "workload/avail.h"

static char path[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (path[0] == '\0') snprintf(path, sizeof path, "/tmp/rcsim-fuzz-trace-%d.gz", (int)getpid());
    FILE *f = fopen(path, "wb");
    if (f == NULL) abort();
    if (size && fwrite(data, 1, size, f) != size) abort();
    fclose(f);
    rc_err err = {0};
    rc_trace *t = rc_trace_load(path, 0, &err);
    if (t == NULL) {
        if (err.code == 0 || err.msg[0] == '\0') abort();
    } else {
        uint32_t period = rc_trace_period_s(t);
        for (size_t l = 0; l < rc_trace_lines(t); l++) {
            size_t n;
            bool on;
            const uint32_t *tg = rc_trace_toggles(t, l, &on, &n);
            for (size_t i = 0; i < n; i++)
                if (tg[i] == 0 || tg[i] >= period || (i && tg[i] <= tg[i - 1])) abort();
        }
        rc_trace_free(t);
    }
    return 0;
}
