# Each subcommand lives in its own file; main.c dispatches by name.
set(RCSIM_CLI_SOURCES src/cli/main.c src/cli/cmd_run.c)
foreach(cmd sweep plan slurm trace bench)
  if(EXISTS ${CMAKE_SOURCE_DIR}/src/cli/cmd_${cmd}.c)
    list(APPEND RCSIM_CLI_SOURCES src/cli/cmd_${cmd}.c)
  endif()
endforeach()
