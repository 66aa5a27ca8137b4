# Each subcommand lives in its own file; main.c dispatches by name.  The commands only parse
# options and call the modules that do the work (bench/, slurm/, exp/, farm/, ...).
set(RCSIM_CLI_SOURCES src/cli/main.c src/cli/cmd_run.c)
foreach(cmd sweep plan slurm trace bench)
  if(EXISTS ${CMAKE_SOURCE_DIR}/src/cli/cmd_${cmd}.c)
    list(APPEND RCSIM_CLI_SOURCES src/cli/cmd_${cmd}.c)
  endif()
endforeach()
