/* fuzz_sweep: libFuzzer harness for the sweep-file parser (rc_sweep_load) on
 * arbitrary bytes written to a temporary file.  A rejected file must come
 * with a message; an accepted one must expand to jobs that all have ids. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "exp/sweep.h"

static char path[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (path[0] == '\0') snprintf(path, sizeof path, "/tmp/rcsim-fuzz-sweep-%d.yaml", (int)getpid());
    FILE *f = fopen(path, "wb");
    if (f == NULL) abort();
    if (size && fwrite(data, 1, size, f) != size) abort();
    fclose(f);
    rc_err err = {0};
    rc_sweep *s = rc_sweep_load(path, NULL, 0, &err);
    if (s == NULL) {
        if (err.code == 0 || err.msg[0] == '\0') abort();
        return 0;
    }
    if (rc_sweep_name(s) == NULL) abort();
    for (size_t i = 0; i < rc_sweep_count(s); i++)
        if (rc_sweep_job(s, i) == NULL) abort();
    (void)rc_sweep_hash(s);
    rc_sweep_free(s);
    return 0;
}
