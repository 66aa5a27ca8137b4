/* command_line: see command_line.h. */
#include "cli/command_line.h"

#include <string.h>

#include "core/log.h"

/* Appends `word` to `out` as a POSIX shell reads it back: as it is when it
 * holds only characters no shell treats specially, else in single quotes (a
 * quote inside as '\'').  `out` has room for 4 * strlen(word) + 3 bytes. */
static void shell_quote(char *out, const char *word)
{
    size_t n = strlen(word);
    if (n > 0 && strspn(word, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                              "_-+=/.,:@%") == n) {
        memcpy(out, word, n + 1);
        return;
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
}

char *rc_cli_command_line(int argc, char **argv)
{
    size_t clen = 8;
    for (int i = 0; i < argc; i++) clen += 4 * strlen(argv[i]) + 3;
    char *command = rc_xcalloc(clen, 1);
    strcat(command, "rcsim");
    for (int i = 0; i < argc; i++) {
        strcat(command, " ");
        shell_quote(command + strlen(command), argv[i]);
    }
    return command;
}
