#include "io/json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"

json_t *rc_json_str(const char *s)
{
    json_t *v = json_string(s != NULL ? s : "");
    if (v != NULL) return v;
    /* Not UTF-8 (a path in another encoding): keep the ASCII, mark the rest. */
    size_t n = strlen(s);
    char *buf = rc_xmalloc(3 * n + 1), *p = buf;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x80) {
            *p++ = (char)c;
        } else {
            memcpy(p, "\xef\xbf\xbd", 3);
            p += 3;
        }
    }
    *p = '\0';
    v = json_string(buf);
    free(buf);
    RC_ASSERT(v != NULL);
    return v;
}

json_t *rc_json_num(double v, int decimals)
{
    if (!isfinite(v)) return json_null();
    if (decimals >= 0) {
        /* Through the decimal text, so the value is exactly what %.Nf shows. */
        char buf[64];
        snprintf(buf, sizeof buf, "%.*f", decimals, v);
        v = strtod(buf, NULL);
    }
    return json_real(v);
}

json_t *rc_json_u64(uint64_t v)
{
    if (v <= (uint64_t)INT64_MAX) return json_integer((json_int_t)v);
    char buf[32];
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
    return json_string(buf);
}

int rc_json_print(FILE *f, json_t *v, size_t flags)
{
    int rc = json_dumpf(v, f, flags);
    json_decref(v);
    if (rc == 0 && fputc('\n', f) == EOF) rc = -1;
    return rc;
}
