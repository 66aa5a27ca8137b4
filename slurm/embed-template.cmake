# Turns a batch template (slurm/*.sbatch.in) into a C header holding it as one string literal
# (one line of source per template line), so that `rcsim slurm` writes exactly the documented
# template.  Run at configure time from src/slurm/sources.cmake.  Input: RCSIM_SLURM_TEMPLATE
# (the template), RCSIM_SLURM_TEMPLATE_VAR (the C identifier); output: RCSIM_SLURM_TEMPLATE_H.
if(NOT RCSIM_SLURM_TEMPLATE_VAR)
  set(RCSIM_SLURM_TEMPLATE_VAR slurm_template)
endif()
get_filename_component(_rcsim_tpl_name "${RCSIM_SLURM_TEMPLATE}" NAME)
file(READ "${RCSIM_SLURM_TEMPLATE}" text)
string(REPLACE "\\" "\\\\" text "${text}")
string(REPLACE "\"" "\\\"" text "${text}")
# '?' is escaped so that no "??x" trigraph can appear in strict C17 mode.
string(REPLACE "?" "\\?" text "${text}")
string(REPLACE "\t" "\\t" text "${text}")
string(REPLACE "\n" "\\n\"\n    \"" text "${text}")
file(WRITE "${RCSIM_SLURM_TEMPLATE_H}.tmp"
     "/* Generated from slurm/${_rcsim_tpl_name} by slurm/embed-template.cmake; do not edit. */\n"
     "static const char ${RCSIM_SLURM_TEMPLATE_VAR}[] =\n    \"${text}\";\n")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${RCSIM_SLURM_TEMPLATE_H}.tmp" "${RCSIM_SLURM_TEMPLATE_H}")
file(REMOVE "${RCSIM_SLURM_TEMPLATE_H}.tmp")
