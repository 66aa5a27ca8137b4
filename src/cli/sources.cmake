# Each subcommand lives in its own file; main.c dispatches by name.
set(RCSIM_CLI_SOURCES src/cli/main.c src/cli/cmd_run.c)
foreach(cmd sweep plan slurm trace bench merge convert)
  if(EXISTS ${CMAKE_SOURCE_DIR}/src/cli/cmd_${cmd}.c)
    list(APPEND RCSIM_CLI_SOURCES src/cli/cmd_${cmd}.c)
  endif()
endforeach()

# `rcsim slurm` embeds the documented batch template (slurm/rcsim-sweep.sbatch.in) at
# configure time; editing the template re-runs the configure step.
if(EXISTS ${CMAKE_SOURCE_DIR}/src/cli/cmd_slurm.c)
  set_property(DIRECTORY ${CMAKE_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
               ${CMAKE_SOURCE_DIR}/slurm/rcsim-sweep.sbatch.in)
  set(RCSIM_SLURM_TEMPLATE ${CMAKE_SOURCE_DIR}/slurm/rcsim-sweep.sbatch.in)
  set(RCSIM_SLURM_TEMPLATE_H ${CMAKE_BINARY_DIR}/generated/cli/slurm_template.h)
  include(${CMAKE_SOURCE_DIR}/slurm/embed-template.cmake)
endif()
