# Turns slurm/rcsim-sweep.sbatch.in into a C header (one string literal per line) so that
# `rcsim slurm` writes exactly the documented template.  Run at configure time from
# src/cli/sources.cmake; input: RCSIM_SLURM_TEMPLATE, output: RCSIM_SLURM_TEMPLATE_H.
file(READ "${RCSIM_SLURM_TEMPLATE}" text)
string(REPLACE "\\" "\\\\" text "${text}")
string(REPLACE "\"" "\\\"" text "${text}")
# '?' is escaped so that no "??x" trigraph can appear in strict C17 mode.
string(REPLACE "?" "\\?" text "${text}")
string(REPLACE "\t" "\\t" text "${text}")
string(REPLACE "\n" "\\n\"\n    \"" text "${text}")
file(WRITE "${RCSIM_SLURM_TEMPLATE_H}.tmp"
     "/* Generated from slurm/rcsim-sweep.sbatch.in by slurm/embed-template.cmake; do not edit. */\n"
     "static const char slurm_template[] =\n    \"${text}\";\n")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${RCSIM_SLURM_TEMPLATE_H}.tmp" "${RCSIM_SLURM_TEMPLATE_H}")
file(REMOVE "${RCSIM_SLURM_TEMPLATE_H}.tmp")
