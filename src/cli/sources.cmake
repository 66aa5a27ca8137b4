# Each subcommand lives in its own file; main.c dispatches by name.  The commands only parse
# options and call the modules that do the work (bench/, slurm/, exp/, farm/, ...).
set(RCSIM_CLI_SOURCES src/cli/main.c src/cli/cmd_run.c src/cli/cmd_strategies.c src/cli/share.c
    src/cli/sweep_until.c src/cli/command_line.c)
foreach(cmd sweep plan slurm trace bench analysis merge convert)
  if(EXISTS ${CMAKE_SOURCE_DIR}/src/cli/cmd_${cmd}.c)
    list(APPEND RCSIM_CLI_SOURCES src/cli/cmd_${cmd}.c)
  endif()
endforeach()

# What `rcsim --version` says about the build (the version and git revision come from
# core/version.h).  $<CONFIG> is the build type, also under multi-config generators.
if(RCSIM_SANITIZE)
  set(RCSIM_BUILD_SANITIZE 1)
else()
  set(RCSIM_BUILD_SANITIZE 0)
endif()
if(RCSIM_WERROR)
  set(RCSIM_BUILD_WERROR 1)
else()
  set(RCSIM_BUILD_WERROR 0)
endif()
set_property(SOURCE src/cli/main.c APPEND PROPERTY COMPILE_DEFINITIONS
             "RCSIM_BUILD_TYPE=\"$<CONFIG>\""
             "RCSIM_BUILD_COMPILER=\"${CMAKE_C_COMPILER_ID} ${CMAKE_C_COMPILER_VERSION}\""
             "RCSIM_BUILD_SANITIZE=${RCSIM_BUILD_SANITIZE}"
             "RCSIM_BUILD_WERROR=${RCSIM_BUILD_WERROR}")
