/* shquote: one word written so that a POSIX shell reads it back as that word.
 * Used wherever rcsim writes a command for a shell or for the record: the
 * command line kept as provenance (cli/command_line.c) and the batch scripts
 * (slurm/slurm_gen.c). */
#ifndef RCSIM_CORE_SHQUOTE_H
#define RCSIM_CORE_SHQUOTE_H

#include <stddef.h>

/* Room rc_shell_quote needs for a word of n bytes, its terminating NUL included. */
#define RC_SHELL_QUOTE_ROOM(n) (4 * (n) + 3)

/* Writes `word` to `out` bare when it holds only characters no shell treats
 * specially (so commands stay readable), else in single quotes with each '
 * as '\''; `out` has RC_SHELL_QUOTE_ROOM(strlen(word)) bytes.  Returns the
 * length written. */
size_t rc_shell_quote(char *out, const char *word);

#endif
