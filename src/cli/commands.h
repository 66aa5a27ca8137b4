/* commands: one function per `rcsim` subcommand.  Each parses its own options
 * with getopt_long, prints its own --help, and returns the process exit code
 * (0 ok, 1 runtime failure, 2 bad usage or input, 3 stopped by SIGTERM with
 * the results saved). */
#ifndef RCSIM_CLI_COMMANDS_H
#define RCSIM_CLI_COMMANDS_H

#include <stdio.h>

int rc_cmd_run(int argc, char **argv);     /* cli/cmd_run.c: one job */
int rc_cmd_sweep(int argc, char **argv);   /* cli/cmd_sweep.c: MPI master/worker sweep */
int rc_cmd_plan(int argc, char **argv);    /* cli/cmd_plan.c: expand and estimate a sweep */
int rc_cmd_slurm(int argc, char **argv);   /* cli/cmd_slurm.c: write an sbatch script */
int rc_cmd_trace(int argc, char **argv);   /* cli/cmd_trace.c: trace stats and synthetic traces */
int rc_cmd_bench(int argc, char **argv);   /* cli/cmd_bench.c: benchmark suite */
int rc_cmd_plot(int argc, char **argv);    /* cli/cmd_analysis.c: python3 -m rcplot plot */
int rc_cmd_report(int argc, char **argv);  /* cli/cmd_analysis.c: python3 -m rcplot report */
int rc_cmd_figures(int argc, char **argv); /* cli/cmd_analysis.c: the paper's figures (Python) */
int rc_cmd_summarize(int argc, char **argv); /* cli/cmd_analysis.c: results table (Python) */
int rc_cmd_compare(int argc, char **argv);   /* cli/cmd_analysis.c: against a baseline (Python) */
int rc_cmd_diff(int argc, char **argv);      /* cli/cmd_analysis.c: two results files (Python) */

/* `rcsim --help TOPIC`, `rcsim run --help TOPIC` (cli/cmd_strategies.c): prints the topic
 * ("strategies") to `out` and returns 0, or names the topics on stderr and returns 2. */
int rc_help_topic(const char *topic, FILE *out);
/* cli/cmd_strategies.c: the strategy families (multicast/strategy_table.h), as text or
 * JSON; rc_strategies_help prints the `--help strategies` text. */
int rc_cmd_strategies(int argc, char **argv);
void rc_strategies_help(FILE *out);
int rc_cmd_merge(int argc, char **argv);   /* cli/cmd_merge.c: combine results files (shards) */
int rc_cmd_convert(int argc, char **argv); /* cli/cmd_convert.c: results layout 1 -> 2 */

#endif
