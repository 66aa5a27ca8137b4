/* fuzz_trace_gz: libFuzzer harness for rc_trace_load, i.e. the parser behind
 * zlib's gzread, on files the fuzzer shapes.  The first byte picks the mode:
 *   even: the rest is written as is (gzip framing, corrupt and non-gzip input;
 *         the seed corpus holds small valid .txt.gz traces to mutate);
 *   odd:  the rest is gzip-compressed here, then cut to a length taken from
 *         the second byte (0 = keep all), so valid and truncated streams of
 *         arbitrary text reach the parser without CRC luck. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "trace/avail.h"

static char path[64];

/* Gzip-compresses in memory (windowBits 31 = gzip wrapper). */
static size_t gzip_mem(const uint8_t *in, size_t n, uint8_t **out)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) != Z_OK) abort();
    size_t cap = deflateBound(&z, (uLong)n) + 32;
    *out = malloc(cap);
    z.next_in = (Bytef *)in;
    z.avail_in = (uInt)n;
    z.next_out = *out;
    z.avail_out = (uInt)cap;
    if (deflate(&z, Z_FINISH) != Z_STREAM_END) abort();
    size_t len = z.total_out;
    deflateEnd(&z);
    return len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (path[0] == '\0') snprintf(path, sizeof path, "/tmp/rcsim-fuzz-trace-%d.gz", (int)getpid());
    const uint8_t *bytes = data;
    size_t n = size;
    uint8_t *packed = NULL;
    bool compressed = size >= 2 && (data[0] & 1);
    if (compressed) {
        n = gzip_mem(data + 2, size - 2, &packed);
        /* Cut somewhere in the stream, including inside the 8-byte trailer. */
        if (data[1] != 0 && n > 0) n = n - 1 - (size_t)data[1] % n;
        bytes = packed;
    }
    FILE *f = fopen(path, "wb");
    if (f == NULL) abort();
    if (n && fwrite(bytes, 1, n, f) != n) abort();
    fclose(f);
    rc_err err = {0};
    rc_trace *t = rc_trace_load(path, 0, &err);
    if (t == NULL) {
        if (err.code == 0 || err.msg[0] == '\0') abort();
    } else {
        /* A truncated stream must never load. */
        if (compressed && data[1] != 0) abort();
        uint32_t period = rc_trace_period_s(t);
        for (size_t l = 0; l < rc_trace_lines(t); l++) {
            size_t k;
            bool on;
            const uint32_t *tg = rc_trace_toggles(t, l, &on, &k);
            for (size_t i = 0; i < k; i++)
                if (tg[i] == 0 || tg[i] >= period || (i && tg[i] <= tg[i - 1])) abort();
        }
        rc_trace_free(t);
    }
    free(packed);
    return 0;
}
