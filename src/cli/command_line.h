/* command_line: the command as the user typed it, for provenance.  The
 * results file records it (the manifest's and the root's `command`), so it
 * must read back in a POSIX shell as the same words: each word is written as
 * it is when no shell treats any of its characters specially, else in single
 * quotes. */
#ifndef RCSIM_CLI_COMMAND_LINE_H
#define RCSIM_CLI_COMMAND_LINE_H

/* "rcsim W1 W2 ...", each of argv[0..argc) shell-quoted; taken before getopt
 * permutes argv.  The caller frees it. */
char *rc_cli_command_line(int argc, char **argv);

#endif
