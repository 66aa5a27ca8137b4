/* command_line: see command_line.h. */
#include "cli/command_line.h"

#include <string.h>

#include "core/log.h"
#include "core/shquote.h"

char *rc_cli_command_line(int argc, char **argv)
{
    size_t clen = 8;
    for (int i = 0; i < argc; i++) clen += RC_SHELL_QUOTE_ROOM(strlen(argv[i]));
    char *command = rc_xcalloc(clen, 1);
    strcat(command, "rcsim");
    for (int i = 0; i < argc; i++) {
        strcat(command, " ");
        rc_shell_quote(command + strlen(command), argv[i]);
    }
    return command;
}
