/* shquote: see shquote.h. */
#include "core/shquote.h"

#include <string.h>

size_t rc_shell_quote(char *out, const char *word)
{
    size_t n = strlen(word);
    if (n > 0 && strspn(word, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                              "_-+=/.,:@%") == n) {
        memcpy(out, word, n + 1);
        return n;
    }
    char *p = out;
    *p++ = '\'';
    for (const char *c = word; *c; c++) {
        if (*c == '\'') {
            memcpy(p, "'\\''", 4);
            p += 4;
        } else {
            *p++ = *c;
        }
    }
    *p++ = '\'';
    *p = '\0';
    return (size_t)(p - out);
}
