#include "core/err.h"

#include <stdio.h>

int rc_err_vset(rc_err *err, int code, const char *fmt, va_list ap)
{
    if (err != NULL && err->code == 0) {
        err->code = code;
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    }
    return code;
}

int rc_err_set(rc_err *err, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rc_err_vset(err, code, fmt, ap);
    va_end(ap);
    return code;
}

void rc_err_clear(rc_err *err)
{
    if (err != NULL) {
        err->code = 0;
        err->msg[0] = '\0';
    }
}
